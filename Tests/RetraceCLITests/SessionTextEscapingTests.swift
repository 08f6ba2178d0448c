import Foundation
import Testing

/// Text from a session (an account's name, a beneficiary) printed by `log`, `state`, `diff`
/// and `bisect`: a right-to-left override, a zero-width space, a byte-order mark and a
/// terminal escape in it are shown escaped, never written to the terminal as themselves.
@Suite struct SessionTextEscapingTests {
  static let hostile = "evil\u{202E}txt.exe\u{200B}\u{FEFF}\u{1B}[2J"
  /// What each command shows of it: the escape is JSON's (`\u001b`) in `log`'s payloads.
  static let escaped = #"evil\u{202E}txt.exe\u{200B}\u{FEFF}"#

  /// A banking session: an account named with the hostile text, then a payment to a
  /// beneficiary of that name that overdraws it.
  func workspace() throws -> Workspace {
    let workspace = try Workspace()
    let json = try JSONEncoder().encode(Self.hostile)
    let text = String(decoding: json, as: UTF8.self)
    try workspace.write(
      [
        #"{"format":"retrace-jsonl","version":1,"domain":"banking","actionSchemaVersion":2,"sessionID":"s","startTime":1763771000,"producer":"p","firstSequence":0}"#,
        #"{"seq":1,"time":1763771000,"action":{"addAccount":{"date":1763772194,"iban":"NL83RABO5361038599","kind":"checking","name":\#(text)}}}"#,
        #"{"seq":2,"time":1763771001,"action":{"addTransaction":{"amount":-500000,"beneficiary":\#(text),"date":1763776820,"iban":"NL83RABO5361038599"}}}"#,
      ].joined(separator: "\n") + "\n", to: "s.jsonl")
    return workspace
  }

  @Test(arguments: [
    "log s.jsonl", "state s.jsonl", "state s.jsonl --full", "diff s.jsonl --from 0 --to 2",
    "bisect s.jsonl --invariant non-negative-balance",
  ])
  func sessionTextIsPrintedEscaped(_ command: String) throws {
    let result = try workspace().run(command)
    #expect(
      !result.stdout.unicodeScalars.contains { [0x202E, 0x200B, 0xFEFF, 0x1B].contains($0.value) },
      "\(result)")
    #expect(result.stdout.contains(Self.escaped), "\(result)")
    #expect(result.exitCode == (command.hasPrefix("bisect") ? 1 : 0), "\(result)")
  }
}
