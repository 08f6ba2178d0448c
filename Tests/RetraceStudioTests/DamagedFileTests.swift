import Foundation
import Retrace
import RetraceCLI
import RetraceDebugger
import RetraceExamples
import RetraceLog
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

  /// A session of no actions: the invariant holds in its starting state, and nothing was
  /// checked; the page said "holds after all 0 actions".
  @Test func bisectingASessionWithoutActionsSaysNothingWasChecked() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("studio-empty-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let empty = directory.appendingPathComponent("empty.jsonl").path
    try Data(
      (#"{"format":"retrace-jsonl","version":1,"domain":"counter","actionSchemaVersion":1,"sessionID":"empty","startTime":1763771000,"producer":"Retrace 0.1.0","firstSequence":0}"#
        + "\n").utf8
    ).write(to: URL(fileURLWithPath: empty))
    let studio = try await StudioHarness.start([], paths: [empty])
    defer { Task { await studio.stop() } }
    let bisect = try #require(
      try await studio.get("/api/sessions/empty/bisect", ["invariant": "non-negative"]).json()
        as? [String: Any])
    #expect(bisect["firstViolation"] is NSNull, "\(bisect)")
    #expect(bisect["nothingChecked"] as? Bool == true, "\(bisect)")
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

/// A trace damaged after its head, served from its index: the list, the detail and the
/// actions endpoint give one answer, `retrace info`'s: the actions before the damage.
@Suite struct DamagedTraceTests {
  /// A banking trace of small chunks in trace format `format`, damaged (one bit of a zstd
  /// frame flipped) in the chunk `damaged` picks; returns its path and its intact part by
  /// `retrace info`'s reading.
  static func trace(
    named name: String, in directory: URL, format: UInt16,
    damaging damaged: ([TraceChunk]) -> TraceChunk?
  ) throws -> (path: String, summary: SessionFile.Summary) {
    let session = Fixtures.session(bankingDomain, count: 3_000, seed: 5)
    var configuration = Fixtures.smallChunks
    configuration.formatVersion = format
    let path = try Fixtures.write(
      session, domain: bankingDomain, named: name, in: directory, configuration: configuration)
    #expect(try TraceReader(path: path).formatVersion == format)
    let chunk = try #require(damaged(try TraceReader(path: path).chunks))
    var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    bytes[chunk.offset + 8 + 48 + 20] ^= 0x10
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return (path, try SessionFile.open(path, key: nil).summary(domain: bankingDomain))
  }

  /// Damage in the chunk of the starting state, and in a chunk of actions a few chunks in.
  @Test(arguments: Fixtures.traceFormats)
  func theListTheDetailAndTheActionsCountTheActionsBeforeTheDamage(format: UInt16) async throws {
    let directory = try Fixtures.temporaryDirectory()
    let start = try Self.trace(named: "start.trace", in: directory, format: format) { $0.first }
    let early = try Self.trace(named: "early.trace", in: directory, format: format) { chunks in
      chunks.first { $0.firstSequence > 20 && !$0.startsWithSnapshot && $0.actionCount > 0 }
    }
    #expect(start.summary.actionCount == 0)
    #expect(early.summary.actionCount > 0 && early.summary.actionCount < 100)

    let studio = try await StudioHarness.start([], paths: [start.path, early.path])
    defer { Task { await studio.stop() } }
    let list = try #require(try await studio.get("/api/sessions").json() as? [[String: Any]])
    for (id, path, expected) in [
      ("start", start.path, start.summary), ("early", early.path, early.summary),
    ] {
      let listed = try #require(list.first { $0["id"] as? String == id })
      #expect(listed["actions"] as? Int == expected.actionCount, "\(id)")
      #expect((listed["integrity"] as? [String: Any])?["status"] as? String == "damaged", "\(id)")
      let detail = try #require(
        try await studio.get("/api/sessions/\(id)").json() as? [String: Any])
      #expect(detail["actions"] as? Int == expected.actionCount, "\(id)")

      let page = try #require(
        try await studio.get("/api/sessions/\(id)/actions", ["limit": "10000"]).json()
          as? [String: Any])
      let actions = try #require(page["actions"] as? [[String: Any]])
      #expect(actions.count == expected.actionCount, "\(id)")
      #expect(page["last"] as? Int == Int(expected.lastSequence), "\(id)")
      #expect(page["next"] is NSNull, "\(id)")

      // Past the damage: the damage, with the file and where, not actions nor a state (of
      // which a trace without its starting state has none).
      for (endpoint, query) in [("actions", ["from": "2500"]), ("state", ["at": "2500"])] {
        let past = try await studio.get("/api/sessions/\(id)/\(endpoint)", query)
        #expect(past.status == 422, "\(id) \(endpoint)")
        let error = try past.error() ?? ""
        #expect(
          error.hasPrefix("\(path): offset ") && error.hasSuffix("chunk checksum mismatch")
            || id == "start" && error == "\(path): the trace has no starting snapshot",
          "\(id) \(endpoint): \(error)")
      }
    }
  }
}
