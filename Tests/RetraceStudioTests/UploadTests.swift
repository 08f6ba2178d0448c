import FlyingFox
import Foundation
import Retrace
import RetraceExamples
import RetraceLog
import Testing

@testable import RetraceStudio

/// `POST /api/uploads?name=N`: a trace the page uploads is written into the upload directory
/// without overwriting a file, opened and listed; a bad one is refused and not kept.
@Suite(.serialized)
struct UploadTests {
  static func directory() throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("retrace-uploads-test-\(UUID().uuidString)").path
    return path
  }

  @Test func anUploadedTraceIsWrittenListedAndOpened() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let studio = try await StudioHarness.start([], uploadDirectory: directory)
    defer { Task { await studio.stop() } }
    let trace = try Data(contentsOf: URL(fileURLWithPath: StudioHarness.trace("counter.trace")))

    let first = try await studio.get(
      "/api/uploads", ["name": "counter.trace"], method: .POST, body: trace)
    #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self))")
    let answer = try #require(try first.json() as? [String: Any])
    #expect(answer["id"] as? String == "counter")
    #expect(answer["file"] as? String == directory + "/counter.trace")
    #expect(answer["bytes"] as? Int == trace.count)
    #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/counter.trace")) == trace)
    let list = try #require(try await studio.get("/api/sessions").json() as? [[String: Any]])
    #expect(list.map { $0["id"] as? String } == ["counter"])
    let detail = try await studio.get("/api/sessions/counter")
    #expect(detail.status == 200)

    // The same name again: a new file beside it; the first is not overwritten.
    let second = try await studio.get(
      "/api/uploads", ["name": "counter.trace"], method: .POST, body: trace)
    let again = try #require(try second.json() as? [String: Any])
    #expect(again["id"] as? String == "counter-2")
    #expect(again["file"] as? String == directory + "/counter-2.trace")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
        "counter-2.trace", "counter.trace",
      ])
    // A path in the name keeps only its last part.
    let third = try await studio.get(
      "/api/uploads", ["name": "../../etc/counter.trace"], method: .POST, body: trace)
    #expect(
      (try third.json() as? [String: Any])?["file"] as? String == directory + "/counter-3.trace")
  }

  /// Uploads listed hold at most 16 times `--upload-limit` on disk: one more is refused
  /// (507) until an uploaded session is removed, which deletes the Studio's copy of it.
  @Test func uploadsListedAtOnceAreBoundedAndRemovingOneDeletesItsFile() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let trace = try Data(contentsOf: URL(fileURLWithPath: StudioHarness.trace("counter.trace")))
    var limits = RequestLimits()
    limits.upload = trace.count
    let studio = try await StudioHarness.start([], limits: limits, uploadDirectory: directory)
    defer { Task { await studio.stop() } }
    func upload() async throws -> StudioHarness.Response {
      try await studio.get("/api/uploads", ["name": "counter.trace"], method: .POST, body: trace)
    }
    for _ in 0..<16 { #expect(try await upload().status == 200) }
    let full = try await upload()
    #expect(full.status == 507)
    #expect(try full.error()?.contains("remove uploaded sessions") == true)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 16)

    let removed = try await studio.get("/api/sessions/counter-5", method: .DELETE)
    #expect(removed.status == 200)
    #expect(!FileManager.default.fileExists(atPath: directory + "/counter-5.trace"))
    #expect(try await upload().status == 200)
    #expect(try await upload().status == 507)
  }

  /// A client without the token could make the Studio read and hold an upload's body
  /// (40 connections: 2.5 GB) before the token was checked: a body larger than an ordinary
  /// request's is now refused at its head, before a byte of it is read.
  @Test func anUploadsBodyIsReadOnlyWithTheToken() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let studio = try await StudioHarness.start([], uploadDirectory: directory)
    defer { Task { await studio.stop() } }
    let client = try await RequestLimitsTests.RawClient(port: studio.port)
    defer { client.close() }
    // The head only: a server that waited for the body would answer 408 after its body time.
    try await client.send(
      "POST /api/uploads?name=big.trace HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\n"
        + "Content-Length: 10000000\r\n\r\n")
    let (text, _) = await client.readToEnd()
    #expect(RequestLimitsTests.status(text) == 401, "\(text)")
  }

  /// A small trace that expands a thousandfold (a crafted one: 90 KB declared 56 million
  /// actions, and the Studio took 17 GB decoding them) is refused before it is decoded.
  @Test @MainActor func aTraceThatExpandsFarBeyondItsSizeIsRefused() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "-resets.trace"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try TraceRecorder(
      path: path, domain: counterDomain, sessionID: "resets", startTime: 1_763_771_000)
    let store = Store(
      initialState: counterDomain.initialState, reducer: CounterReducer(),
      clock: .fixed(start: 1_763_771_000, interval: 0))
    store.attach(recorder)
    for _ in 0..<200_000 { store.send(.reset) }
    try recorder.close()
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    // Its records as format 1 holds them: format 2's columns are far smaller still.
    let raw = try TraceReader(path: path).expandedSize()
    #expect(raw > Uploads.expansionLimit(of: data.count), "\(raw) bytes from \(data.count)")

    let studio = try await StudioHarness.start([], uploadDirectory: directory)
    defer { Task { await studio.stop() } }
    let answer = try await studio.get(
      "/api/uploads", ["name": "resets.trace"], method: .POST, body: data)
    #expect(answer.status == 413, "\(String(decoding: answer.body, as: UTF8.self))")
    #expect(try answer.error()?.contains("once decompressed") == true)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    // Every bundled trace is far within the limit.
    for name in ["counter.trace", "banking-session.trace", "posts-session.trace"] {
      let trace = try Data(contentsOf: URL(fileURLWithPath: StudioHarness.trace(name)))
      let ok = try await studio.get("/api/uploads", ["name": name], method: .POST, body: trace)
      #expect(ok.status == 200, "\(name): \(String(decoding: ok.body, as: UTF8.self))")
    }
  }

  @Test func badUploadsAreRefusedAndNotKept() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var limits = RequestLimits()
    limits.upload = 4_096
    let studio = try await StudioHarness.start([], limits: limits, uploadDirectory: directory)
    defer { Task { await studio.stop() } }
    let trace = try Data(contentsOf: URL(fileURLWithPath: StudioHarness.trace("counter.trace")))
    #expect(trace.count < 4_096)

    let notATrace = try await studio.get(
      "/api/uploads", ["name": "notes.trace"], method: .POST, body: Data("hello".utf8))
    #expect(notATrace.status == 400)
    #expect(try notATrace.error()?.hasPrefix("it does not open as a session") == true)
    let wrongName = try await studio.get(
      "/api/uploads", ["name": "counter.txt"], method: .POST, body: trace)
    #expect(wrongName.status == 400)
    #expect(try wrongName.error()?.contains("NAME.trace or NAME.jsonl") == true)
    let empty = try await studio.get("/api/uploads", ["name": "e.trace"], method: .POST)
    #expect(empty.status == 400)
    let noToken = try await studio.get(
      "/api/uploads", ["name": "counter.trace"], token: .none, method: .POST, body: trace)
    #expect(noToken.status == 401)
    let tooLarge = try await studio.get(
      "/api/uploads", ["name": "big.trace"], method: .POST, body: Data(count: 5_000))
    #expect(tooLarge.status == 413)
    // Nothing was kept, and nothing listed.
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).isEmpty)
    #expect((try await studio.get("/api/sessions").json() as? [[String: Any]])?.isEmpty == true)
    // Other requests keep the small limit.
    let dispatch = try await studio.get(
      "/api/sessions/x/dispatch", method: .POST, body: Data(count: 70_000))
    #expect(dispatch.status == 413)
  }
}
