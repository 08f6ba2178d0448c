import Foundation
import Retrace
import RetraceExamples
import RetraceLog
import Testing

/// What a trace's header says about the app, its redaction and its encryption is shown by
/// `info` and kept by `export` and `import`; and `info`'s sizes count what a crashed
/// session's journal holds.
@Suite struct HeaderFactsCLITests {
  /// Records 30 counter actions through a store, with app facts in the header.
  @MainActor
  static func appTrace(at path: String) throws {
    let recorder = try TraceRecorder(
      path: path, domain: counterDomain, app: ["name": "Tally", "version": "1.2"])
    let store = Store(initialState: counterDomain.initialState, reducer: CounterReducer())
    store.attach(recorder)
    for _ in 0..<30 { store.send(.increment) }
    try recorder.close()
  }

  @Test @MainActor func infoShowsTheAppRedactionAndEncryption() throws {
    let workspace = try Workspace()
    try Self.appTrace(at: workspace.path("app.trace"))
    let text = try workspace.run("info app.trace")
    #expect(text.stdout.contains("name: Tally, version: 1.2"), "\(text)")
    #expect(text.stdout.contains("redaction    none"), "\(text)")
    #expect(text.stdout.contains("encrypted    no"), "\(text)")
    let json = try workspace.run("info app.trace --json").json()
    #expect(json["app"] as? [String: String] == ["name": "Tally", "version": "1.2"])
    #expect(json["redaction"] is NSNull)
    #expect(json["encryption"] is NSNull)

    try workspace.run("generate banking --actions 50 --redact -o redacted.trace")
    let redacted = try workspace.run("info redacted.trace --json").json()
    #expect(redacted["redaction"] as? String == "keyed pseudonyms")
    #expect(
      try workspace.run("info redacted.trace").stdout.contains("redaction    keyed pseudonyms"))
  }

  @Test func infoCountsTheJournalOfACrashedSession() throws {
    let workspace = try Workspace()
    try TrustTests.crashedSession(count: 200, flush: false, at: workspace.path("crash.trace"))
    let json = try workspace.run("info crash.trace --json").json()
    let journalBytes = try #require(json["journalBytes"] as? Int, "\(json)")
    #expect(journalBytes > 0)
    let bytes = try #require(json["bytes"] as? Int)
    let integrity = try #require(json["integrity"] as? [String: Any])
    let recovered = try #require(integrity["recoveredActions"] as? Int)
    let inFile = (json["actions"] as? Int ?? 0) - recovered
    // Bytes per action only over the actions the file itself holds.
    if inFile == 0 {
      #expect(json["bytesPerAction"] is NSNull, "\(json)")
    } else {
      let perAction = try #require(json["bytesPerAction"] as? Double)
      #expect(abs(perAction - Double(bytes) / Double(inFile)) < 0.01, "\(json)")
    }
    let text = try workspace.run("info crash.trace")
    #expect(text.stdout.contains("journal      \(journalBytes) bytes"), "\(text)")
    // A closed trace has no journal.
    try workspace.run("generate counter --actions 10 -o c.trace")
    #expect(try workspace.run("info c.trace --json").json()["journalBytes"] is NSNull)
  }

  @Test @MainActor func exportKeepsTheHeaderFactsAndImportReadsThemBack() throws {
    let workspace = try Workspace()
    try Self.appTrace(at: workspace.path("app.trace"))
    let export = try workspace.run("export app.trace --format jsonl -o app.jsonl")
    #expect(export.exitCode == 0, "\(export)")
    let header = try workspace.read("app.jsonl").split(separator: "\n")[0]
    #expect(header.contains(#""app":{"name":"Tally","version":"1.2"}"#), "\(header)")
    #expect(
      try workspace.run("info app.jsonl --json").json()["app"] as? [String: String]
        == ["name": "Tally", "version": "1.2"])
    #expect(try workspace.run("import app.jsonl -o imported.trace").exitCode == 0)
    let imported = try workspace.run("info imported.trace --json").json()
    #expect(imported["app"] as? [String: String] == ["name": "Tally", "version": "1.2"])

    // Redaction is an app fact; an encrypted trace's key is kept as where it came from.
    try workspace.run("generate banking --actions 50 --redact -o redacted.trace")
    let redacted = try workspace.run("export redacted.trace --format jsonl")
    #expect(redacted.stdout.split(separator: "\n")[0].contains(#""redaction":"keyed pseudonyms""#))
    #expect(try workspace.run("keygen -o dev").exitCode == 0)
    try workspace.run("generate counter --actions 20 --encrypt-to dev.pub -o enc.trace")
    let encrypted = try workspace.run("export enc.trace --format jsonl --key dev.key")
    #expect(encrypted.exitCode == 0, "\(encrypted)")
    let keyID = try #require(
      (try workspace.run("info enc.trace --json").json()["encryption"] as? [String: Any])?["keyID"]
        as? String)
    #expect(
      encrypted.stdout.split(separator: "\n")[0].contains(#""encryption":{"keyID":"\#(keyID)""#),
      "\(encrypted)")
  }
}
