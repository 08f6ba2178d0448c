import Foundation
import RetraceLog
import Testing

@testable import RetraceStudio

/// Each of the Studio API's answers on small traces, compared with the golden files in
/// Tests/Fixtures/golden/studio: the field names and shapes the page reads. An answer is
/// compared as JSON with its keys sorted and its top-level `version` left out (the page
/// reads every other field), the package's path and the test's directory normalised.
///
/// A deliberate change of an answer is recorded again with
/// `RETRACE_RECORD_GOLDEN=1 swift test --filter AnswerGoldenTests`, and the new files are
/// reviewed as part of the change.
@Suite struct AnswerGoldenTests {
  static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").appendingPathComponent("golden")
    .appendingPathComponent("studio")

  static let recording = ProcessInfo.processInfo.environment["RETRACE_RECORD_GOLDEN"] == "1"

  /// One request: its golden file's name (without extension), its path, its query and the
  /// status it answers with.
  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var path: String
    var query: [String: String] = [:]
    var status = 200

    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(name: "sessions", path: "/api/sessions"),
    Case(name: "session-detail", path: "/api/sessions/banking-overdraft"),
    Case(name: "session-detail-counter", path: "/api/sessions/counter"),
    Case(
      name: "actions", path: "/api/sessions/counter/actions", query: ["from": "185", "to": "188"]),
    Case(
      name: "actions-first", path: "/api/sessions/banking-overdraft/actions",
      query: ["from": "1", "to": "3"]),
    Case(
      name: "actions-filtered", path: "/api/sessions/counter/actions",
      query: ["type": "decrement", "limit": "3"]),
    Case(name: "state", path: "/api/sessions/banking-overdraft/state", query: ["at": "1069"]),
    Case(name: "state-first", path: "/api/sessions/counter/state", query: ["at": "0"]),
    Case(name: "state-screens", path: "/api/sessions/posts-session/state", query: ["at": "10"]),
    Case(
      name: "state-full", path: "/api/sessions/counter/state", query: ["at": "5", "full": "1"]),
    Case(
      name: "state-window", path: "/api/sessions/banking-overdraft/state",
      query: ["at": "1069", "path": #"["accounts"]"#, "offset": "0", "limit": "2"]),
    Case(
      name: "state-skip", path: "/api/sessions/banking-overdraft/state",
      query: ["at": "1069", "skip": "1069"]),
    Case(
      name: "search", path: "/api/sessions/banking-overdraft/search",
      query: ["at": "1069", "q": "rent", "limit": "5"]),
    Case(
      name: "diff", path: "/api/sessions/banking-overdraft/diff",
      query: ["from": "1068", "to": "1069"]),
    Case(
      name: "diff-same", path: "/api/sessions/counter/diff", query: ["from": "5", "to": "5"]),
    Case(
      name: "bisect", path: "/api/sessions/counter/bisect", query: ["invariant": "non-negative"]),
    Case(
      name: "shrink", path: "/api/sessions/counter/shrink", query: ["invariant": "non-negative"]),
    Case(
      name: "shrink-holds", path: "/api/sessions/posts-session/shrink",
      query: ["invariant": "valid-navigation"]),
    Case(name: "flows", path: "/api/sessions/posts-session/flows"),
    Case(name: "lanes", path: "/api/sessions/counter/lanes", query: ["buckets": "10"]),
    Case(
      name: "lanes-empty", path: "/api/sessions/counter/lanes",
      query: ["buckets": "4", "from": "100000", "to": "100001"]),
    Case(
      name: "export", path: "/api/sessions/counter/export", query: ["from": "10", "to": "12"]),
    Case(name: "error", path: "/api/sessions/nope", status: 404),
    Case(name: "error-damaged", path: "/api/sessions/cut", status: 422),
  ]

  @Test(arguments: cases)
  func answerMatchesItsGoldenFile(_ testCase: Case) async throws {
    let (studio, directory) = try await Self.start()
    defer {
      Task { await studio.stop() }
      try? FileManager.default.removeItem(atPath: directory)
    }
    let response = try await studio.get(testCase.path, testCase.query)
    #expect(response.status == testCase.status, "\(String(decoding: response.body, as: UTF8.self))")
    let answer = try Self.normalised(response.body, directory: directory)
    let golden = Self.directory.appendingPathComponent(testCase.name + ".json")
    if Self.recording {
      try FileManager.default.createDirectory(
        at: Self.directory, withIntermediateDirectories: true)
      try Data(answer.utf8).write(to: golden)
      return
    }
    let stored = try #require(
      try? String(contentsOf: golden, encoding: .utf8),
      "no golden file \(golden.lastPathComponent): record it with RETRACE_RECORD_GOLDEN=1")
    #expect(answer == stored, "\(testCase.path) \(testCase.query)")
  }

