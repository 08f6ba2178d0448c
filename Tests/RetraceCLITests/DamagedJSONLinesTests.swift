import Foundation
import Testing

/// JSON Lines files damaged on purpose: a line nested too deep or cut short, a header too
/// large. Each is named with its line and what is wrong there, and is never a success.
@Suite struct DamagedJSONLinesTests {
  static let header =
    #"{"format":"retrace-jsonl","version":1,"domain":"counter","actionSchemaVersion":1,"sessionID":"s","startTime":0,"producer":"p","firstSequence":0}"#
  static let intact = (1...3).map { #"{"seq":\#($0),"time":0,"action":{"increment":{}}}"# }

  /// A line of 100,000 nested arrays, and a last line cut short: `info` describes the three
  /// intact actions, names line 5 and why, and exits 1 (`verify` too); with `--json` also.
  @Test(arguments: [
    (
      "nested",
      "{\"seq\":4,\"time\":0,\"action\":" + String(repeating: "[", count: 100_000)
        + String(repeating: "]", count: 100_000) + "}\n",
      "damaged at line 5, sequence 4: not valid JSON (too many nested arrays or dictionaries"
    ),
    (
      "truncated", #"{"seq":4,"ti"#,
      "truncated at line 5, sequence 4: not valid JSON (unexpected end of file"
    ),
  ])
  func aDamagedLineIsANegativeAnswerNamingTheLine(name: String, line: String, problem: String)
    throws
  {
    let workspace = try Workspace()
    try workspace.write(
      ([Self.header] + Self.intact).joined(separator: "\n") + "\n" + line, to: "\(name).jsonl")
    let info = try workspace.run("info \(name).jsonl")
    #expect(info.exitCode == 1, "\(info)")
    #expect(info.stdout.contains(problem), "\(info)")
    let json = try workspace.run("info \(name).jsonl --json")
    #expect(json.exitCode == 1, "\(json)")
    let integrity = try #require(try json.json()["integrity"] as? [String: Any])
    #expect(integrity["line"] as? Int == 5)
    #expect(try workspace.run("verify \(name).jsonl").exitCode == 1)
    // Every other command stops at the line, with the same words.
    let log = try workspace.run("log \(name).jsonl")
    #expect(log.exitCode == 3, "\(log)")
    #expect(log.stderr.contains("\(name).jsonl: line 5: not valid JSON ("), "\(log)")
  }

  /// A header whose session ID is 50 MB is refused on line 1, by every command, for what it
  /// is: larger than a trace's header may be. `import` used to blame the trace it writes.
  /// A file that starts with a UTF-8 byte order mark, as some editors save it: `import`
  /// read it, every other command said "not a trace" (exit 3). Every command reads it now.
  @Test func aByteOrderMarkDoesNotHideJSONLines() throws {
    let workspace = try Workspace()
    let text = ([Self.header] + Self.intact).joined(separator: "\n") + "\n"
    try Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)).write(
      to: URL(fileURLWithPath: workspace.path("bom.jsonl")))
    let info = try workspace.run("info bom.jsonl --json")
    #expect(info.exitCode == 0, "\(info)")
    #expect(try info.json()["actions"] as? Int == 3)
    let state = try workspace.run("state bom.jsonl --json")
    #expect(state.exitCode == 0, "\(state)")
    #expect(try workspace.run("import bom.jsonl -o b.trace").exitCode == 0)
  }

  @Test func aHeaderTooLargeIsNamedOnItsLine() throws {
    let workspace = try Workspace()
    let header = Self.header.replacingOccurrences(
      of: #""sessionID":"s""#,
      with: #""sessionID":""# + String(repeating: "s", count: 50_000_000) + "\"")
    try workspace.write(
      ([header] + Self.intact).joined(separator: "\n") + "\n", to: "big.jsonl")
    for command in ["info big.jsonl", "log big.jsonl", "import big.jsonl -o big.trace"] {
      let result = try workspace.run(command)
      #expect(result.exitCode == 3, "\(command): \(result)")
      #expect(
        result.stderr.hasPrefix(
          "retrace: big.jsonl: line 1: the header takes 50000"),
        "\(command): \(result.stderr.prefix(300))")
      #expect(result.stderr.contains("more than the 1048576 a reader accepts"))
    }
    #expect(!FileManager.default.fileExists(atPath: workspace.path("big.trace")))
  }

  /// A damaged binary trace is a negative answer of `info` too.
  @Test func aDamagedTraceIsANegativeAnswerOfInfo() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 2000 -o c.trace")
    var bytes = try Data(contentsOf: URL(fileURLWithPath: workspace.path("c.trace")))
    for index in (bytes.count / 2)..<(bytes.count / 2 + 32) { bytes[index] ^= 0x55 }
    try bytes.write(to: URL(fileURLWithPath: workspace.path("c.trace")))
    let info = try workspace.run("info c.trace")
    #expect(info.exitCode == 1, "\(info)")
    #expect(info.stdout.contains("damaged at offset"), "\(info)")
  }
}
