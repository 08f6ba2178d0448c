import Foundation
import Testing

/// `retrace upgrade OLD --output NEW`, and `--trace-format` of the commands that write
/// traces: the new file answers every command as the old one did.
@Suite struct UpgradeCLITests {
  /// The format version in a trace's header frame (bytes 12 and 13).
  static func formatVersion(_ workspace: Workspace, _ name: String) throws -> Int {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: workspace.path(name)))
    return Int(bytes[12]) | Int(bytes[13]) << 8
  }

  /// The answers of `log`, `state` (at `at`), `replay --verify` and `info` (its jumps,
  /// snapshots, checkpoints and actions) for `name`, with its name and the time a replay
  /// took taken out.
  static func answers(
    _ workspace: Workspace, _ name: String, at: Int, key: String = ""
  ) throws -> [String] {
    var answers: [String] = []
    for command in [
      "log \(name) --json", "state \(name) --at \(at) --json",
      "replay \(name) --verify --json",
    ] {
      let result = try workspace.run(command + key)
      answers.append(
        result.stdout.replacingOccurrences(of: name, with: "FILE").replacingOccurrences(
          of: #""seconds":[-+.0-9eE]+"#, with: "", options: .regularExpression)
          + "exit \(result.exitCode)")
    }
    let info = try workspace.run("info \(name) --json" + key).json()
    for field in ["jumps", "snapshots", "checkpoints", "actions", "lastSequence", "unfinished"] {
      answers.append("\(field) \(info[field] ?? "none")")
    }
    return answers
  }

  @Test func aFormatOneTraceUpgradesAndAnswersTheSame() throws {
    let workspace = try Workspace()
    let generated = try workspace.run(
      "generate banking --actions 3000 --seed 4 --output old.trace --trace-format 1")
    #expect(generated.exitCode == 0, "\(generated)")
    #expect(try Self.formatVersion(workspace, "old.trace") == 1)
    let upgraded = try workspace.run("upgrade old.trace --output new.trace")
    #expect(upgraded.exitCode == 0, "\(upgraded)")
    #expect(upgraded.stdout.contains("in format 2 from old.trace (format 1)"), "\(upgraded)")
    #expect(try Self.formatVersion(workspace, "new.trace") == 2)
    #expect(
      try Self.answers(workspace, "new.trace", at: 1_500)
        == Self.answers(workspace, "old.trace", at: 1_500))
    #expect(try workspace.run("verify new.trace").exitCode == 0)

    // Back to format 1: the bytes the recorder wrote.
    let back = try workspace.run("upgrade new.trace --output back.trace --trace-format 1")
    #expect(back.exitCode == 0, "\(back)")
    #expect(
      FileManager.default.contents(atPath: workspace.path("back.trace"))
        == FileManager.default.contents(atPath: workspace.path("old.trace")))
  }

  @Test func aFormatTwoTraceIsCopiedAsItIs() throws {
    let workspace = try Workspace()
    #expect(
      try workspace.run("generate counter --actions 200 --output two.trace").exitCode == 0)
    #expect(try Self.formatVersion(workspace, "two.trace") == 2)
    let result = try workspace.run("upgrade two.trace --output copy.trace --json")
    #expect(result.exitCode == 0, "\(result)")
    let json = try result.json()
    #expect(json["copied"] as? Bool == true)
    #expect(json["fromFormat"] as? Int == 2 && json["toFormat"] as? Int == 2)
    #expect(
      FileManager.default.contents(atPath: workspace.path("copy.trace"))
        == FileManager.default.contents(atPath: workspace.path("two.trace")))
    let text = try workspace.run("upgrade two.trace --output copy.trace")
    #expect(text.stdout.contains("is format 2 already"), "\(text)")
  }

  /// The format-1 fixtures, upgraded, give the answers stored beside them; only the crashed
  /// session's count of actions recovered from its journal changes: they are in its last
  /// chunk now, and its new journal is empty.
  @Test(arguments: Format1Tests.answers)
  func upgradedFixturesGiveTheStoredAnswers(_ answer: String) throws {
    let (name, command) = try Format1Tests.command(for: answer)
    let workspace = try Workspace()
    try Format1Tests.copyFixture(name, into: workspace, prefix: "old-")
    // Upgraded under the fixture's own name, which the answers hold.
    let upgraded = try workspace.run("upgrade old-\(name).trace --output \(name).trace")
    #expect(upgraded.exitCode == 0, "\(upgraded)")
    #expect(try Self.formatVersion(workspace, name + ".trace") == 2)
    try Format1Tests.expectStoredAnswer(
      answer, command: command, result: try workspace.run(command)
    ) { expected, today in
      guard name == "crashed" else { return }
      var integrity = try #require(expected["integrity"] as? [String: Any])
      var todays = try #require(today["integrity"] as? [String: Any])
      #expect(integrity["recoveredActions"] as? Int == 200)
      #expect(todays["recoveredActions"] as? Int == 0)
      #expect(todays["status"] as? String == "unfinished")
      #expect(today["unfinished"] as? Bool == true)
      integrity["recoveredActions"] = nil
      todays["recoveredActions"] = nil
      expected["integrity"] = integrity
      today["integrity"] = todays
    }
  }

  /// Every closed format-1 fixture, rewritten in format 2 and back in format 1, is its own
  /// bytes again: the recorder wrote them at its default compression level, which the
  /// rewrite uses.
  @Test(arguments: Format1Tests.domains.keys.filter { $0 != "crashed" }.sorted())
  func closedFixturesComeBackByteForByte(_ name: String) throws {
    let workspace = try Workspace()
    try Format1Tests.copyFixture(name, into: workspace)
    let up = try workspace.run("upgrade \(name).trace --output two.trace")
    #expect(up.exitCode == 0, "\(up)")
    let down = try workspace.run("upgrade two.trace --output one.trace --trace-format 1")
    #expect(down.exitCode == 0, "\(down)")
    #expect(
      FileManager.default.contents(atPath: workspace.path("one.trace"))
        == FileManager.default.contents(atPath: workspace.path(name + ".trace")))
  }

  @Test func anUnfinishedTraceStaysUnfinished() throws {
    let workspace = try Workspace()
    try Format1Tests.copyFixture("crashed", into: workspace)
    let result = try workspace.run("upgrade crashed.trace --output new.trace --json")
    #expect(result.exitCode == 0, "\(result)")
    let json = try result.json()
    #expect(json["unfinished"] as? Bool == true)
    #expect(json["recoveredActions"] as? Int == 200)
    // An empty journal beside it: never a clean close it never had, and not damage.
    #expect(FileManager.default.fileExists(atPath: workspace.path("new.trace.journal")))
    let verify = try workspace.run("verify new.trace --json").json()
    #expect((verify["integrity"] as? [String: Any])?["status"] as? String == "unfinished")
    #expect(verify["unfinished"] as? Bool == true)
    let info = try workspace.run("info new.trace --json").json()
    #expect(info["unfinished"] as? Bool == true)
    #expect(info["actions"] as? Int == 200)
    #expect(
      try Self.answers(workspace, "new.trace", at: 150)
        .filter { !$0.contains("recoveredActions") }
        == Self.answers(workspace, "crashed.trace", at: 150)
        .filter { !$0.contains("recoveredActions") })
    let log = try workspace.run("log new.trace --json")
    let oldLog = try workspace.run("log crashed.trace --json")
    #expect(
      log.stdout == oldLog.stdout.replacingOccurrences(of: "crashed.trace", with: "new.trace"))
  }

  @Test func aDamagedTraceIsRefusedAndNothingIsWritten() throws {
    let workspace = try Workspace()
    #expect(
      try workspace.run(
        "generate counter --actions 500 --output old.trace --trace-format 1"
      ).exitCode == 0)
    var bytes = try #require(FileManager.default.contents(atPath: workspace.path("old.trace")))
    bytes[bytes.count / 2] ^= 0xFF
    try bytes.write(to: URL(fileURLWithPath: workspace.path("old.trace")))
    let result = try workspace.run("upgrade old.trace --output new.trace")
    #expect(result.exitCode == 3, "\(result)")
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(result)")
    #expect(result.stderr.contains("old.trace: offset "), "\(result)")
    #expect(!FileManager.default.fileExists(atPath: workspace.path("new.trace")))
    // Nor anything else: no temporary directory is left behind.
    let left = try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path)
      .filter { !$0.hasPrefix(".stdin") }
    #expect(left == ["old.trace"], "\(left)")
    #expect(FileManager.default.contents(atPath: workspace.path("old.trace")) == bytes)
  }

  @Test func theTraceItselfIsNeverTheOutput() throws {
    let workspace = try Workspace()
    #expect(
      try workspace.run(
        "generate counter --actions 100 --output old.trace --trace-format 1"
      ).exitCode == 0)
    let before = FileManager.default.contents(atPath: workspace.path("old.trace"))
    for output in ["old.trace", "./old.trace"] {
      let result = try workspace.run("upgrade old.trace --output \(output)")
      #expect(result.exitCode != 0, "\(result)")
      #expect(result.stderr.contains("is the trace being upgraded"), "\(result)")
    }
    #expect(FileManager.default.contents(atPath: workspace.path("old.trace")) == before)
  }

  @Test func anEncryptedTraceNeedsItsKeyAndKeepsItsRecipient() throws {
    let workspace = try Workspace()
    #expect(try workspace.run("keygen --output dev").exitCode == 0)
    #expect(
      try workspace.run(
        "generate banking --actions 1000 --output old.trace --encrypt-to dev.pub --trace-format 1"
      ).exitCode == 0)
    let refused = try workspace.run("upgrade old.trace --output new.trace")
    #expect(refused.exitCode != 0, "\(refused)")
    #expect(refused.stderr.contains("encrypted"), "\(refused)")
    #expect(!FileManager.default.fileExists(atPath: workspace.path("new.trace")))
    let result = try workspace.run("upgrade old.trace --output new.trace --key dev.key --json")
    #expect(result.exitCode == 0, "\(result)")
    #expect(try result.json()["encrypted"] as? Bool == true)
    let oldInfo = try workspace.run("info old.trace --json").json()
    let newInfo = try workspace.run("info new.trace --json").json()
    let oldKey = try #require(oldInfo["encryption"] as? [String: Any])
    let newKey = try #require(newInfo["encryption"] as? [String: Any])
    #expect(oldKey["keyID"] as? String == newKey["keyID"] as? String)
    #expect(
      try Self.answers(workspace, "new.trace", at: 600, key: " --key dev.key")
        == Self.answers(workspace, "old.trace", at: 600, key: " --key dev.key"))
  }

  @Test func aRedactedTraceIsCopiedFaithfully() throws {
    let workspace = try Workspace()
    #expect(
      try workspace.run(
        "generate banking --actions 2000 --redact --output old.trace --trace-format 1"
      ).exitCode == 0)
    #expect(try workspace.run("upgrade old.trace --output new.trace").exitCode == 0)
    #expect(try workspace.run("replay new.trace --verify").exitCode == 0)
    #expect(
      try Self.answers(workspace, "new.trace", at: 1_000)
        == Self.answers(workspace, "old.trace", at: 1_000))
  }

  @Test @MainActor func aTraceWithJumpsKeepsThem() throws {
    let workspace = try Workspace()
    _ = try JumpCLITests.session(at: workspace.path("two.trace"))
    // Format 2 to 1 and back to 2: the jumps listed the same in each.
    #expect(
      try workspace.run("upgrade two.trace --output one.trace --trace-format 1").exitCode == 0)
    #expect(try workspace.run("upgrade one.trace --output again.trace").exitCode == 0)
    let answers = try Self.answers(workspace, "two.trace", at: 11)
    #expect(answers.contains("jumps 1"))
    #expect(try Self.answers(workspace, "one.trace", at: 11) == answers)
    #expect(try Self.answers(workspace, "again.trace", at: 11) == answers)
    #expect(
      FileManager.default.contents(atPath: workspace.path("again.trace"))
        == FileManager.default.contents(atPath: workspace.path("two.trace")))
  }

  @Test func commandsThatWriteTracesTakeTheFormat() throws {
    let workspace = try Workspace()
    #expect(try workspace.run("generate counter --actions 300 --output two.trace").exitCode == 0)
    #expect(try Self.formatVersion(workspace, "two.trace") == 2)
    #expect(try workspace.run("export two.trace --format jsonl --output two.jsonl").exitCode == 0)
    #expect(
      try workspace.run("import two.jsonl --output imported.trace --trace-format 1").exitCode
        == 0)
    #expect(try Self.formatVersion(workspace, "imported.trace") == 1)
    // The sample counter session dips below zero: there is something to shrink.
    try FileManager.default.copyItem(
      at: GoldenOutputTests.traces.appendingPathComponent("counter.trace"),
      to: workspace.directory.appendingPathComponent("sample.trace"))
    let shrink = try workspace.run(
      "shrink sample.trace --invariant non-negative --output shrunk.trace --trace-format 1")
    #expect(shrink.exitCode == 0, "\(shrink)")
    #expect(try Self.formatVersion(workspace, "shrunk.trace") == 1)
    let bad = try workspace.run("generate counter --actions 3 --output x.trace --trace-format 3")
    #expect(bad.exitCode == 2, "\(bad)")
    #expect(bad.stderr.contains("--trace-format is 1 or 2"), "\(bad)")
  }
}
