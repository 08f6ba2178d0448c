import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceLog
import Testing

@testable import RetraceStudio

@Suite struct StateWalkTests {
  /// However the page moves (steps forward and back, jumps across anchors and snapshots),
  /// every state the API answers is the engine's state at that point.
  @Test func everyStateOnAWalkIsTheEnginesState() async throws {
    let studio = try await StudioHarness.start(["banking-session.trace"])
    defer { Task { await studio.stop() } }
    let reader = try TraceReader(path: StudioHarness.trace("banking-session.trace"))
    let debugger = ReplayEngine(
      domain: bankingDomain, session: try TraceSession(reader, domain: bankingDomain).session())
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let walk: [UInt64] = [
      1, 2, 3, 2, 1, 0, 2_047, 2_048, 2_049, 2_048, 2_047, 2_046, 4_095, 4_097, 3_000, 2_999,
      2_998, 2_999, 3_000, 100, 4_096, 1_500, 1_499,
    ].filter { $0 <= 3_000 }
    // The walk from the file; then again once bisect has loaded the whole session, from
    // which the engine seeks instead; then once the swimlanes are answered, which wait for
    // the checkpoints that states are replayed from.
    var steps = walk
    steps.append(contentsOf: walk.reversed())
    steps.append(contentsOf: walk)
    for (number, sequence) in steps.enumerated() {
      if number == walk.count {
        let loaded = try await studio.get(
          "/api/sessions/banking-session/bisect", ["invariant": "non-negative-balance"])
        #expect(loaded.status == 200)
      }
      if number == 2 * walk.count {
        #expect(try await studio.get("/api/sessions/banking-session/lanes").status == 200)
      }
      let body = try #require(
        try await studio.get(
          "/api/sessions/banking-session/state", ["at": "\(sequence)", "full": "1"]
        ).json() as? [String: Any], "state at \(sequence)")
      let served = try JSONSerialization.data(
        withJSONObject: try #require(body["state"]), options: [.sortedKeys])
      let expected = try JSONSerialization.data(
        withJSONObject: try JSONSerialization.jsonObject(
          with: try encoder.encode(try debugger.state(at: sequence))),
        options: [.sortedKeys])
      #expect(served == expected, "state at \(sequence)")
      #expect(body["seq"] as? Int == Int(sequence))
    }
  }

  /// Checkpoints are the engine's states at every multiple of their spacing; when they would
  /// pass their budget, the spacing doubles and every other one goes.
  @Test func checkpointsAreTheEnginesStatesWithinTheirBudget() throws {
    let reader = try TraceReader(path: StudioHarness.trace("banking-session.trace"))
    let debugger = ReplayEngine(
      domain: bankingDomain, session: try TraceSession(reader, domain: bankingDomain).session())
    let roomy = SpacedStates(debugger, spacing: 256, estimate: StatePreview.estimate)
    #expect(roomy.spacing == 256)
    let last = debugger.session.endSequence
    #expect(roomy.states.map(\.sequence) == Array(stride(from: 0, through: last, by: 256)))
    // A budget of two late states: the spacing grows until they fit.
    let late = try StatePreview(try debugger.state(at: last)).estimatedBytes
    let tight = SpacedStates(
      debugger, budget: 2 * late, spacing: 256, estimate: StatePreview.estimate)
    #expect(tight.estimatedBytes <= 2 * late)
    #expect(tight.spacing > roomy.spacing || tight.states.count <= 2)
    for checkpoints in [roomy, tight] {
      for (sequence, state) in checkpoints.states {
        #expect(state == (try debugger.state(at: sequence)), "checkpoint at \(sequence)")
        #expect(sequence % checkpoints.spacing == 0)
      }
      #expect(checkpoints.nearest(atOrBefore: 255).sequence == 0)
      #expect(checkpoints.nearest(atOrBefore: last).sequence == checkpoints.states.last?.sequence)
    }
  }
}

@Suite struct JumpedSessionTests {
  /// A counter session the developer moved: ten increments, a jump to -5 after the tenth,
  /// three more increments.
  @MainActor
  static func record(at path: String) throws {
    let recorder = try TraceRecorder(
      path: path, domain: counterDomain, sessionID: "moved", startTime: 1_763_771_000)
    let store = Store(
      initialState: counterDomain.initialState, reducer: CounterReducer(),
      clock: .fixed(start: 1_763_771_000, interval: 1))
    store.attach(recorder)
    for step in 1...13 {
      store.send(.increment)
      if step == 10 { store.jump(to: CounterState(count: -5)) }
    }
    try recorder.close()
  }

  /// Every state the API answers, stepping or jumping, before and after the session is in
  /// memory, is the one the app showed; an export across the jump is refused, since JSON
  /// Lines cannot hold it.
  @Test func statesFollowTheJump() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("retrace-studio-jump-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("moved.trace").path
    try await MainActor.run { try Self.record(at: path) }
    let studio = try await StudioHarness.start([], paths: [path])
    defer { Task { await studio.stop() } }
    let shown = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -5, -4, -3, -2]
    let walk: [Int] = [9, 10, 11, 10, 9, 10, 13, 12, 11, 0, 10]
    for round in 0..<2 {
      if round == 1 {
        let loaded = try await studio.get(
          "/api/sessions/moved/bisect", ["invariant": "non-negative"])
        #expect(loaded.status == 200)
        #expect((try loaded.json() as? [String: Any])?["firstViolation"] as? Int == 10)
      }
      for sequence in walk {
        let body = try #require(
          try await studio.get("/api/sessions/moved/state", ["at": "\(sequence)", "full": "1"])
            .json() as? [String: Any])
        let count = (body["state"] as? [String: Any])?["count"] as? Int
        #expect(count == shown[sequence], "round \(round), state at \(sequence)")
      }
    }
    let across = try await studio.get("/api/sessions/moved/export", ["from": "5", "to": "12"])
    #expect(across.status == 400)
    #expect(try across.error()?.contains("time-travel jump after action 10") == true)
    let after = try await studio.get("/api/sessions/moved/export", ["from": "11", "to": "13"])
    #expect(after.status == 200)
  }
}
