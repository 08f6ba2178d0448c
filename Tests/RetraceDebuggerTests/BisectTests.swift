import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

@Suite struct BisectTests {
  @Test func findsTheFirstViolationEvenWhenItHealsLater() throws {
    // 10,000 actions; reset (5,000), then the count dips below zero after action 5,001
    // (-1, -2, -1) and is back at zero after 5,004, between two checkpoints that both hold:
    // only an exact search sees it.
    var actions = Fixtures.safeCounterActions(count: 10_000)
    actions.insert(contentsOf: [.reset, .decrement, .decrement, .increment, .increment], at: 4_999)
    let session = ReplayEngine(
      domain: counterDomain, session: RecordedSession(domain: counterDomain, actions: actions)
    )
    .recordingCheckpoints(every: 100, snapshotEvery: 1_000)
    let debugger = ReplayEngine(domain: counterDomain, session: session)
    #expect(try debugger.state(at: 5_000).count >= 0 && debugger.state(at: 5_100).count >= 0)

    let result = try debugger.bisect(invariant: "non-negative")
    #expect(result.firstViolation == 5_001)
    #expect(result.healedAt == 5_004)
    let action = try #require(result.action)
    #expect(action.sequence == 5_001)
    #expect(action.action == .decrement)
    #expect(result.stateBefore?.count == 0)
    #expect(result.stateAfter?.count == -1)
    #expect(result.stateDiff?.contains("-1") == true)
  }

  @Test func violationsAreEveryStretchWhereTheInvariantFails() throws {
    // -1 after 3, 0 after 4, -1 after 5 to the end; and a session that starts broken.
    let session = RecordedSession(
      domain: counterDomain,
      actions: [.increment, .decrement, .decrement, .increment, .decrement])
    let debugger = ReplayEngine(domain: counterDomain, session: session)
    let stretches = try debugger.violations(invariant: "non-negative")
    #expect(stretches == [Violation(fails: 3, healedAt: 4), Violation(fails: 5)])
    let first = try debugger.bisect(invariant: "non-negative")
    #expect(first.firstViolation == stretches[0].fails && first.healedAt == stretches[0].healedAt)
    #expect(try debugger.violations(invariant: "non-negative", limit: 1).count == 1)

    let safe = RecordedSession(
      domain: counterDomain, actions: Fixtures.safeCounterActions(count: 1_000))
    #expect(
      try ReplayEngine(domain: counterDomain, session: safe).violations(invariant: "non-negative")
        .isEmpty)
  }

  @Test func reportsNoViolationWhenTheInvariantAlwaysHolds() throws {
    let session = RecordedSession(
      domain: counterDomain, actions: Fixtures.safeCounterActions(count: 1_000))
    let result = try ReplayEngine(domain: counterDomain, session: session).bisect(
      invariant: "non-negative")
    #expect(result.firstViolation == nil)
    #expect(result.action == nil)
    #expect(result.healedAt == nil)
  }

  @Test func aViolationInTheInitialStateIsAtTheStart() throws {
    let session = RecordedSession<DomainDefinition<CounterState, CounterAction>>(
      info: SessionInfo(domain: "counter", sessionID: "s", startTime: 0), startSequence: 10,
      initialState: CounterState(count: -1),
      actions: [TimedAction(sequence: 11, time: 0, action: .increment)])
    let result = try ReplayEngine(domain: counterDomain, session: session).bisect(
      invariant: "non-negative")
    #expect(result.firstViolation == 10)
    #expect(result.action == nil)
    #expect(result.healedAt == 11)
  }

  @Test func anUnknownInvariantIsAnErrorListingTheKnownOnes() {
    let debugger = ReplayEngine(
      domain: bankingDomain, session: RecordedSession(domain: bankingDomain, actions: []))
    #expect {
      try debugger.bisect(invariant: "solvent")
    } throws: { error in
      guard let error = error as? DebuggerError else { return false }
      return error.code == .unknownInvariant && error.message.contains("non-negative-balance")
        && error.message.contains("balance-matches-transactions")
    }
  }

  @Test func bankingWorkloadOverdraftsAreFoundExactly() throws {
    let session = Fixtures.session(bankingDomain, count: 3_000)
    let debugger = ReplayEngine(domain: bankingDomain, session: session)
    let result = try debugger.bisect(invariant: "non-negative-balance")
    let violation = try #require(result.firstViolation)
    let holds = bankingDomain.invariant(named: "non-negative-balance")!.holds
    #expect(holds(try debugger.state(at: violation - 1)))
    #expect(!holds(try debugger.state(at: violation)))
    for sequence in stride(from: UInt64(1), to: violation, by: 7) {
      #expect(holds(try debugger.state(at: sequence)))
    }
  }
}
