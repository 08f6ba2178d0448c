import Foundation
import Retrace
import RetraceExamples
import RetraceLog
import Testing

/// A session that never closed (an app that crashed or exited without `close()`) is never
/// described as a finished one: every answer about it says that it is unfinished and how
/// many of its actions came from the journal, in text and in `--json`.
@Suite struct UnfinishedSessionCLITests {
  /// Checks the keys every answer about a session adds.
  private func expectUnfinished(
    _ json: [String: Any], recovered: Int, _ command: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(
      json["unfinished"] as? Bool == true, "\(command): \(json)", sourceLocation: sourceLocation)
    #expect(
      json["recoveredActions"] as? Int == recovered, "\(command): \(json)",
      sourceLocation: sourceLocation)
  }

  @Test func everyAnswerAboutACrashedSessionSaysItIsUnfinished() throws {
    let workspace = try Workspace()
    // Flushed, then killed: every action is covered by a hash, but the session never closed.
    try TrustTests.crashedSession(count: 200, flush: true, at: workspace.path("crash.trace"))
    let info = try workspace.run("info crash.trace --json").json()
    let integrity = try #require(info["integrity"] as? [String: Any])
    let recovered = try #require(integrity["recoveredActions"] as? Int)
    expectUnfinished(info, recovered: recovered, "info --json")
    #expect(try workspace.run("info crash.trace").stdout.contains("unfinished session"))

    // Verified, since every action is covered, but never as if the session had closed.
    let verified = try workspace.run("replay crash.trace --verify")
    #expect(verified.exitCode == 0, "\(verified)")
    #expect(verified.stdout.hasPrefix("verified (unfinished session: "), "\(verified)")
    let verifiedJSON = try workspace.run("replay crash.trace --verify --json").json()
    #expect(verifiedJSON["status"] as? String == "verified")
    expectUnfinished(verifiedJSON, recovered: recovered, "replay --verify --json")
    let many = try workspace.run("replay crash.trace crash.trace --verify")
    #expect(many.stdout.contains("unfinished session"), "\(many)")

    let replayed = try workspace.run("replay crash.trace")
    #expect(replayed.stdout.contains("unfinished session"), "\(replayed)")
    expectUnfinished(
      try workspace.run("replay crash.trace --json").json(), recovered: recovered, "replay --json")

    let verify = try workspace.run("verify crash.trace")
    #expect(verify.exitCode == 0, "\(verify)")
    #expect(verify.stdout.contains("unfinished"), "\(verify)")
    expectUnfinished(
      try workspace.run("verify crash.trace --json").json(), recovered: recovered, "verify --json")

    let state = try workspace.run("state crash.trace --at 3")
    #expect(state.stdout.contains("unfinished session"), "\(state)")
    #expect(try workspace.run("state crash.trace --json").stderr.contains("unfinished session"))

    let bisect = try workspace.run("bisect crash.trace --invariant balance-matches-transactions")
    #expect(bisect.stdout.contains("unfinished session"), "\(bisect)")
    expectUnfinished(
      try workspace.run("bisect crash.trace --invariant balance-matches-transactions --json")
        .json(),
      recovered: recovered, "bisect --json")

    let diff = try workspace.run("diff crash.trace --from 1 --to 2")
    #expect(diff.stdout.contains("unfinished session"), "\(diff)")
    expectUnfinished(
      try workspace.run("diff crash.trace --from 1 --to 2 --json").json(), recovered: recovered,
      "diff --json")
    let two = try workspace.run("diff crash.trace crash.trace")
    #expect(two.stdout.contains("unfinished session"), "\(two)")
    #expect(
      try workspace.run("diff crash.trace crash.trace --json").json()["unfinished"] as? Bool == true
    )

    let debug = try workspace.run("debug crash.trace", input: "quit\n")
    #expect(
      debug.stdout.hasPrefix("crash.trace: 200 banking actions (unfinished session: "), "\(debug)")

    for command in ["log crash.trace --to 2", "export crash.trace --format jsonl"] {
      #expect(try workspace.run(command).stderr.contains("unfinished session"), "\(command)")
    }
  }

  @Test func anUnfinishedSessionExportedAsJSONLinesStaysUnfinished() throws {
    let workspace = try Workspace()
    try TrustTests.crashedSession(count: 50, flush: false, at: workspace.path("crash.trace"))
    let recovered = try #require(
      try workspace.run("info crash.trace --json").json()["recoveredActions"] as? Int)
    #expect(try workspace.run("export crash.trace --format jsonl -o crash.jsonl").exitCode == 0)
    let header = try workspace.read("crash.jsonl").split(separator: "\n")[0]
    #expect(
      header.hasSuffix(#","unfinished":true,"recoveredActions":\#(recovered)}"#), "\(header)")
    for command in [
      "info crash.jsonl --json", "verify crash.jsonl --json", "replay crash.jsonl --verify --json",
      "bisect crash.jsonl --invariant non-negative-balance --json",
    ] {
      expectUnfinished(try workspace.run(command).json(), recovered: recovered, command)
    }
    for command in ["info crash.jsonl", "verify crash.jsonl", "replay crash.jsonl --verify"] {
      let result = try workspace.run(command)
      #expect(result.stdout.contains("unfinished session"), "\(command): \(result)")
    }
    // The trace written from it is a closed recording: `import` says what it came from.
    let imported = try workspace.run("import crash.jsonl -o imported.trace")
    #expect(imported.stderr.contains("of an unfinished session"), "\(imported)")
    // A closed session's header stays as it was.
    try workspace.run("generate counter --actions 5 -o c.trace")
    let closed = try workspace.run("export c.trace --format jsonl").stdout
    #expect(!closed.contains("unfinished"))
  }

  @Test func aClosedSessionIsNotUnfinished() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 40 -o c.trace")
    for command in [
      "info c.trace --json", "verify c.trace --json", "replay c.trace --json",
      "replay c.trace --verify --json", "bisect c.trace --invariant non-negative --json",
      "diff c.trace --from 1 --to 2 --json", "diff c.trace c.trace --json",
    ] {
      let json = try workspace.run(command).json()
      #expect(json["unfinished"] as? Bool == false, "\(command): \(json)")
    }
    let verified = try workspace.run("replay c.trace --verify")
    #expect(verified.stdout.hasPrefix("verified c.trace: 40 actions against "), "\(verified)")
    #expect(!verified.stdout.contains("unfinished"))
  }
}
