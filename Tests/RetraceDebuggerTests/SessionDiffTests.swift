import Retrace
import RetraceDebugger
import RetraceExamples
import Testing

@Suite struct SessionDiffTests {
  @Test func twoSessionsThatDivergeAtAKnownIndex() throws {
    let (actions, _) = bankingDomain.generate(count: 2_000, seed: 5)
    var changed = actions
    // Action 1,234 books a different amount in the other session.
    guard case .addTransaction(let iban, let amount, let beneficiary, let date) = changed[1_233]
    else {
      Issue.record("expected a transaction at 1234")
      return
    }
    changed[1_233] = .addTransaction(
      iban: iban, amount: amount - 1, beneficiary: beneficiary, date: date)
    let a = RecordedSession(domain: bankingDomain, actions: actions)
    let b = RecordedSession(domain: bankingDomain, actions: changed)
    let difference = try #require(
      ReplayEngine(domain: bankingDomain, session: a).firstDifference(with: b))
    #expect(difference.sequence == 1_234)
    #expect(difference.reason == .action)
    #expect(difference.first?.action == actions[1_233])
    #expect(difference.second?.action == changed[1_233])
    let diff = try #require(difference.stateDiff)
    #expect(diff.contains("amount: \(amount)"))
    #expect(diff.contains("amount: \(amount - 1)"))
  }

  @Test func identicalSessionsHaveNoDifference() {
    let (actions, _) = settingsDomain.generate(count: 500, seed: 2)
    let a = RecordedSession(domain: settingsDomain, actions: actions, sessionID: "a")
    let b = RecordedSession(domain: settingsDomain, actions: actions, startTime: 5, sessionID: "b")
    #expect(ReplayEngine(domain: settingsDomain, session: a).firstDifference(with: b) == nil)
  }

  @Test func aPrefixDiffersWhereItEnds() throws {
    let (actions, _) = counterDomain.generate(count: 100, seed: 2)
    let whole = RecordedSession(domain: counterDomain, actions: actions)
    let prefix = RecordedSession(domain: counterDomain, actions: Array(actions.prefix(60)))
    let difference = try #require(
      ReplayEngine(domain: counterDomain, session: prefix).firstDifference(with: whole))
    #expect(difference.sequence == 61)
    #expect(difference.reason == .onlyInSecond)
    #expect(difference.first == nil)
    #expect(difference.second?.sequence == 61)
    let reverse = try #require(
      ReplayEngine(domain: counterDomain, session: whole).firstDifference(with: prefix))
    #expect(reverse.reason == .onlyInFirst)
  }

  @Test func differentInitialStatesDifferAtTheStart() throws {
    let a = RecordedSession(domain: counterDomain, actions: [.increment])
    var b = a
    b.initialState = CounterState(count: 3)
    let difference = try #require(
      ReplayEngine(domain: counterDomain, session: a).firstDifference(with: b))
    #expect(difference.sequence == 0)
    #expect(difference.reason == .initialState)
  }

  /// A session whose recorder was attached after 5 actions, against the whole session: they
  /// differ from 0 on (whichever comes first), and the states compared are both after 5,
  /// where they are equal. Before, the late session's starting state (after 5) was shown as
  /// "the state after 5" beside the whole session's state after 0.
  @Test func sessionsThatStartAtDifferentPointsCompareTheirStatesAfterTheLaterStart() throws {
    let (actions, _) = counterDomain.generate(count: 20, seed: 3)
    let whole = RecordedSession(domain: counterDomain, actions: actions)
    let engine = ReplayEngine(domain: counterDomain, session: whole)
    let late = type(of: whole).init(
      info: whole.info, startSequence: 5, initialState: try engine.state(at: 5),
      actions: Array(whole.actions.dropFirst(5)))
    let lateEngine = ReplayEngine(domain: counterDomain, session: late)
    for difference in [
      try #require(lateEngine.firstDifference(with: whole)),
      try #require(engine.firstDifference(with: late)),
    ] {
      #expect(difference.sequence == 0)
      #expect(difference.reason == .initialState)
      #expect(difference.statesAfter == (5, 5))
      #expect(difference.stateDiff == nil)
    }
    // From equal states after the later start, the actions after it are compared: a late
    // session whose action 15 differs differs there (it was called equal after 5).
    var changed = Array(whole.actions.dropFirst(5))
    changed[9].action = changed[9].action == .reset ? .increment : .reset
    let lateChanged = type(of: whole).init(
      info: whole.info, startSequence: 5, initialState: try engine.state(at: 5), actions: changed)
    let later = try #require(
      ReplayEngine(domain: counterDomain, session: lateChanged).firstDifference(with: whole))
    #expect(later.sequence == 15)
    #expect(later.reason == .action)
    #expect(later.statesAfter == (15, 15))
    // A session that ends before the other starts: each one's starting state.
    let short = RecordedSession(domain: counterDomain, actions: Array(actions.prefix(3)))
    let apart = try #require(lateEngine.firstDifference(with: short))
    #expect(apart.sequence == 0)
    #expect(apart.statesAfter == (5, 0))
    #expect(apart.states.first == late.initialState)
    #expect(apart.states.second == short.initialState)
  }

  @Test func actionsWithoutEquatableAreComparedByTheirEncoding() throws {
    let a = RecordedSession(
      domain: opaqueDomain, actions: [OpaqueAction(value: 1), OpaqueAction(value: 2)])
    let b = RecordedSession(
      domain: opaqueDomain, actions: [OpaqueAction(value: 1), OpaqueAction(value: 3)])
    #expect(ReplayEngine(domain: opaqueDomain, session: a).firstDifference(with: b)?.sequence == 2)
    #expect(ReplayEngine(domain: opaqueDomain, session: a).firstDifference(with: a) == nil)
  }
}

/// An action type that is not `Equatable`.
struct OpaqueAction: Codable, Sendable {
  var value: Int
}

let opaqueDomain = DomainDefinition(
  name: "opaque", summary: "Sums values.", initialState: 0,
  reducer: Reduce<Int, OpaqueAction> { state, action in
    state += action.value
    return .none
  },
  actionCases: ["value"],
  workload: Workload { _, step, _ in OpaqueAction(value: step) })
