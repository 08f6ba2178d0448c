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
    // which the engine seeks instead.
    var steps = walk
    steps.append(contentsOf: walk.reversed())
    for (number, sequence) in steps.enumerated() {
      if number == walk.count {
        let loaded = try await studio.get(
          "/api/sessions/banking-session/bisect", ["invariant": "non-negative-balance"])
        #expect(loaded.status == 200)
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
}
