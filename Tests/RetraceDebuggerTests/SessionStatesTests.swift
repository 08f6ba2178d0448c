import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceLog
import RetraceTestSupport
import Synchronization
import Testing

/// Skipping in a session with time-travel jumps: a jump still sets the state it set, whether
/// the replay reads the file or the session in memory.
@Suite struct SkipWithJumpsTests {
  @Test @MainActor func theFileAndTheEngineSkipAlikeAcrossAJump() throws {
    let directory = NSTemporaryDirectory() + "retrace-skip-jumps-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = try Fixtures.recordMovedSession(in: directory)
    let domain = bankingDomain
    let actions = Fixtures.movedSessionActions
    let source = try TraceSession(TraceReader(path: path), domain: domain)
    #expect(source.jumpSequences == [40])
    let engine = ReplayEngine(domain: domain, session: try source.session())
    let fromFile = Self.states(of: source)
    let inMemory = Self.states(of: source, engine: engine)
    // After the jump, the actions after it on the state it set, without the skipped one.
    var expected = Fixtures.movedSessionStates[10]
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

/// The state a tool keeps (the one it shows) is the one answered at its sequence number,
/// and a step forward takes it rather than a copy.
@Suite struct KeptStateTests {
  @Test @MainActor func theKeptStateIsAnsweredWithoutAReplayAndTakenOnce() throws {
    let directory = NSTemporaryDirectory() + "retrace-kept-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/counter.trace"
    let domain = counterDomain
    let store = Store(
      initialState: domain.initialState, reducer: Reduce { domain.reduce(into: &$0, action: $1) })
    let recorder = try TraceRecorder(
      path: path, domain: domain, sessionID: "kept", startTime: 1_763_771_000)
    store.attach(recorder)
    for _ in 1...10 { store.send(.increment) }
    try recorder.close()
    let released = Mutex<[Int]>([])
    let states = SessionStates(
      try TraceSession(TraceReader(path: path), domain: counterDomain),
      release: { state in released.withLock { $0.append(state.count) } })
    #expect(try states.state(at: 5).count == 5)
    // A state kept at 5 is what 5 answers (here one the replay would never give), until
    // another is kept or it is taken.
    var marked = try states.state(at: 5)
    marked.count = 500
    states.keep(marked, at: 5)
    #expect(try states.state(at: 5).count == 500)
    #expect(try states.state(at: 6).count == 6)
    #expect(states.take(at: 4) == nil)
    #expect(states.take(at: 5)?.count == 500)
    #expect(states.take(at: 5) == nil)
    #expect(try states.state(at: 5).count == 5)
    states.keep(marked, at: 5)
    states.keep(try states.state(at: 7), at: 7)
    #expect(released.withLock { $0 } == [500])
  }
}
