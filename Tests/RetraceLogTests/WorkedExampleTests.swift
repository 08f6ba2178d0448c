import Foundation
import Retrace
import RetraceExamples
import RetraceLog
import Testing

/// docs/TRACE_FORMAT.md's worked example is what the recorder writes today, byte for byte.
@Suite struct WorkedExampleTests {
  /// The example's session: a counter with a fixed clock, a checkpoint every 2 actions, no
  /// periodic snapshots, `increment`, `increment`, `decrement`, closed on the main actor.
  @MainActor
  static func exampleTrace() throws -> [UInt8] {
    let path = temporaryDirectory() + "/example.trace"
    var configuration = TraceRecorderConfiguration()
    configuration.checkpointInterval = 2
    configuration.snapshotInterval = 0
    configuration.reproducibleCheckpoints = true
    let recorder = try TraceRecorder(
      path: path, domain: counterDomain, sessionID: "7f3c", startTime: 1_763_771_000,
      configuration: configuration)
    let store = Store(
      initialState: counterDomain.initialState, reducer: CounterReducer(),
      clock: .fixed(start: 1_763_771_000, interval: 0.5))
    store.attach(recorder)
    for action: CounterAction in [.increment, .increment, .decrement] { store.send(action) }
    try recorder.close()
    return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// `bytes` as `xxd` prints them.
  static func hexDump(_ bytes: [UInt8]) -> String {
    stride(from: 0, to: bytes.count, by: 16).map { offset in
      let line = bytes[offset..<min(offset + 16, bytes.count)]
      let hex = stride(from: 0, to: line.count, by: 2).map { pair in
        line.dropFirst(pair).prefix(2).map { String(format: "%02x", $0) }.joined()
      }.joined(separator: " ")
      let text = String(
        line.map { (0x20...0x7e).contains($0) ? Character(UnicodeScalar($0)) : "." })
      return String(format: "%08x: ", offset)
        + hex.padding(toLength: 39, withPad: " ", startingAt: 0) + "  " + text
    }.joined(separator: "\n")
  }

  @Test @MainActor func theSpecsHexDumpIsWhatTheRecorderWrites() throws {
    let spec = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/TRACE_FORMAT.md"), encoding: .utf8
    )
    let documented = spec.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { $0.count > 10 && $0.hasPrefix("0000") && $0.dropFirst(8).hasPrefix(": ") }
      .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
    let written = Self.hexDump(try Self.exampleTrace())
    #expect(
      documented
        == written.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(
          separator: "\n"),
      "docs/TRACE_FORMAT.md §9 should show:\n\(written)")
  }
}
