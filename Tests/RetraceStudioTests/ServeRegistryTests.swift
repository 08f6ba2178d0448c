import FlyingFox
import FlyingSocks
import Foundation
import RetraceLog
import Testing

@testable import RetraceStudio

/// `retrace serve` reads every session with the domains it was built with, on whichever of
/// its threads the work runs: a JSON Lines file (which needs its domain even for its summary)
/// is listed beside the traces, and a session's action cases come in the order of `info`.
@Suite struct ServeRegistryTests {
  let command = ServeCommandTests()

  /// `GET path` on the Studio at `port` with the token; the status and the body's text.
  func get(_ path: String, port: UInt16, token: String) async throws -> (Int, String) {
    let response = try await StudioHarness.send(
      HTTPRequest(
        method: .GET, version: .http11, path: path, query: [],
        headers: [.host: "127.0.0.1:\(port)", .authorization: "Bearer \(token)"],
        body: HTTPBodySequence(data: Data())), port: port)
    return (response.statusCode.code, String(decoding: try await response.bodyData, as: UTF8.self))
  }

  /// The action case names of an `actionCases` field, in the order the JSON text has them
  /// (`JSONSerialization` forgets the order of an object's keys).
  static func caseNames(in text: String, after field: String = "\"actionCases\"") -> [String] {
    guard let start = text.range(of: field) else { return [] }
    let rest = text[start.upperBound...]
    guard let open = rest.firstIndex(where: { $0 == "[" || $0 == "{" }),
      let end = rest.firstIndex(of: rest[open] == "[" ? "]" : "}")
    else { return [] }
    let part = String(rest[..<end])
    // `info --json`: {"name": count, …}; the Studio: [{"name": "…", "count": n}, …].
    // The text between the first two quotes of each item is the name.
    func firstQuoted(_ item: String) -> String? {
      let parts = item.components(separatedBy: "\"")
      return parts.count > 2 ? parts[1] : nil
    }
    if part.contains("\"name\"") {
      return part.components(separatedBy: "\"name\"").dropFirst().compactMap(firstQuoted)
    }
    return part.components(separatedBy: ",").compactMap(firstQuoted)
  }

  @Test func aJSONLinesExportIsServedBesideItsTraceWithTheCLIsCaseOrder() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("retrace-serve-jsonl-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let exported = directory.appendingPathComponent("exported.jsonl").path
    let export = try command.run([
      "export", "traces/banking-overdraft.trace", "--format", "jsonl", "-o", exported,
    ])
    #expect(export.status == 0, "\(export.stderr)")

    // What `info --json` says of the trace: its action cases in the CLI's order.
    let info = try command.process(["info", "traces/banking-overdraft.trace", "--json"])
    let output = Pipe()
    info.standardOutput = output
    try info.run()
    let infoText = String(
      decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    info.waitUntilExit()
    let cliOrder = Self.caseNames(in: infoText)
    #expect(cliOrder.count > 1, "\(infoText)")

    let token = "serve-registry-token"
    let (process, text) = try command.serve([
      "serve", "traces/banking-overdraft.trace", exported, "--port", "0", "--token", token,
    ])
    defer { process.terminate() }
    let prefix = "Retrace Studio: http://127.0.0.1:"
    let port = try #require(UInt16(text.dropFirst(prefix.count).prefix { $0.isNumber }), "\(text)")

    let (status, body) = try await get("/api/sessions", port: port, token: token)
    #expect(status == 200, "\(body)")
    let sessions = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Any]]
    #expect(sessions?.map { $0["id"] as? String } == ["banking-overdraft", "exported"])
    #expect(sessions?.last?["format"] as? String == "jsonl")
    #expect(sessions?.last?["actions"] as? Int == 2_000)

    for id in ["banking-overdraft", "exported"] {
      let (status, detail) = try await get("/api/sessions/\(id)", port: port, token: token)
      #expect(status == 200, "\(detail)")
      #expect(Self.caseNames(in: detail) == cliOrder, "\(id): \(detail)")
    }
  }
}

/// A session that cannot be summarized: its file has become unreadable.
final class UnreadableSession: StudioSession {
  let id = "unreadable"

  func summary() async throws -> any StudioAnswer {
    throw TraceError(.io, "cannot read the file: gone", path: "gone.trace")
  }
  func detail() async throws -> any StudioAnswer { try await summary() }
  func bisect(invariant: String) async throws -> any StudioAnswer { try await summary() }
  func actions(from: UInt64?, to: UInt64?, type: String?, text: String?, limit: Int) async throws
    -> any StudioAnswer
  {
    try await summary()
  }
  func state(at: UInt64?, window: StateWindow?, full: Bool) async throws -> any StudioAnswer {
    try await summary()
  }
  func state(at: UInt64?, skipping skipped: Set<UInt64>) async throws -> any StudioAnswer {
    try await summary()
  }
  func search(at: UInt64?, query: String, limit: Int) async throws -> any StudioAnswer {
    try await summary()
  }
  func diff(from: UInt64?, to: UInt64?) async throws -> any StudioAnswer { try await summary() }
  func bench(repetitions: Int) async throws -> any StudioAnswer { try await summary() }
  func flows() async throws -> any StudioAnswer { try await summary() }
  func lanes(buckets: Int, span: ClosedRange<UInt64>?) async throws -> any StudioAnswer {
    try await summary()
  }
  func export(from: UInt64?, to: UInt64?) async throws -> String { "" }
  func shrink(invariant: String) async throws -> any StudioAnswer { try await summary() }
}

@Suite struct UnreadableSessionTests {
  /// One session whose summary fails is listed as `unreadable`, with why; the others are
  /// listed as ever.
  @Test func anUnreadableSessionNeverHidesTheOthers() async throws {
    let studio = try await StudioHarness.start(
      ["banking-overdraft.trace"], extra: [UnreadableSession()])
    defer { Task { await studio.stop() } }
    let response = try await studio.get("/api/sessions")
    #expect(response.status == 200)
    let sessions = try #require(try response.json() as? [[String: Any]])
    #expect(sessions.map { $0["id"] as? String } == ["banking-overdraft", "unreadable"])
    #expect(sessions.first?["actions"] as? Int == 2_000)
    let integrity = sessions.last?["integrity"] as? [String: Any]
    #expect(integrity?["status"] as? String == "unreadable")
    #expect((integrity?["problem"] as? String)?.contains("cannot read the file") == true)
    #expect((sessions.last?["error"] as? String)?.contains("gone") == true)
  }
}
