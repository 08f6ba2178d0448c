import Foundation
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
    let debugger = Debugger(
      domain: bankingDomain, session: try DomainTrace(reader, domain: bankingDomain).session())
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
    let debugger = Debugger(
      domain: bankingDomain, session: try DomainTrace(reader, domain: bankingDomain).session())
    let roomy = StateCheckpoints(debugger, spacing: 256)
    #expect(roomy.spacing == 256)
    let last = debugger.session.endSequence
    #expect(roomy.states.map(\.sequence) == Array(stride(from: 0, through: last, by: 256)))
    // A budget of two late states: the spacing grows until they fit.
    let late = try StatePreview(try debugger.state(at: last)).estimatedBytes
    let tight = StateCheckpoints(debugger, budget: 2 * late, spacing: 256)
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
