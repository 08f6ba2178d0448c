import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// docs/TRACE_FORMAT.md's worked examples are what the recorder writes today, byte for byte:
/// the format-2 trace of section 9, its second chunk's content, and the format-1 trace of
/// the appendix.
@Suite struct WorkedExampleTests {
  /// The recorder's settings in both examples: a checkpoint every 2 actions, no periodic
  /// snapshots, each candidate checkpoint written.
  static func configuration(formatVersion: UInt16) -> TraceRecorderConfiguration {
    var configuration = TraceRecorderConfiguration()
    configuration.checkpointInterval = 2
    configuration.snapshotInterval = 0
    configuration.reproducibleCheckpoints = true
    configuration.formatVersion = formatVersion
    return configuration
  }

  /// Records `actions` through a store of `domain` with a fixed clock (start 1763771000,
  /// 0.5 s per action), closed on the main actor; returns the file's bytes.
  @MainActor
  static func record<D: Domain>(
    _ domain: D, _ actions: [D.Action], formatVersion: UInt16, name: String
  ) throws -> [UInt8] {
    let path = temporaryDirectory() + "/\(name).trace"
    let recorder = try TraceRecorder(
      path: path, domain: domain, sessionID: "7f3c", startTime: 1_763_771_000,
      configuration: configuration(formatVersion: formatVersion))
    let store = Store(
      initialState: domain.initialState, reducer: Reduce { domain.reduce(into: &$0, action: $1) },
      clock: .fixed(start: 1_763_771_000, interval: 0.5))
    store.attach(recorder)
    for action in actions { store.send(action) }
    try recorder.close()
    return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// Section 9's session: three banking transactions (the state has no account, so the
  /// reducer leaves it as it is), in format 2.
  @MainActor
  static func exampleTrace() throws -> [UInt8] {
    let iban = "NL91ABNA0417164300"
    return try record(
      bankingDomain,
      [
        .addTransaction(
          iban: iban, amount: -2900, beneficiary: "Internet provider", date: 1_763_771_100),
        .addTransaction(iban: iban, amount: -450, beneficiary: "Bakery", date: 1_763_771_160),
        .addTransaction(iban: iban, amount: -1250, beneficiary: "Bakery", date: 1_763_771_400.5),
      ], formatVersion: 2, name: "example-2")
  }

  /// The appendix's session: a counter, `increment`, `increment`, `decrement`, in format 1.
  @MainActor
  static func formatOneExampleTrace() throws -> [UInt8] {
    try record(
      counterDomain, [CounterAction.increment, .increment, .decrement], formatVersion: 1,
      name: "example-1")
  }

  /// The decompressed content of chunk `index` of the trace `bytes`.
  static func chunkContent(_ bytes: [UInt8], chunk index: Int) throws -> [UInt8] {
    let chunk = try TraceReader(bytes: bytes).chunks[index]
    var raw: [UInt8] = []
    try bytes.withBytes { file in
      try ZstdDecompressor().decompressFrame(
        UnsafeRawBufferPointer(
          rebasing: file[chunk.frameOffset..<(chunk.frameOffset + chunk.frameSize)]),
        expectedSize: chunk.rawSize, into: &raw)
    }
    return raw
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
    }.joined(separator: "\n").split(separator: "\n")
      .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
  }

  /// The hex dumps in docs/TRACE_FORMAT.md, in order: each a run of `xxd` lines.
  static func documentedDumps() throws -> [String] {
    let spec = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/TRACE_FORMAT.md"), encoding: .utf8
    )
    var dumps: [[String]] = []
    var inDump = false
    for line in spec.split(separator: "\n", omittingEmptySubsequences: false) {
      let isDump = line.count > 10 && line.hasPrefix("0000") && line.dropFirst(8).hasPrefix(": ")
      if isDump && !inDump { dumps.append([]) }
      if isDump { dumps[dumps.count - 1].append(line.trimmingCharacters(in: .whitespaces)) }
      inDump = isDump
    }
    return dumps.map { $0.joined(separator: "\n") }
  }

  @Test @MainActor func theSpecsHexDumpsAreWhatTheRecorderWrites() throws {
    let dumps = try Self.documentedDumps()
    try #require(dumps.count == 3, "docs/TRACE_FORMAT.md should hold 3 hex dumps")
    let trace = try Self.exampleTrace()
    let written = [
      Self.hexDump(trace), Self.hexDump(try Self.chunkContent(trace, chunk: 1)),
      Self.hexDump(try Self.formatOneExampleTrace()),
    ]
    let places = [
      "§9, the trace", "§9, the second chunk's content", "the appendix, the format-1 trace",
    ]
    for (index, place) in places.enumerated() {
      #expect(
        dumps[index] == written[index],
        "docs/TRACE_FORMAT.md \(place) should show:\n\(written[index])")
    }
  }
}
