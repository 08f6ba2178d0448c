import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceLog
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

/// Skipping in a session with time-travel jumps: a jump still sets the state it set, whether
/// the replay reads the file or the session in memory.
@Suite struct SkipWithJumpsTests {
  @Test @MainActor func theFileAndTheEngineSkipAlikeAcrossAJump() throws {
    let directory = NSTemporaryDirectory() + "retrace-skip-jumps-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/moved.trace"
    let domain = bankingDomain
    let store = Store(
      initialState: domain.initialState, reducer: Reduce { domain.reduce(into: &$0, action: $1) },
      clock: .fixed(start: 1_763_771_000, interval: 0.25))
    let recorder = try TraceRecorder(
      path: path, domain: domain, sessionID: "moved", startTime: 1_763_771_000)
    store.attach(recorder)
    let actions = domain.generate(count: 60, seed: 5).actions
    var states = [store.state]
    for (index, action) in actions.enumerated() {
      store.send(action)
      states.append(store.state)
      if index + 1 == 40 { store.jump(to: states[10]) }
    }
    try recorder.close()

    let source = try TraceSession(TraceReader(path: path), domain: domain)
    #expect(source.jumpSequences == [40])
    let engine = ReplayEngine(domain: domain, session: try source.session())
    let fromFile = Self.states(of: source)
    let inMemory = Self.states(of: source, engine: engine)
    // After the jump, the actions after it on the state it set, without the skipped one.
    var expected = states[10]
    for action in actions[40..<50] where action != actions[44] {
      _ = domain.reduce(into: &expected, action: action)
    }
    for states in [fromFile, inMemory] {
      let skipped = try #require(try states.state(at: 50, skipping: [45]))
      #expect(skipped.skipped == [45])
      #expect(skipped.state == expected)
      // An action skipped before the jump changes nothing after it.
      #expect(try states.state(at: 50, skipping: [30])?.state == states.state(at: 50))
      for skip: UInt64 in [2, 30, 41, 45, 60] {
        for at: UInt64 in [skip, 40, 41, 50, 60] where at >= skip {
          #expect(
            try states.state(at: at, skipping: [skip])?.state
              == engine.state(at: at, skipping: [skip]), "skipping \(skip), at \(at)")
        }
      }
    }
  }

  static func states<D: Domain>(of source: TraceSession<D>, engine: ReplayEngine<D>? = nil)
    -> SessionStates<D>
  {
    SessionStates(source, engine: { engine })
  }
}
