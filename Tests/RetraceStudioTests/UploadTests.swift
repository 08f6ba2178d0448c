import FlyingFox
import Foundation
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
