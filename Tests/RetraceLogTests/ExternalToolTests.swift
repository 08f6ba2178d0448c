import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// The format is open: the stock zstd tool and an independent decoder in another language
/// read what Retrace writes.
@MainActor
@Suite struct ExternalToolTests {
  @Test func theStockZstdToolAcceptsAFinishedTrace() throws {
    try #require(commandExists("zstd"), "the zstd tool is missing (scripts/setup installs it)")
    let path = temporaryDirectory() + "/zstd.trace"
    _ = try record(bankingDomain, count: 3_000, to: path, configuration: smallChunks())
    #expect(try run("zstd", ["-q", "-t", path]).status == 0)
    let decompressed = try run("sh", ["-c", "zstd -q -dc '\(path)' | wc -c"])
    #expect(decompressed.status == 0)
    let reader = try TraceReader(path: path)
    #expect(
      Int(decompressed.output.trimmingCharacters(in: .whitespacesAndNewlines))
        == reader.chunks.reduce(0) { $0 + $1.rawSize })
  }

  /// The same session, recorded in format 1 and in format 2 (the default), reads the same in
  /// Python, written from docs/TRACE_FORMAT.md, as in Swift: every action's bytes and time,
  /// and every checkpoint.
  @Test(arguments: [UInt16(1), 2])
  func anIndependentPythonDecoderReadsTheSameTrace(formatVersion: UInt16) throws {
    try #require(commandExists("zstd"), "the zstd tool is missing (scripts/setup installs it)")
    let python = try run("python3", ["-c", "import cbor2"])
    try #require(python.status == 0, "python3 cbor2 is missing (scripts/setup installs it)")
    let path = temporaryDirectory() + "/python-\(formatVersion).trace"
    var configuration = smallChunks()
    configuration.formatVersion = formatVersion
    let recorded = try record(bankingDomain, count: 2_500, to: path, configuration: configuration)
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "read_trace.py"
    ).path
    let result = try run("python3", [script, path])
    #expect(result.status == 0, "\(result.error)")
    let summary = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as! [String: Any]
    #expect(summary["domain"] as? String == "banking")
    #expect(summary["version"] as? Int == Int(formatVersion))
    #expect(summary["actions"] as? Int == 2_500)
    #expect(summary["firstSequence"] as? Int == 1)
    #expect(summary["crcErrors"] as? Int == 0)
    // The last action, as JSON, equals the Swift value.
    let last = try JSONSerialization.data(withJSONObject: summary["lastAction"]!)
    #expect(try JSONDecoder().decode(BankingAction.self, from: last) == recorded.actions.last)
    // Every action's bytes and time, and every checkpoint hash, are the Swift reader's.
    let reader = try TraceReader(path: path)
    var actionBytes: [String] = []
    var actionTimes: [Double] = []
    var hashes: [String] = []
    try reader.forEachRecord { record in
      switch record.kind {
      case .action:
        actionBytes.append(record.payload.map { String(format: "%02x", $0) }.joined())
        actionTimes.append(record.time!)
      case .checkpoint:
        hashes.append(String(record.hash!.rawValue))
      default:
        break
      }
      return true
    }
    #expect(summary["actionBytes"] as? [String] == actionBytes)
    // Python gives each action's time offset in µs; its time is computed as section 3 says.
    let offsets = summary["actionTimes"] as? [Int] ?? []
    #expect(offsets.map { reader.header.startTime + Double($0) / 1_000_000 } == actionTimes)
    #expect(summary["checkpointHashes"] as? [String] == hashes)
  }
}
