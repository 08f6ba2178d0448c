import Foundation
import Testing

/// The format-1 traces in Tests/Fixtures/format-1, recorded once and kept as they are: one
/// short session of each example domain, one in an older action schema, one long enough for
/// a periodic snapshot, and one that crashed before its first chunk of actions was full.
/// Every `retrace` must read them and give the answers stored beside them (written by that
/// directory's `make-fixtures`): the traces users already hold stay readable.
@Suite struct Format1Tests {
  static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").appendingPathComponent("format-1")

  /// The stored answers: `NAME.log.jsonl`, `NAME.state-N.json`, `NAME.verify.json`, or their
  /// SHA-256 digests in `FILE.sha256`.
  static let answers: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter {
      $0.hasSuffix(".json") || $0.hasSuffix(".jsonl") || $0.hasSuffix(".sha256")
    }.sorted()
  }()

  static let domains = [
    "counter": "counter", "banking": "banking", "settings": "settings", "posts": "posts",
    "banking-schema-1": "banking", "banking-long": "banking", "crashed": "banking",
  ]

  @Test func everyTraceHasItsAnswers() throws {
    let traces = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter {
      $0.hasSuffix(".trace")
    }
    #expect(Set(traces.map { String($0.dropLast(".trace".count)) }) == Set(Self.domains.keys))
    for name in Self.domains.keys {
      #expect(Self.answers.contains { $0.hasPrefix(name + ".verify.") }, "\(name)")
      #expect(Self.answers.contains { $0.hasPrefix(name + ".log.") }, "\(name)")
      #expect(Self.answers.contains { $0.hasPrefix(name + ".state-") }, "\(name)")
    }
  }

  @Test(arguments: answers)
  func todaysRetraceGivesTheStoredAnswer(_ answer: String) throws {
    let (name, command) = try Self.command(for: answer)
    // In a copy, so that nothing a command does to a trace or its journal reaches the
    // fixture.
    let workspace = try Workspace()
    try Self.copyFixture(name, into: workspace)
    try Self.expectStoredAnswer(answer, command: command, result: try workspace.run(command))
  }

  /// Copies the fixture trace `name` (and its journal, if it has one) into `workspace`, as
  /// `prefix` + its name.
  static func copyFixture(_ name: String, into workspace: Workspace, prefix: String = "") throws {
    for file in [name + ".trace", name + ".trace.journal"]
    where FileManager.default.fileExists(atPath: directory.appendingPathComponent(file).path) {
      try FileManager.default.copyItem(
        at: directory.appendingPathComponent(file),
        to: workspace.directory.appendingPathComponent(prefix + file))
    }
  }

  /// Expects `result`, of `command`, to be the stored `answer`; `adjust` may take out of both
  /// `replay --verify` reports, the stored one and today's, what is known to differ.
  static func expectStoredAnswer(
    _ answer: String, command: String, result: CLIResult,
    adjust: (inout [String: Any], inout [String: Any]) throws -> Void = { _, _ in }
  ) throws {
    let stored = try storedText(answer)
    // `replay --verify` exits 1 for anything but "verified" (the crashed session's tail).
    let expectedExit: Int32 =
      command.hasPrefix("replay") && !stored.contains(#""status":"verified""#) ? 1 : 0
    #expect(result.exitCode == expectedExit, "\(command)\n\(result)")
    if answer.hasSuffix(".sha256") {
      #expect(
        try sha256(result.stdout) == stored.trimmingCharacters(in: .whitespacesAndNewlines),
        "\(command)")
    } else if answer.hasSuffix(".verify.json") {
      // The time a replay took is the one figure that changes from run to run. Keys added
      // since the answer was stored are allowed (scripts rely on the others, never on their
      // absence); every stored key keeps its value.
      var expected = try #require(try withoutSeconds(stored) as? [String: Any])
      var today = try #require(try withoutSeconds(result.stdout) as? [String: Any])
      try adjust(&expected, &today)
      let kept = today.filter { expected[$0.key] != nil }
      #expect(kept as NSDictionary == expected as NSDictionary, "\(command)")
    } else {
      #expect(result.stdout == stored, "\(command)")
    }
  }

  /// The trace and the command whose output `answer` holds.
  static func command(for answer: String) throws -> (String, String) {
    let base = answer.hasSuffix(".sha256") ? String(answer.dropLast(".sha256".count)) : answer
    let parts = base.split(separator: ".")
    let name = String(parts[0])
    let domain = try #require(domains[name], "no domain for \(name)")
    switch parts[1] {
    case "log": return (name, "log \(name).trace --json")
    case "verify": return (name, "replay \(name).trace --verify --as \(domain) --json")
    case let kind where kind.hasPrefix("state-"):
      return (name, "state \(name).trace --at \(kind.dropFirst("state-".count)) --json")
    default: throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: answer])
    }
  }

  static func storedText(_ name: String) throws -> String {
    try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
  }

  static func withoutSeconds(_ json: String) throws -> NSDictionary {
    let object = try #require(
      JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
    return object.filter { $0.key != "seconds" } as NSDictionary
  }

  /// The SHA-256 digest of `text`, in hex, by coreutils' `sha256sum` (Linux) or `shasum`
  /// (macOS).
  static func sha256(_ text: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    let linux = FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum")
    process.arguments = linux ? ["sha256sum"] : ["shasum", "-a", "256"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    // Written from another thread: a large input would otherwise fill the pipe while
    // nothing reads the output.
    let data = Data(text.utf8)
    Thread.detachNewThread {
      input.fileHandleForWriting.write(data)
      try? input.fileHandleForWriting.close()
    }
    let digest = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: digest, as: UTF8.self).split(separator: " ").first.map(String.init)
      ?? ""
  }
}
