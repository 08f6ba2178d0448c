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
  }
}
