import Foundation
import Testing

/// `retrace generate --redact`: sample traces with the domain's redaction policy applied.
@Suite struct RedactionCLITests {
  @Test func aRedactedBankingTraceVerifiesAndBisectsToTheSameAction() throws {
    let workspace = try Workspace()
    #expect(
      try workspace.run("generate banking --actions 2000 --seed 33 -o plain.trace").exitCode == 0)
    let made = try workspace.run("generate banking --actions 2000 --seed 33 --redact -o red.trace")
    #expect(made.exitCode == 0, "\(made)")
    #expect(made.stderr == "wrote 2000 redacted banking actions to red.trace\n")
    let verified = try workspace.run("replay red.trace --verify")
    #expect(verified.exitCode == 0, "\(verified)")
    let plain = try workspace.run("bisect plain.trace --invariant non-negative-balance --json")
    let redacted = try workspace.run("bisect red.trace --invariant non-negative-balance --json")
    #expect(try plain.json()["firstViolation"] as? Int == 1069)
    #expect(try redacted.json()["firstViolation"] as? Int == 1069)
    // The same session, the same pseudonyms: the generated trace is the same every time.
    #expect(
      try workspace.run("generate banking --actions 2000 --seed 33 --redact -o again.trace")
        .exitCode == 0)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: workspace.path("red.trace")))
        == Data(contentsOf: URL(fileURLWithPath: workspace.path("again.trace"))))
    let log = try workspace.run("log red.trace --to 3").stdout
    #expect(!log.contains("Daily Expenses") && log.contains("\"iban\":\"NL"))
  }

  @Test func aRedactedRegistrationTraceHidesWhatWasTypedAndStillFindsThePlantedBug() throws {
    let workspace = try Workspace()
    let made = try workspace.run(
      "generate registration --actions 800 --seed 13 --redact -o reg.trace")
    #expect(made.exitCode == 0, "\(made)")
    #expect(try workspace.run("replay reg.trace --verify").exitCode == 0)
    let bisect = try workspace.run(
      "bisect reg.trace --invariant registered-only-when-valid --json")
    #expect(try bisect.json()["firstViolation"] as? Int == 385)
    // What the user typed, and the usernames in the service's answers, are pseudonyms.
    #expect(
      try workspace.run("generate registration --actions 800 --seed 13 -o plain.trace").exitCode
        == 0)
    let plain = try workspace.run("log plain.trace --json").stdout
    let redacted = try workspace.run("log reg.trace --json").stdout
    #expect(plain.contains("is taken") && !redacted.contains("is taken"))
    var checked = 0
    for line in plain.split(separator: "\n") where line.contains("\"edit\"") {
      let value = try #require(line.components(separatedBy: "\"value\":\"").last)
        .prefix { $0 != "\"" }
      guard value.count >= 5 else { continue }
      #expect(!redacted.contains("\"\(value)\""), "\(value)")
      checked += 1
    }
    #expect(checked > 50)
  }

  @Test func aDomainWithoutAPolicyOrAJSONLinesFileIsRefused() throws {
    let workspace = try Workspace()
    let counter = try workspace.run("generate counter --actions 10 --redact -o c.trace")
    #expect(counter.exitCode == 4)
    #expect(counter.stderr == "retrace: domain counter declares no redaction policy\n")
    #expect(!FileManager.default.fileExists(atPath: workspace.path("c.trace")))
    let jsonl = try workspace.run("generate banking --actions 10 --redact -o b.jsonl")
    #expect(jsonl.exitCode == 2)
    #expect(jsonl.stderr.split(separator: "\n").count == 1)
  }
}
