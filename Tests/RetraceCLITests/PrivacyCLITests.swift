import Foundation
import Testing

@testable import RetraceLog

/// `keygen`, `--key`, `generate --encrypt-to` and `report`: encrypted traces and bug reports
/// as a developer meets them on the command line.
@Suite struct PrivacyCLITests {
  /// A workspace with a key pair `dev` and an encrypted banking trace `enc.trace`.
  static func encryptedWorkspace() throws -> Workspace {
    let workspace = try Workspace()
    let made = try workspace.run("keygen -o dev")
    #expect(made.exitCode == 0, "\(made)")
    let generated = try workspace.run(
      "generate banking --actions 2000 --seed 33 --encrypt-to dev.pub -o enc.trace")
    #expect(generated.exitCode == 0, "\(generated)")
    #expect(generated.stderr == "wrote 2000 encrypted banking actions to enc.trace\n")
    return workspace
  }

  @Test func keygenWritesAPrivateKeyOnlyItsOwnerReadsAndNeverOverwrites() throws {
    let workspace = try Workspace()
    let made = try workspace.run("keygen -o dev")
    #expect(made.exitCode == 0, "\(made)")
    let attributes = try FileManager.default.attributesOfItem(atPath: workspace.path("dev.key"))
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let key = try workspace.read("dev.key")
    #expect(key.hasPrefix("RETRACE-PRIVATE-KEY-1:"))
    #expect(try workspace.read("dev.pub").hasPrefix("RETRACE-PUBLIC-KEY-1:"))
    // The key is in the file, never on the terminal.
    let secret = String(key.dropFirst(22).prefix(43))
    #expect(!made.stdout.contains(secret) && !made.stderr.contains(secret))
    let again = try workspace.run("keygen -o dev")
    #expect(again.exitCode == 3)
    #expect(
      again.stderr
        == "retrace: \(workspace.path("dev.key")): already exists; a key file is never overwritten\n"
        || again.stderr.contains("dev.key: already exists"))
    #expect(try workspace.read("dev.key") == key)
  }

  @Test func anEncryptedTraceNeedsItsKeyAndSaysWhichOneInOneLine() throws {
    let workspace = try Self.encryptedWorkspace()
    let encryption = try #require(
      try workspace.run("info enc.trace --json").json()["encryption"] as? [String: Any])
    let keyID = try #require(encryption["keyID"] as? String)
    for command in [
      "replay enc.trace --verify", "log enc.trace --to 3", "state enc.trace --at 5",
      "verify enc.trace",
      "bisect enc.trace --invariant non-negative-balance",
      "export enc.trace --format jsonl -o out.jsonl",
    ] {
      let result = try workspace.run(command)
      #expect(result.exitCode == 3, "\(command): \(result)")
      #expect(
        result.stderr
          == "retrace: enc.trace: the trace is encrypted (to key \(keyID)), and no key was given to read it (--key FILE or RETRACE_KEY)\n",
        "\(command)")
      #expect(result.stdout.isEmpty, "\(command)")
    }
    // info says what the trace keeps in clear, and claims no integrity it did not check.
    let info = try workspace.run("info enc.trace --json")
    #expect(info.exitCode == 0)
    let json = try info.json()
    #expect(json["actions"] as? Int == 2000)
    #expect((json["integrity"] as? [String: Any])?["status"] as? String == "encrypted")
    #expect((json["actionCases"] as? [String: Any])?.isEmpty == true)
  }

  @Test func withTheKeyEveryCommandReadsItAsTheClearTrace() throws {
    let workspace = try Self.encryptedWorkspace()
    #expect(
      try workspace.run("generate banking --actions 2000 --seed 33 -o clear.trace").exitCode == 0)
    let verified = try workspace.run("replay enc.trace --verify --key dev.key")
    #expect(verified.exitCode == 0, "\(verified)")
    for (encrypted, clear) in [
      (
        "bisect enc.trace --invariant non-negative-balance --json --key dev.key",
        "bisect clear.trace --invariant non-negative-balance --json"
      ),
      (
        "log enc.trace --from 1060 --to 1070 --json --key dev.key",
        "log clear.trace --from 1060 --to 1070 --json"
      ),
      ("state enc.trace --at 1069 --json --key dev.key", "state clear.trace --at 1069 --json"),
    ] {
      let a = try workspace.run(encrypted)
      let b = try workspace.run(clear)
      #expect(
        a.exitCode == b.exitCode
          && a.stdout == b.stdout.replacingOccurrences(of: "clear.trace", with: "enc.trace"),
        "\(encrypted)")
    }
    // RETRACE_KEY: a key file's path, or the key itself.
    let key = try workspace.read("dev.key").trimmingCharacters(in: .whitespacesAndNewlines)
    for value in [workspace.path("dev.key"), key] {
      let result = try workspace.run(
        "replay enc.trace --verify", environment: ["RETRACE_KEY": value])
      #expect(result.exitCode == 0, "\(result)")
    }
    // A clear trace ignores a key.
    #expect(try workspace.run("replay clear.trace --verify --key dev.key").exitCode == 0)
  }

  @Test func anotherKeyOrAPublicOneIsRefusedInOneLineWithoutShowingIt() throws {
    let workspace = try Self.encryptedWorkspace()
    #expect(try workspace.run("keygen -o other").exitCode == 0)
    let wrong = try workspace.run("replay enc.trace --key other.key")
    #expect(wrong.exitCode == 3)
    #expect(wrong.stderr.hasPrefix("retrace: enc.trace: encrypted to key "))
    #expect(wrong.stderr.contains("and the key given is"))
    #expect(wrong.stderr.split(separator: "\n").count == 1)
    let secret = String(try workspace.read("other.key").dropFirst(22).prefix(43))
    #expect(!wrong.stderr.contains(secret))
    let publicKey = try workspace.run("replay enc.trace --key dev.pub")
    #expect(publicKey.exitCode == 3)
    #expect(
      publicKey.stderr == "retrace: dev.pub: a Retrace public key, where a private key is needed\n")
    let missing = try workspace.run("replay enc.trace --key nowhere.key")
    #expect(missing.exitCode == 3)
    #expect(missing.stderr == "retrace: nowhere.key: no such key file\n")
  }

  @Test func aFlippedBitInAnEncryptedTraceIsDamageNeverATrap() throws {
    let workspace = try Self.encryptedWorkspace()
    var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: workspace.path("enc.trace"))))
    bytes[bytes.count / 2] ^= 0x04
    try Data(bytes).write(to: URL(fileURLWithPath: workspace.path("flip.trace")))
    let verify = try workspace.run("verify flip.trace --key dev.key")
    #expect(verify.exitCode == 1, "\(verify)")
    #expect(verify.stdout.contains("damaged at offset"))
    let replay = try workspace.run("replay flip.trace --verify --key dev.key")
    #expect(replay.exitCode == 1 && replay.stdout.hasPrefix("DAMAGED"))
    // A flip in the header (which every chunk authenticates) leaves nothing to read.
    var header = Array(try Data(contentsOf: URL(fileURLWithPath: workspace.path("enc.trace"))))
    header[40] ^= 0x01
    try Data(header).write(to: URL(fileURLWithPath: workspace.path("head.trace")))
    let refused = try workspace.run("replay head.trace --key dev.key")
    #expect(refused.exitCode == 3, "\(refused)")
    #expect(refused.stderr.split(separator: "\n").count == 1)
  }

  @Test func aReportIsMadeListedExtractedAndReadAsReportHashN() throws {
    let workspace = try Self.encryptedWorkspace()
    let sessions = workspace.path("sessions")
    try FileManager.default.createDirectory(atPath: sessions, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: workspace.path("enc.trace"), toPath: sessions + "/20261125T110000.000Z-bbbb.trace")
    #expect(
      try workspace.run(
        "generate counter --actions 100 -o sessions/20261125T120000.000Z-cccc.trace"
      ).exitCode == 0)
    let made = try workspace.run(
      "report create sessions -o bug.rtrp --sessions=5 --note negative --encrypt-to dev.pub")
    #expect(made.exitCode == 0, "\(made)")
    #expect(made.stderr == "wrote 1 sessions (1 left out) to bug.rtrp\n")
    let list = try workspace.run("report list bug.rtrp --json")
    let json = try list.json()
    #expect(json["note"] is NSNull)
    let entries = try #require(json["entries"] as? [[String: Any]])
    #expect(entries.count == 1 && entries[0]["actions"] as? Int == 2000)
    #expect(
      (json["omitted"] as? [[String: Any]])?.first?["name"] as? String
        == "20261125T120000.000Z-cccc.trace")
    let listed = try workspace.run("report list bug.rtrp --key dev.key --json")
    #expect(try listed.json()["note"] as? String == "negative")
    // The trace inside, by REPORT#N, for every command.
    let bisect = try workspace.run(
      "bisect bug.rtrp#1 --invariant non-negative-balance --json --key dev.key")
    #expect(try bisect.json()["firstViolation"] as? Int == 1069, "\(bisect)")
    let outside = try workspace.run("info bug.rtrp#2")
    #expect(outside.exitCode == 4)
    #expect(
      outside.stderr == "retrace: bug.rtrp: the report holds 1 sessions; #2 is not one of them\n")
    // Extracted as it is, with the note, never over an existing file.
    let extracted = try workspace.run("report extract bug.rtrp -o out --key dev.key")
    #expect(extracted.exitCode == 0, "\(extracted)")
    #expect(try workspace.read("out/note.txt") == "negative\n")
    #expect(
      try Data(
        contentsOf: URL(fileURLWithPath: workspace.path("out/20261125T110000.000Z-bbbb.trace")))
        == Data(contentsOf: URL(fileURLWithPath: workspace.path("enc.trace"))))
    let again = try workspace.run("report extract bug.rtrp -o out --key dev.key")
    #expect(again.exitCode == 3 && again.stderr.contains("already exists"))
    let junk = try workspace.run("report list enc.trace")
    #expect(junk.exitCode == 3)
    #expect(junk.stderr == "retrace: enc.trace: offset 0: not a Retrace bug report\n")
  }

  @Test func aKeyGivenWhereAPathGoesIsNeverEchoed() throws {
    let workspace = try Self.encryptedWorkspace()
    let key = try workspace.read("dev.key").trimmingCharacters(in: .whitespacesAndNewlines)
    let secret = String(key.dropFirst(22))
    // A secret pasted with a newline around it still works.
    let pasted = try workspace.run(
      "replay enc.trace --verify", environment: ["RETRACE_KEY": "\n" + key + "\n"])
    #expect(pasted.exitCode == 0, "\(pasted)")
    // The bare base64, or a path that is not there: named as the variable, never echoed.
    for value in [secret, "no/such/dev.key"] {
      let result = try workspace.run("replay enc.trace", environment: ["RETRACE_KEY": value])
      #expect(result.exitCode == 3, "\(result)")
      #expect(result.stderr.hasPrefix("retrace: RETRACE_KEY: "), "\(result)")
      #expect(!result.stderr.contains(secret.prefix(20)))
    }
    // The key's text where --key takes a path.
    let inline = try CLI.run(
      ["replay", "enc.trace", "--key", key], in: workspace.directory)
    #expect(inline.exitCode == 3)
    #expect(
      inline.stderr
        == "retrace: --key: takes a key file's path, not the key itself (use RETRACE_KEY for that)\n"
    )
  }

  /// A report made by hand, as anyone with the public key could make one.
  static func forgedReport(_ entries: [BugReport.Entry], files: [[UInt8]]) throws -> Data {
    let manifest = BugReport.Manifest(
      createdAt: 0, producer: "forger", app: [:], note: nil, sealedNote: nil, entries: entries,
      omitted: [])
    return Data(try BugReport(manifest: manifest, files: files).bytes)
  }

  @Test func aHostileReportNeverTrapsAndNeverWritesOutsideItsNames() throws {
    let workspace = try Self.encryptedWorkspace()
    let trace = Array(try Data(contentsOf: URL(fileURLWithPath: workspace.path("enc.trace"))))
    func entry(_ name: String, _ bytes: Int) -> BugReport.Entry {
      BugReport.Entry(
        name: name, sessionID: "s", domain: "banking", keyID: nil, traceBytes: bytes,
        journalBytes: 0)
    }
    // Sizes no file has: refused, not an overflow.
    var manifest = BugReport.Manifest(
      createdAt: 0, producer: "forger", app: [:], note: nil, sealedNote: nil,
      entries: [entry("a.trace", Int.max)], omitted: [])
    let huge = try BugReport.frame(manifest)
    try Data(huge).write(to: URL(fileURLWithPath: workspace.path("huge.rtrp")))
    for command in ["report list huge.rtrp", "info huge.rtrp#1", "report extract huge.rtrp -o x"] {
      let result = try workspace.run(command)
      #expect(result.exitCode == 3 && !result.signaled, "\(command): \(result)")
      #expect(result.stderr.contains("an entry's size is impossible"), "\(command)")
    }
    manifest.entries = []
    // Names that are not plain trace names, or repeat: nothing is written.
    for names in [[".envrc"], ["Makefile"], ["../up.trace"], ["a.trace", "a.trace"]] {
      let report = try Self.forgedReport(
        names.map { entry($0, trace.count) }, files: names.map { _ in trace })
      try report.write(to: URL(fileURLWithPath: workspace.path("forged.rtrp")))
      let result = try workspace.run("report extract forged.rtrp -o out")
      #expect(result.exitCode == 3, "\(names): \(result)")
      #expect(result.stderr.contains("an impossible or repeated name"), "\(names)")
      #expect(!FileManager.default.fileExists(atPath: workspace.path("out")))
    }
  }
}
