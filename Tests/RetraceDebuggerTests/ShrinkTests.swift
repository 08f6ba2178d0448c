import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

@Suite struct ShrinkTests {
  @Test func shrinksTenThousandActionsWithOneBadActionToAHandful() throws {
    // A zigzag that never goes below zero, with one extra decrement where the count is 0.
    var actions = Fixtures.safeCounterActions(count: 10_000)
    actions.insert(contentsOf: [.reset, .decrement], at: 6_000)
    let session = RecordedSession(domain: counterDomain, actions: actions)
    let result = try #require(
      try ReplayEngine(domain: counterDomain, session: session).shrink(invariant: "non-negative"))
    #expect(result.originalCount == 10_002)
    #expect(result.actions.count <= 5)
    // Any decrement from zero breaks it: ddmin keeps one of the session's decrements.
    #expect(result.actions.map(\.action) == [.decrement])
    #expect(session.action(at: result.actions[0].sequence)?.action == .decrement)
    #expect(result.replays < 200)
  }

  @Test func theResultIsOneMinimal() throws {
    let session = Fixtures.session(bankingDomain, count: 2_000, seed: 3)
    let debugger = ReplayEngine(domain: bankingDomain, session: session)
    let result = try #require(try debugger.shrink(invariant: "non-negative-balance"))
    let holds = bankingDomain.invariant(named: "non-negative-balance")!.holds
    func fails(_ actions: [BankingAction]) -> Bool {
      var state = BankingState()
      for action in actions {
        _ = bankingDomain.reduce(into: &state, action: action)
        if !holds(state) { return true }
      }
      return false
    }
    let shrunk = result.actions.map(\.action)
    #expect(fails(shrunk))
    #expect(shrunk.count < 2_000)
    for index in shrunk.indices {
      var without = shrunk
      without.remove(at: index)
      #expect(!fails(without), "still fails without action \(index)")
    }
    // Kept in their original order, with their original sequence numbers.
    #expect(result.actions.map(\.sequence) == result.actions.map(\.sequence).sorted())
    let renumbered = result.session
    #expect(renumbered.actions.map(\.sequence) == Array(1...UInt64(shrunk.count)))
  }

  @Test func nothingToShrinkWhenTheInvariantHolds() throws {
    let session = RecordedSession(
      domain: counterDomain, actions: Fixtures.safeCounterActions(count: 500))
    #expect(
      try ReplayEngine(domain: counterDomain, session: session).shrink(invariant: "non-negative")
        == nil
    )
  }

  @Test func theEmittedTestReplaysTheActionsAndExpectsTheFailure() throws {
    let session = RecordedSession(
      domain: counterDomain, actions: [.increment, .decrement, .decrement, .increment],
      sessionID: "s1")
    let result = try #require(
      try ReplayEngine(domain: counterDomain, session: session).shrink(invariant: "non-negative"))
    let source = result.swiftTest()
    #expect(source.contains("import RetraceExamples"))
    #expect(source.contains("import Testing"))
    #expect(source.contains("@Test func counterBreaksNonNegative() throws {"))
    #expect(source.contains("let domain = counterDomain"))
    #expect(source.contains("[CounterAction].self"))
    #expect(source.contains(#"{"decrement":{}}"#))
    #expect(source.contains(#"domain.invariant(named: "non-negative")"#))
    #expect(source.contains("withKnownIssue {"))
    #expect(
      result.swiftTest(domainExpression: "MyApp.counter").contains("let domain = MyApp.counter"))
    #expect(
      result.swiftTest(domainInitialState: counterDomain.initialState).contains(
        "  var state = domain.initialState\n"))
  }

  /// A session recorded from a later point (its recorder attached after some actions)
  /// starts from a state that is not the domain's: the emitted test starts from that state,
  /// embedded as JSON. It started from the domain's initial state, where the actions may not
  /// break the invariant at all, so the test read as "fixed".
  @Test func theEmittedTestStartsFromTheStateTheSessionStartsFrom() throws {
    let start = CounterState(count: 1)
    let session = type(of: RecordedSession(domain: counterDomain, actions: [])).init(
      info: RecordedSession(domain: counterDomain, actions: [], sessionID: "late").info,
      startSequence: 70, initialState: start,
      actions: [.decrement, .increment, .decrement, .decrement].enumerated().map {
        TimedAction(sequence: 71 + UInt64($0.offset), time: 0, action: $0.element)
      })
    let result = try #require(
      try ReplayEngine(domain: counterDomain, session: session).shrink(invariant: "non-negative"))
    #expect(result.actions.count == 2)
    let source = result.swiftTest(domainInitialState: counterDomain.initialState)
    #expect(!source.contains("var state = domain.initialState"))
    #expect(source.contains("  var state = try JSONDecoder().decode(\n    CounterState.self,"))
    // The embedded JSON is the starting state.
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    let open = try #require(lines.firstIndex { $0.contains("CounterState.self") }) + 3
    let close = try #require(lines[open...].firstIndex { $0.contains("\"\"\"#.utf8))") })
    let json = lines[open..<close].joined(separator: "\n")
    #expect(try JSONDecoder().decode(CounterState.self, from: Data(json.utf8)) == start)
  }
}
