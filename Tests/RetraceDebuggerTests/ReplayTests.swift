import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

@Suite struct ReplayTests {
  @Test(arguments: Examples.domains.map(\.name))
  func stateAtEveryPointEqualsAFullReplay(domainName: String) throws {
    try check(Examples.domain(named: domainName)!)
  }

  private func check<D: Domain>(_ domain: D) throws {
    let session = Fixtures.session(
      domain, count: 1_500, seed: 7, checkpointEvery: 50, snapshotEvery: 200)
    let debugger = ReplayEngine(domain: domain, session: session)
    var state = session.initialState
    #expect(try debugger.state(at: 0) == state)
    for action in session.actions {
      _ = domain.reduce(into: &state, action: action.action)
      if action.sequence % 37 == 0 || action.sequence % 200 == 0 || action.sequence % 200 == 1 {
        #expect(try debugger.state(at: action.sequence) == state, "at \(action.sequence)")
        #expect(try debugger.state(at: action.sequence, usingSnapshots: false) == state)
      }
    }
    #expect(try debugger.replay() == state)
    #expect(debugger.finalState == state)
    #expect(try debugger.replay(to: 100) == debugger.state(at: 100))
  }

  @Test func stateOutsideTheSessionIsAnOutOfRangeErrorNamingTheRange() {
    let debugger = ReplayEngine(
      domain: counterDomain, session: RecordedSession(domain: counterDomain, actions: [.increment]))
    #expect {
      try debugger.state(at: 2)
    } throws: { error in
      let error = error as? DebuggerError
      return error?.code == .outOfRange && error?.message.contains("0...1") == true
    }
  }

  @Test func aSliceStartsFromItsOwnInitialState() throws {
    let actions = (1...10).map {
      TimedAction<CounterAction>(sequence: UInt64(100 + $0), time: 0, action: .increment)
    }
    let slice = RecordedSession<DomainDefinition<CounterState, CounterAction>>(
      info: SessionInfo(domain: "counter", sessionID: "slice", startTime: 0), startSequence: 100,
      initialState: CounterState(count: 50), actions: actions)
    let debugger = ReplayEngine(domain: counterDomain, session: slice)
    #expect(try debugger.state(at: 100).count == 50)
    #expect(try debugger.state(at: 105).count == 55)
    #expect(slice.sequenceRange == 100...110)
    #expect(throws: DebuggerError.self) { try debugger.state(at: 99) }
  }

  @Test func diffBetweenTwoPointsShowsTheChangedFields() throws {
    let session = RecordedSession(
      domain: counterDomain, actions: [.increment, .increment, .decrement, .increment])
    let debugger = ReplayEngine(domain: counterDomain, session: session)
    let diff = try #require(try debugger.diff(from: 1, to: 2))
    #expect(diff.contains("-   count: 1") || diff.contains("- CounterState(count: 1)"))
    #expect(try debugger.diff(from: 2, to: 4) == nil)
    #expect(try debugger.diff(from: 4, to: 0) != nil)
  }

  @Test func caseCountsFollowTheDomainsOrder() {
    let session = RecordedSession(
      domain: counterDomain, actions: [.decrement, .increment, .increment, .reset])
    let counts = session.actionCaseCounts(order: counterDomain.actionCases)
    #expect(counts.map(\.name) == ["increment", "decrement", "reset"])
    #expect(counts.map(\.count) == [2, 1, 1])
  }
}