  /// Every answer that is an object carries its version, and so does each entry of the
  /// session list (`export`'s JSON string is not an object).
  @Test(arguments: cases)
  func everyAnswerCarriesItsVersion(_ testCase: Case) async throws {
    let (studio, directory) = try await Self.start()
    defer {
      Task { await studio.stop() }
      try? FileManager.default.removeItem(atPath: directory)
    }
    let json = try await studio.get(testCase.path, testCase.query).json()
    if let list = json as? [[String: Any]] {
      #expect(!list.isEmpty)
      for entry in list { #expect(entry["version"] as? Int == 1, "\(entry)") }
    } else if let object = json as? [String: Any] {
      #expect(object["version"] as? Int == 1, "\(testCase.path)")
    } else {
      #expect(testCase.name == "export")
    }
  }

  /// Each answer type reads back what it wrote: decoded with its type and written again, an
  /// answer is the same JSON.
  @Test func everyAnswerReadsBackWhatItWrote() async throws {
    let (studio, directory) = try await Self.start()
    defer {
      Task { await studio.stop() }
      try? FileManager.default.removeItem(atPath: directory)
    }
    func check<Answer: VersionedReport>(
      _ type: Answer.Type, _ path: String, _ query: [String: String] = [:]
    ) async throws {
      let body = try await studio.get(path, query).body
      let answer = try ReportJSON.decode(type, from: body)
      #expect(answer.version == 1)
      let again = Data(try ReportJSON.text(answer).utf8)
      #expect(
        try Self.normalised(again, directory: directory)
          == Self.normalised(body, directory: directory), "\(path) \(query)")
    }
    let cases = Dictionary(uniqueKeysWithValues: Self.cases.map { ($0.name, $0) })
    func check<Answer: VersionedReport>(_ type: Answer.Type, name: String) async throws {
      let found = try #require(cases[name])
      try await check(type, found.path, found.query)
    }
    try await check(SessionDetail.self, name: "session-detail")
    try await check(SessionDetail.self, name: "session-detail-counter")
    try await check(ActionsPage.self, name: "actions")
    try await check(ActionsPage.self, name: "actions-first")
    try await check(StateAnswer.self, name: "state")
    try await check(StateAnswer.self, name: "state-first")
    try await check(StateAnswer.self, name: "state-screens")
    try await check(StateWindowAnswer.self, name: "state-window")
    try await check(SkippedStateAnswer.self, name: "state-skip")
    try await check(SearchAnswer.self, name: "search")
    try await check(DiffAnswer.self, name: "diff")
    try await check(DiffAnswer.self, name: "diff-same")
    try await check(BisectAnswer.self, name: "bisect")
    try await check(ShrinkAnswer.self, name: "shrink")
    try await check(ShrinkAnswer.self, name: "shrink-holds")
    try await check(FlowsAnswer.self, name: "flows")
    try await check(LanesAnswer.self, name: "lanes")
    try await check(LanesAnswer.self, name: "lanes-empty")
    try await check(ErrorAnswer.self, name: "error")
    let list = try await studio.get("/api/sessions").body
    let entries = try #require(try JSONSerialization.jsonObject(with: list) as? [Any])
    for entry in entries {
      let data = try JSONSerialization.data(
        withJSONObject: entry, options: [.withoutEscapingSlashes])
      if (entry as? [String: Any])?["error"] != nil {
        _ = try ReportJSON.decode(UnreadableEntry.self, from: data)
      } else {
        let summary = try ReportJSON.decode(SessionSummary.self, from: data)
        #expect(
          try Self.normalised(Data(try ReportJSON.text(summary).utf8), directory: directory)
            == Self.normalised(data, directory: directory))
      }
    }
  }

  /// A Studio serving the sample counter, banking and posts sessions, and a file whose head
  /// is cut short (listed as damaged), from a directory of the test's own.
  static func start() async throws -> (StudioHarness, String) {
    let directory = NSTemporaryDirectory() + "retrace-answers-golden-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let cut = directory + "/cut.trace"
    let head = try Data(contentsOf: URL(fileURLWithPath: StudioHarness.trace("counter.trace")))
    try head.prefix(10).write(to: URL(fileURLWithPath: cut))
    let studio = try await StudioHarness.start(
      ["banking-overdraft.trace", "counter.trace", "posts-session.trace"], paths: [cut])
    return (studio, directory)
  }

  /// The answer as JSON with its keys sorted, indented, without the `version` of the answer
  /// (or of each answer in a list), the package's path written `ROOT` and the test's
  /// directory `DIR`.
  static func normalised(_ body: Data, directory: String) throws -> String {
    let text = String(decoding: body, as: UTF8.self)
      .replacingOccurrences(of: directory, with: "DIR")
      .replacingOccurrences(of: StudioHarness.packageRoot.path, with: "ROOT")
    var value = try JSONSerialization.jsonObject(
      with: Data(text.utf8), options: [.fragmentsAllowed])
    if var object = value as? [String: Any] {
      object["version"] = nil
      value = object
    } else if let array = value as? [Any] {
      value = array.map { item -> Any in
        guard var object = item as? [String: Any] else { return item }
        object["version"] = nil
        return object
      }
    }
    let data = try JSONSerialization.data(
      withJSONObject: value,
      options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes, .fragmentsAllowed])
    return String(decoding: data, as: UTF8.self) + "\n"
  }
}
