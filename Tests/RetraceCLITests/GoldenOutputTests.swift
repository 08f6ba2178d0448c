import Foundation
import Testing

/// Every report command's text and `--json` output on small traces, compared byte for byte
/// with the golden files in Tests/Fixtures/golden, as swift-argument-parser's snapshot tests
/// compare theirs. The workspace's path, times and durations are normalised first, so that
/// the files hold on any machine.
///
/// A deliberate change of an output is recorded again with
/// `RETRACE_RECORD_GOLDEN=1 swift test --filter GoldenOutputTests`, and the new files are
/// reviewed as part of the change.
@Suite struct GoldenOutputTests {
  static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").appendingPathComponent("golden")

  static let traces = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("traces")

  /// Whether this run records the golden files rather than compare with them.
  static let recording = ProcessInfo.processInfo.environment["RETRACE_RECORD_GOLDEN"] == "1"

  /// One command: its golden file's name (without extension), its arguments and its exit
  /// code. Each runs as it is and with `--json`.
  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var command: String
    var exitCode: Int32

    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(name: "domains", command: "domains", exitCode: 0),
    Case(name: "info", command: "info counter.trace", exitCode: 0),
    Case(name: "verify", command: "verify counter.trace", exitCode: 0),
    Case(name: "replay", command: "replay counter.trace", exitCode: 0),
    Case(name: "replay-verify", command: "replay counter.trace --verify", exitCode: 0),
    Case(
      name: "replay-many", command: "replay counter.trace other.trace missing.trace --verify",
      exitCode: 3),
    Case(name: "merge-results", command: "merge-results many.json", exitCode: 3),
    Case(name: "bisect", command: "bisect counter.trace --invariant non-negative", exitCode: 1),
    Case(name: "diff-points", command: "diff counter.trace --from 185 --to 188", exitCode: 0),
    Case(name: "diff-traces", command: "diff counter.trace other.trace", exitCode: 1),
    Case(name: "report-list", command: "report list bug.rtrp", exitCode: 0),
    Case(name: "upgrade", command: "upgrade other.trace --output upgraded.trace", exitCode: 0),
  ]

  @Test(arguments: cases, [false, true])
  func outputMatchesItsGoldenFile(_ testCase: Case, json: Bool) throws {
    let workspace = try Self.workspace()
    let result = try workspace.run(testCase.command + (json ? " --json" : ""))
    #expect(result.exitCode == testCase.exitCode, "\(result)")
    let output = Self.normalised(result.stdout, in: workspace)
    let golden = Self.directory.appendingPathComponent(testCase.name + (json ? ".json" : ".txt"))
    if Self.recording {
      try FileManager.default.createDirectory(
        at: Self.directory, withIntermediateDirectories: true)
      try Data(output.utf8).write(to: golden)
      return
    }
    let stored = try #require(
      try? String(contentsOf: golden, encoding: .utf8),
      "no golden file \(golden.lastPathComponent): record it with RETRACE_RECORD_GOLDEN=1")
    #expect(output == stored, "\(testCase.command)\(json ? " --json" : "")")
  }

  /// A JSON output carries its report's version.
  @Test(arguments: cases)
  func everyJSONOutputCarriesItsVersion(_ testCase: Case) throws {
    let workspace = try Self.workspace()
    let json = try workspace.run(testCase.command + " --json").json()
    #expect(json["version"] as? Int == 1, "\(json)")
  }

  /// A workspace with the traces the commands read: the sample counter session (it dips
  /// below zero once), another counter session, the results of replaying both for
  /// `merge-results`, and a bug report holding the first.
  static func workspace() throws -> Workspace {
    let workspace = try Workspace()
    try FileManager.default.copyItem(
      at: traces.appendingPathComponent("counter.trace"),
      to: workspace.directory.appendingPathComponent("counter.trace"))
    try FileManager.default.copyItem(
      at: Format1Tests.directory.appendingPathComponent("counter.trace"),
      to: workspace.directory.appendingPathComponent("other.trace"))
    let many = try workspace.run("replay counter.trace other.trace missing.trace --verify --json")
    try workspace.write(many.stdout, to: "many.json")
    try FileManager.default.createDirectory(
      at: workspace.directory.appendingPathComponent("sessions"),
      withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: traces.appendingPathComponent("counter.trace"),
      to: workspace.directory.appendingPathComponent(
        "sessions/20251122T002320.000Z-counter.trace"))
    let created = try workspace.run("report create sessions --output bug.rtrp --note checked")
    #expect(created.exitCode == 0, "\(created)")
    return workspace
  }

  /// `output` with what changes from machine to machine and run to run replaced: the
  /// workspace's path, the time a replay took, and when a report was made.
  static func normalised(_ output: String, in workspace: Workspace) -> String {
    var text = output.replacingOccurrences(of: workspace.directory.path, with: "$WORKSPACE")
    let replacements = [
      (#""seconds":[-+.0-9eE]+"#, #""seconds":0"#),
      (#""createdAt":[-+.0-9eE]+"#, #""createdAt":0"#),
      (#"in [0-9.]+ ms \([0-9]+ actions/s\)"#, "in TIME"),
      // A report's size follows from the length of its time.
      (#"made [0-9T:.Z-]+, ([0-9]+ sessions?), [0-9]+ bytes"#, "made TIME, $1, SIZE bytes"),
    ]
    for (pattern, replacement) in replacements {
      text = text.replacingOccurrences(
        of: pattern, with: replacement, options: .regularExpression)
    }
    return text
  }
}
