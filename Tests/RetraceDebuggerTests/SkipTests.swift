import Retrace
import RetraceDebugger
import RetraceExamples
import Testing

/// Skipping an action replays the session as if it had never been sent.
@Suite struct SkipTests {
  static let actions: [CounterAction] = [
    .increment, .increment, .decrement, .increment, .increment,
  ]

  @Test func aSkippedActionIsLeftOutOfEveryLaterState() throws {
    let debugger = ReplayEngine(
      domain: counterDomain, session: RecordedSession(domain: counterDomain, actions: Self.actions))
    #expect(try debugger.state(at: 5).count == 3)
    #expect(try debugger.state(at: 5, skipping: [3]).count == 4)
    #expect(try debugger.state(at: 5, skipping: [1, 2]).count == 1)
    // Before the skipped action, and with nothing skipped, the recorded states.
    #expect(try debugger.state(at: 2, skipping: [3]).count == 2)
    #expect(try debugger.state(at: 4, skipping: []).count == 2)
    // Numbers outside the session change nothing; the state at a point outside it is refused.
    #expect(try debugger.state(at: 5, skipping: [0, 99]).count == 3)
    #expect(throws: DebuggerError.self) { try debugger.state(at: 6, skipping: [3]) }
  }

  @Test func everySkipEqualsReplayingTheSessionWithoutThatAction() throws {
    let (actions, _) = bankingDomain.generate(count: 300, seed: 5)
    let debugger = ReplayEngine(
      domain: bankingDomain, session: RecordedSession(domain: bankingDomain, actions: actions))
    for skipped in [1, 2, 17, 150, 299, 300] {
      var without = actions
      without.remove(at: skipped - 1)
      let expected = ReplayEngine(
        domain: bankingDomain, session: RecordedSession(domain: bankingDomain, actions: without)
      ).finalState
      #expect(try debugger.state(at: 300, skipping: [UInt64(skipped)]) == expected)
    }
  }
}
