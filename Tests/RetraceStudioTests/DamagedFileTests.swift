import Foundation
import RetraceTestSupport
import Testing

@testable import RetraceStudio

/// Files damaged on purpose, served: listed as damaged with where, and answered with the
/// CLI's line (file, position, problem) and 422.
@Suite struct DamagedFileTests {
  /// Damaged JSON Lines: a line nested 100,000 deep, a header too large for a trace. The
  /// first is listed as damaged at its line, the second (which no session can be read
  /// from) as damaged too rather than stopping the Studio; what reads them answers 422 with
  /// the CLI's line (file, line, problem), not 500 with the problem alone.
  @Test func damagedFilesAreListedAsDamagedAndAnswer422WithThePosition() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("studio-damaged-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let header =
      #"{"format":"retrace-jsonl","version":1,"domain":"counter","actionSchemaVersion":1,"sessionID":"s","startTime":0,"producer":"p","firstSequence":0}"#
    let intact = (1...3).map { #"{"seq":\#($0),"time":0,"action":{"increment":{}}}"# }
    let nested =
      #"{"seq":4,"time":0,"action":"# + String(repeating: "[", count: 100_000)
      + String(repeating: "]", count: 100_000) + "}"
    let nestedPath = directory.appendingPathComponent("nested.jsonl").path
    try Data(([header] + intact + [nested]).joined(separator: "\n").utf8 + [0x0A])
      .write(to: URL(fileURLWithPath: nestedPath))
    let bigPath = directory.appendingPathComponent("big.jsonl").path
    let big = header.replacingOccurrences(
      of: #""sessionID":"s""#,
      with: #""sessionID":""# + String(repeating: "s", count: 2_000_000) + "\"")
    try Data(([big] + intact).joined(separator: "\n").utf8 + [0x0A])
      .write(to: URL(fileURLWithPath: bigPath))

    let studio = try await StudioHarness.start(["counter.trace"], paths: [nestedPath, bigPath])
    defer { Task { await studio.stop() } }
    let list = try #require(try await studio.get("/api/sessions").json() as? [[String: Any]])
    let integrity = Dictionary(
      uniqueKeysWithValues: list.map {
        ($0["id"] as? String ?? "", $0["integrity"] as? [String: Any] ?? [:])
      })
    #expect(integrity["counter"]?["status"] as? String == "clean")
    #expect(integrity["nested"]?["status"] as? String == "damaged")
    #expect(integrity["nested"]?["line"] as? Int == 5)
    #expect(integrity["big"]?["status"] as? String == "damaged")
    #expect(integrity["big"]?["line"] as? Int == 1)
    #expect(
      (integrity["big"]?["problem"] as? String)?.hasPrefix("\(bigPath): line 1: the header takes")
        == true, "\(integrity["big"] ?? [:])")

    for (endpoint, query) in [
      ("state", [:]), ("actions", [:]), ("bisect", ["invariant": "non-negative"]),
    ] {
      let answer = try await studio.get("/api/sessions/nested/\(endpoint)", query)
      #expect(answer.status == 422, "\(endpoint)")
      let error = try answer.error() ?? ""
      #expect(
        error.hasPrefix("\(nestedPath): line 5: not valid JSON (too many nested"),
        "\(endpoint): \(error)")
    }
    let bigAnswer = try await studio.get("/api/sessions/big")
    #expect(bigAnswer.status == 422)
    #expect(try bigAnswer.error()?.hasPrefix("\(bigPath): line 1: the header takes") == true)
  }

  /// A crashed session's trace served without its journal, and with its journal damaged in
  /// the middle: both listed as damaged, naming the journal; a bisection of the damaged one
  /// says it could not read the whole session rather than that the invariant always held.
  @Test func aCrashedSessionWithItsJournalMissingOrDamagedIsListedAsDamaged() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("studio-journal-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let fixture = StudioHarness.packageRoot.appendingPathComponent("Tests/Fixtures/format-1").path
    let alone = directory.appendingPathComponent("alone.trace").path
    let flipped = directory.appendingPathComponent("flipped.trace").path
    for path in [alone, flipped] {
      try FileManager.default.copyItem(atPath: fixture + "/crashed.trace", toPath: path)
    }
    let middle = try Fixtures.copyFlippingTheMiddleRecord(
      ofJournal: fixture + "/crashed.trace.journal", to: flipped + ".journal")

    let studio = try await StudioHarness.start([], paths: [alone, flipped])
    defer { Task { await studio.stop() } }
    let list = try #require(try await studio.get("/api/sessions").json() as? [[String: Any]])
    let integrity = Dictionary(
      uniqueKeysWithValues: list.map {
        ($0["id"] as? String ?? "", $0["integrity"] as? [String: Any] ?? [:])
      })
    #expect(integrity["alone"]?["status"] as? String == "damaged", "\(integrity)")
    #expect(integrity["alone"]?["file"] as? String == alone + ".journal")
    #expect((integrity["alone"]?["problem"] as? String)?.hasPrefix("missing") == true)
    #expect(integrity["flipped"]?["status"] as? String == "damaged", "\(integrity)")
    #expect(integrity["flipped"]?["file"] as? String == flipped + ".journal")
    #expect(integrity["flipped"]?["offset"] as? Int == middle)

    let bisect = try #require(
      try await studio.get(
        "/api/sessions/flipped/bisect", ["invariant": "balance-matches-transactions"]
      ).json() as? [String: Any])
    #expect(bisect["firstViolation"] is NSNull, "\(bisect)")
    #expect(bisect["readWhole"] as? Bool == false, "\(bisect)")
    #expect((bisect["integrity"] as? [String: Any])?["status"] as? String == "damaged")
    let shrink = try #require(
      try await studio.get(
        "/api/sessions/flipped/shrink", ["invariant": "balance-matches-transactions"]
      ).json() as? [String: Any])
    #expect(shrink["fails"] as? Bool == false, "\(shrink)")
    #expect(shrink["readWhole"] as? Bool == false, "\(shrink)")
  }
}
