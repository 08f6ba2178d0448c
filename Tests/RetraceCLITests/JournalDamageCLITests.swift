import Foundation
import RetraceTestSupport
import Testing

/// A crashed session's actions after its last chunk are in its journal: a journal damaged in
/// the middle, or missing, is named (file, position, problem) by every command, and no
/// command that checks promises anything of the actions it could not read.
@Suite struct JournalDamageCLITests {
  /// A banking session of 200 actions killed before it closed, every action in its journal,
  /// and a copy (`flipped.trace`) whose journal has 8 bytes flipped in its middle record.
  /// Returns the offset of that record in the journal.
  static func flippedJournal(in workspace: Workspace) throws -> Int {
    try TrustTests.crashedSession(count: 200, flush: false, at: workspace.path("crash.trace"))
    try FileManager.default.copyItem(
      atPath: workspace.path("crash.trace"), toPath: workspace.path("flipped.trace"))
    return try Fixtures.copyFlippingTheMiddleRecord(
      ofJournal: workspace.path("crash.trace.journal"),
      to: workspace.path("flipped.trace.journal"))
  }

  @Test func aJournalDamagedInTheMiddleIsDamageInEveryAnswer() throws {
    let workspace = try Workspace()
    let offset = try Self.flippedJournal(in: workspace)
    let position = "flipped.trace.journal, offset \(offset), sequence "

    let info = try workspace.run("info flipped.trace")
    #expect(info.exitCode == 1, "\(info)")
    #expect(info.stdout.contains("integrity    damaged at \(position)"), "\(info)")
    let integrity = try #require(
      try workspace.run("info flipped.trace --json").json()["integrity"] as? [String: Any])
    #expect(integrity["status"] as? String == "damaged")
    #expect(integrity["file"] as? String == "flipped.trace.journal")
    #expect(integrity["offset"] as? Int == offset)

    let verify = try workspace.run("verify flipped.trace")
    #expect(verify.exitCode == 1, "\(verify)")
    #expect(verify.stdout.hasPrefix("flipped.trace: damaged at \(position)"), "\(verify)")

    let bisect = try workspace.run("bisect flipped.trace --invariant balance-matches-transactions")
    #expect(bisect.exitCode == 1, "\(bisect)")
    #expect(!bisect.stdout.contains("holds after every one"), "\(bisect)")
    #expect(bisect.stdout.contains("could not be read whole"), "\(bisect)")
    #expect(bisect.stdout.contains(position), "\(bisect)")
    let bisectJSON = try workspace.run(
      "bisect flipped.trace --invariant balance-matches-transactions --json")
    #expect(bisectJSON.exitCode == 1)
    let object = try bisectJSON.json()
    #expect(object["readWhole"] as? Bool == false)
    #expect((object["integrity"] as? [String: Any])?["file"] as? String == "flipped.trace.journal")

    let shrink = try workspace.run(
      "shrink flipped.trace --invariant balance-matches-transactions -o s.trace")
    #expect(shrink.exitCode == 1, "\(shrink)")
    #expect(!shrink.stderr.contains("holds after every action"), "\(shrink)")
    #expect(shrink.stderr.contains("could not be read whole"), "\(shrink)")

    let replay = try workspace.run("replay flipped.trace --verify")
    #expect(replay.exitCode == 1, "\(replay)")
    #expect(replay.stdout.contains("damaged at \(position)"), "\(replay)")
    for command in ["replay flipped.trace", "log flipped.trace --to 2"] {
      let result = try workspace.run(command)
      #expect(
        result.stderr.contains(
          "warning: flipped.trace: damaged at flipped.trace.journal: offset \(offset) (sequence "),
        "\(command): \(result)")
    }
    // The journal as the crash left it: no damage.
    #expect(try workspace.run("verify crash.trace").exitCode == 0)
    #expect(
      try workspace.run("bisect crash.trace --invariant balance-matches-transactions").exitCode == 0
    )
  }

  @Test func aCrashedTraceCopiedWithoutItsJournalSaysItIsMissing() throws {
    let workspace = try Workspace()
    try TrustTests.crashedSession(count: 50, flush: false, at: workspace.path("crash.trace"))
    try FileManager.default.copyItem(
      atPath: workspace.path("crash.trace"), toPath: workspace.path("x.trace"))

    let info = try workspace.run("info x.trace")
    #expect(info.exitCode == 1, "\(info)")
    #expect(info.stdout.contains("journal      x.trace.journal is missing"), "\(info)")
    #expect(info.stdout.contains("integrity    damaged at x.trace.journal"), "\(info)")
    #expect(!info.stdout.contains("0 actions recovered"), "\(info)")
    let integrity = try #require(
      try workspace.run("info x.trace --json").json()["integrity"] as? [String: Any])
    #expect(integrity["file"] as? String == "x.trace.journal")
    #expect((integrity["problem"] as? String)?.hasPrefix("missing") == true)

    let verify = try workspace.run("verify x.trace")
    #expect(verify.exitCode == 1, "\(verify)")
    #expect(verify.stdout.contains("x.trace.journal, sequence 1: missing"), "\(verify)")
    let bisect = try workspace.run("bisect x.trace --invariant balance-matches-transactions")
    #expect(bisect.exitCode == 1, "\(bisect)")
    #expect(bisect.stdout.contains("could not be read whole"), "\(bisect)")
    let replay = try workspace.run("replay x.trace --verify")
    #expect(replay.exitCode == 1, "\(replay)")
    #expect(replay.stdout.contains("x.trace.journal"), "\(replay)")
  }
}
