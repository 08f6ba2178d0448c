import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

/// Every command through the real executable, on traces the tests generate.
@Suite struct CLICommandTests {
  @Test func domainsListsTheExamplesWithCasesAndInvariants() throws {
    let workspace = try Workspace()
    let text = try workspace.run("domains")
    #expect(text.exitCode == 0)
    #expect(text.stdout.contains("banking"))
    #expect(text.stdout.contains("non-negative-balance"))
    #expect(text.stdout.contains("addTransaction"))

    let json = try workspace.run("domains --json").json()
    let domains = try #require(json["domains"] as? [[String: Any]])
    #expect(
      domains.map { $0["name"] as? String } == [
        "counter", "banking", "settings", "posts", "registration", "dishes", "movies",
        "stocks", "package", "notes", "banking-with-fees",
      ])
    let counter = domains[0]
    #expect(counter["actionCases"] as? [String] == ["increment", "decrement", "reset"])
    #expect(
      (counter["invariants"] as? [[String: Any]])?.first?["name"] as? String == "non-negative")
  }

  @Test func generateIsReproducibleAndInfoDescribesTheTrace() throws {
    let workspace = try Workspace()
    #expect(
      try workspace.run("generate banking --actions 1500 --seed 4 --output a.trace").exitCode == 0)
    #expect(try workspace.run("generate banking --actions 1500 --seed 4 -o b.trace").exitCode == 0)
    // The same seed gives the same trace, byte for byte.
    #expect(
      try Data(contentsOf: workspace.directory.appendingPathComponent("a.trace"))
        == Data(contentsOf: workspace.directory.appendingPathComponent("b.trace")))

    let info = try workspace.run("info a.trace --json")
    #expect(info.exitCode == 0)
    let json = try info.json()
    #expect(json["domain"] as? String == "banking")
    #expect(json["actions"] as? Int == 1_500)
    let integrity = try #require(json["integrity"] as? [String: Any])
    #expect(integrity["status"] as? String == "clean")
    let cases = try #require(json["actionCases"] as? [String: Int])
    #expect(cases.values.reduce(0, +) == 1_500)
    #expect(cases["addAccount"] != nil)
    #expect(json["sessionID"] as? String == "banking-seed-4")
    #expect((json["bytes"] as? Int ?? 0) > 0)

    let human = try workspace.run("info a.trace")
    #expect(human.stdout.contains("actions      1500 (sequence 1...1500)"))
    #expect(human.stdout.contains("integrity    clean"))
  }

  @Test func verifyReportsCleanTruncatedAndDamagedJSONLines() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 100 -o c.jsonl")
    let clean = try workspace.run("verify c.jsonl")
    #expect(clean.exitCode == 0)
    #expect(clean.stdout.contains("clean"))

    let text = try workspace.read("c.jsonl")
    try workspace.write(String(text.dropLast(20)), to: "truncated.jsonl")
    let truncated = try workspace.run("verify truncated.jsonl --json")
    #expect(truncated.exitCode == 1)
    let integrity = try #require(try truncated.json()["integrity"] as? [String: Any])
    #expect(integrity["status"] as? String == "truncated")
    #expect(integrity["intactActions"] as? Int == 99)
    #expect(integrity["line"] as? Int == 101)

    var lines = text.split(separator: "\n").map(String.init)
    lines[50] = "{\"seq\":50,\"time\":0,\"action\":{\"incr"
    try workspace.write(lines.joined(separator: "\n") + "\n", to: "damaged.jsonl")
    let damaged = try workspace.run("verify damaged.jsonl")
    #expect(damaged.exitCode == 1)
    #expect(damaged.stdout.contains("damaged at line 51"))
    let info = try workspace.run("info damaged.jsonl --json").json()
    #expect((info["integrity"] as? [String: Any])?["status"] as? String == "damaged")
    #expect(info["actions"] as? Int == 49)
  }

  @Test func logPrintsARangeOfOneCaseAsTextOrJSONLines() throws {
    let workspace = try Workspace()
    try workspace.run("generate banking --actions 300 -o b.trace")
    let text = try workspace.run("log b.trace --from 10 --to 19")
    #expect(text.exitCode == 0)
    let lines = text.stdout.split(separator: "\n")
    #expect(lines.count == 10)
    #expect(lines[0].hasPrefix(" 10  2025-"))

    let json = try workspace.run("log b.trace --type addAccount --json")
    let records = try json.stdout.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(records.count >= 3)
    for record in records {
      #expect(record["seq"] is Int)
      #expect(record["time"] is Double || record["time"] is Int)
      #expect((record["action"] as? [String: Any])?.keys.first == "addAccount")
    }
    #expect(records.first?["seq"] as? Int == 1)
  }

  @Test func stateAtNAsTextAndJSON() throws {
    let workspace = try Workspace()
    let actions: [CounterAction] = [.increment, .increment, .increment, .decrement]
    _ = try Fixtures.write(
      RecordedSession(domain: counterDomain, actions: actions), domain: counterDomain,
      named: "c.trace",
      in: workspace.directory)
    #expect(try workspace.run("state c.trace --at 3 --json").json()["count"] as? Int == 3)
    #expect(try workspace.run("state c.trace --json").json()["count"] as? Int == 2)
    #expect(try workspace.run("state c.trace --at 0 --json").json()["count"] as? Int == 0)
    let text = try workspace.run("state c.trace --at 1")
    #expect(text.stdout == "state after 1 of 4:\nCounterState(count: 1)\n")
    #expect(text.stderr.isEmpty)

    // A large state is shown only as deep as keeps it readable, with a note on stderr.
    try workspace.run("generate banking --actions 30000 -o big.trace")
    let large = try workspace.run("state big.trace")
    #expect(large.stdout.contains("transactions: […]"))
    #expect(large.stderr.hasPrefix("retrace: the state is large: shown 3 levels deep"))
    let full = try workspace.run("state big.trace --full")
    #expect(!full.stdout.contains("transactions: […]"))
    #expect(full.stderr.isEmpty)

    // So is a large change: part of it, with a note; all of it with --full and --json.
    let change = try workspace.run("diff big.trace --from 0 --to 30000")
    #expect(change.exitCode == 0)
    #expect(change.stdout.contains("transactions: […]"))
    #expect(change.stderr.hasPrefix("retrace: the change is large: shown in part"))
    let wholeChange = try workspace.run("diff big.trace --from 0 --to 30000 --full")
    #expect(!wholeChange.stdout.contains("…"))
    #expect(wholeChange.stderr.isEmpty)
    #expect(wholeChange.stdout.count > change.stdout.count * 3)
    let json = try workspace.run("diff big.trace --from 0 --to 30000 --json").json()
    #expect((json["diff"] as? String)?.contains("…") == false)
  }

  @Test func diffBetweenTwoPoints() throws {
    let workspace = try Workspace()
    try workspace.run("generate settings --actions 50 -o s.trace")
    let text = try workspace.run("diff s.trace --from 0 --to 50")
    #expect(text.exitCode == 0)
    #expect(text.stdout.contains("SettingsState("))
    #expect(text.stdout.contains("+"))
    let json = try workspace.run("diff s.trace --from 3 --to 3 --json").json()
    #expect(json["changed"] as? Bool == false)
    #expect(json["diff"] is NSNull)
  }

  @Test func diffOfTwoTracesFindsTheFirstDifference() throws {
    let workspace = try Workspace()
    let (actions, _) = counterDomain.generate(count: 1_000, seed: 8)
    var other = actions
    other[700] = other[700] == .reset ? .increment : .reset
    _ = try Fixtures.write(
      RecordedSession(domain: counterDomain, actions: actions), domain: counterDomain,
      named: "a.trace",
      in: workspace.directory)
    _ = try Fixtures.write(
      RecordedSession(domain: counterDomain, actions: other), domain: counterDomain,
      named: "b.trace",
      in: workspace.directory)
    _ = try Fixtures.write(
      RecordedSession(domain: counterDomain, actions: actions, sessionID: "again"),
      domain: counterDomain,
      named: "a2.trace", in: workspace.directory)

    let differ = try workspace.run("diff a.trace b.trace --json")
    #expect(differ.exitCode == 1)
    let json = try differ.json()
    #expect(json["firstDifference"] as? Int == 701)
    #expect(json["reason"] as? String == "action")

    let human = try workspace.run("diff a.trace b.trace")
    #expect(human.exitCode == 1)
    #expect(human.stdout.hasPrefix("first difference at 701: their actions differ"))

    let same = try workspace.run("diff a.trace a2.trace --json")
    #expect(same.exitCode == 0)
    #expect(try same.json()["firstDifference"] is NSNull)
    #expect(try workspace.run("diff a.trace a2.trace").stdout == "identical: 1000 actions\n")
  }

  @Test func replayAndVerifyOneOrManyTraces() throws {
    let workspace = try Workspace()
    try FileManager.default.createDirectory(
      at: workspace.directory.appendingPathComponent("corpus"), withIntermediateDirectories: true)
    for (domain, seed) in [("counter", 1), ("banking", 2), ("settings", 3)] {
      try workspace.run("generate \(domain) --actions 400 --seed \(seed) -o corpus/\(domain).trace")
    }
    let one = try workspace.run("replay corpus/banking.trace --to 200 --json")
    #expect(one.exitCode == 0)
    let json = try one.json()
    #expect(json["replayedTo"] as? Int == 200)
    #expect(json["status"] as? String == "replayed")
    #expect((json["stateHash"] as? String)?.hasPrefix("0x") == true)

    let verified = try workspace.run("replay corpus/banking.trace --verify")
    #expect(verified.exitCode == 0)
    #expect(verified.stdout.hasPrefix("verified corpus/banking.trace: 400 actions"))

    let corpus = try workspace.run("replay corpus --verify --jobs 2")
    #expect(corpus.exitCode == 0)
    let lines = corpus.stdout.split(separator: "\n")
    #expect(lines.count == 4)
    #expect(lines[0].hasPrefix("ok") && lines[0].contains("corpus/banking.trace"))
    #expect(lines[3] == "3 traces: 3 verified, 0 diverged, 0 unverified, 0 damaged, 0 unreadable")

    let summary = try workspace.run(
      "replay corpus/counter.trace corpus/settings.trace --verify --json"
    ).json()
    #expect(summary["verified"] as? Int == 2)
    #expect((summary["traces"] as? [[String: Any]])?.count == 2)

    let withMissing = try workspace.run("replay corpus missing.trace --verify")
    #expect(withMissing.exitCode == 3)
    #expect(withMissing.stdout.contains("missing.trace: no such file"))
  }

  @Test func aReplayOfAChildActionSentAfterItsChildWasDismissedPrintsNothingExtra() throws {
    // The notes domain runs its edit sheet with `ifLet`; no sheet is open, so the sheet's
    // actions reach an absent child. A test store fails on that; a replay must not report it.
    let workspace = try Workspace()
    let actions: [NotesAction] = [
      .editor(action: .saveTapped), .load, .editor(action: .saveTapped),
    ]
    _ = try Fixtures.write(
      RecordedSession(domain: notesDomain, actions: actions, sessionID: "stray"),
      domain: notesDomain, named: "stray.trace", in: workspace.directory)
    let replayed = try workspace.run("replay stray.trace --verify")
    #expect(replayed.exitCode == 0, "\(replayed)")
    #expect(replayed.stdout.hasPrefix("verified stray.trace: 3 actions"), "\(replayed)")
    #expect(replayed.stdout.split(separator: "\n").count == 1, "\(replayed)")
    #expect(replayed.stderr.isEmpty, "\(replayed)")
  }

  @Test func bisectFindsAViolationThatHealsAsJSONAndText() throws {
    let workspace = try Workspace()
    var actions = Fixtures.safeCounterActions(count: 3_000)
    actions.insert(contentsOf: [.reset, .decrement, .increment], at: 1_999)
    _ = try Fixtures.write(
      RecordedSession(domain: counterDomain, actions: actions), domain: counterDomain,
      named: "dip.trace",
      in: workspace.directory)
    let json = try workspace.run("bisect dip.trace --invariant non-negative --json")
    #expect(json.exitCode == 1)
    let object = try json.json()
    #expect(object["invariant"] as? String == "non-negative")
    #expect(object["firstViolation"] as? Int == 2_001)
    #expect(object["healedAt"] as? Int == 2_002)
    #expect((object["action"] as? [String: Any])?.keys.first == "decrement")

    let text = try workspace.run("bisect dip.trace --invariant non-negative")
    #expect(text.stdout.hasPrefix("non-negative first fails after action 2001 of 3003: decrement"))
    #expect(text.stdout.contains("it holds again after action 2002"))

    _ = try Fixtures.write(
      RecordedSession(domain: counterDomain, actions: Fixtures.safeCounterActions(count: 100)),
      domain: counterDomain,
      named: "safe.trace", in: workspace.directory)
    let holds = try workspace.run("bisect safe.trace --invariant non-negative --json")
    #expect(holds.exitCode == 0)
    #expect(try holds.json()["firstViolation"] is NSNull)
  }

  @Test func shrinkWritesAValidMinimalTraceAndEmitsATest() throws {
    let workspace = try Workspace()
    var actions = Fixtures.safeCounterActions(count: 10_000)
    actions.insert(contentsOf: [.reset, .decrement], at: 4_321)
    _ = try Fixtures.write(
      RecordedSession(domain: counterDomain, actions: actions), domain: counterDomain,
      named: "big.trace",
      in: workspace.directory)
    let result = try workspace.run("shrink big.trace --invariant non-negative --output small.trace")
    #expect(result.exitCode == 0, "\(result)")
    #expect(result.stdout.hasPrefix("shrunk 10002 actions to 1 that still break non-negative"))
    let info = try workspace.run("info small.trace --json").json()
    #expect(info["actions"] as? Int == 1)
    #expect(
      try workspace.run("bisect small.trace --invariant non-negative --json").json()[
        "firstViolation"] as? Int == 1)

    let test = try workspace.run(
      "shrink big.trace --invariant non-negative -o small2.trace --emit-test")
    #expect(test.exitCode == 0)
    #expect(test.stdout.hasPrefix("// Generated by `retrace shrink`"))
    #expect(test.stdout.contains("@Test func counterBreaksNonNegative()"))
    #expect(test.stderr.contains("shrunk 10002 actions to 1"))

    _ = try Fixtures.write(
      RecordedSession(domain: counterDomain, actions: [.increment]), domain: counterDomain,
      named: "fine.trace",
      in: workspace.directory)
    let nothing = try workspace.run("shrink fine.trace --invariant non-negative -o x.trace")
    #expect(nothing.exitCode == 1)
    #expect(nothing.stderr.contains("nothing to shrink"))
  }

  @Test func benchReportsDecodeReduceAndPerCaseTimes() throws {
    let workspace = try Workspace()
    try workspace.run("generate banking --actions 2000 -o b.trace")
    let result = try workspace.run("bench b.trace --repeat 2 --json")
    #expect(result.exitCode == 0)
    let json = try result.json()
    #expect(json["repetitions"] as? Int == 2)
    #expect(json["actions"] as? Int == 2_000)
    for key in [
      "decodeSeconds", "reduceSeconds", "reduceNanosecondsPerAction", "actionsPerSecond",
      "nanosecondsPerAction",
    ] {
      #expect(((json[key] as? Double) ?? 0) > 0, "\(key)")
    }
    #expect(((json["peakMemoryBytes"] as? Int) ?? 0) > 0)
    let cases = try #require(json["cases"] as? [[String: Any]])
    #expect(
      cases.map { $0["name"] as? String } == [
        "addAccount", "addTransaction", "moveAccount", "navigation",
      ])
    #expect(cases.allSatisfy { $0["p50Nanoseconds"] != nil && $0["p99Nanoseconds"] != nil })
    let text = try workspace.run("bench b.trace --repeat 1")
    #expect(text.stdout.contains("ns/action"))
    #expect(text.stdout.contains("addTransaction"))
  }

  /// A debug build's figures are many times a release build's: `bench` says which it is.
  @Test func benchSaysWhenTheToolIsADebugBuild() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 200 -o c.trace")
    // The tests and the tool are built alike.
    #if DEBUG
      let debug = true
    #else
      let debug = false
    #endif
    let json = try workspace.run("bench c.trace --repeat 1 --json")
    #expect(try json.json()["debugBuild"] as? Bool == debug, "\(json)")
    let text = try workspace.run("bench c.trace --repeat 1")
    let warnings = text.stderr.split(separator: "\n").filter { $0.contains("debug build") }
    #expect(warnings.count == (debug ? 1 : 0), "\(text)")
  }

  @Test func exportThenImportReplaysToTheSameState() throws {
    let workspace = try Workspace()
    try workspace.run("generate banking --actions 800 --seed 6 -o b.trace")
    let stdout = try workspace.run("export b.trace --format jsonl")
    #expect(stdout.exitCode == 0)
    let lines = stdout.stdout.split(separator: "\n")
    #expect(lines.count == 801)
    #expect(lines[0].contains(#""domain":"banking""#))
    #expect(lines[1].hasPrefix(#"{"seq":1,"time":"#))

    #expect(try workspace.run("export b.trace --format jsonl --output e.jsonl").exitCode == 0)
    #expect(try workspace.run("import e.jsonl --output i.trace").exitCode == 0)
    #expect(try workspace.run("replay i.trace --verify").exitCode == 0)
    let original = try workspace.run("replay b.trace --json").json()["stateHash"] as? String
    let imported = try workspace.run("replay i.trace --json").json()["stateHash"] as? String
    #expect(original != nil)
    #expect(original == imported)
  }

  @Test func theEmittedTestIsTheOneCompiledIntoThisTarget() throws {
    // EmittedShrinkTest.swift holds this very output, so the build proves it compiles and
    // the run proves it passes; this test proves it is still what the tool prints.
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 5000 --seed 11 --output counter.trace")
    let emitted = try workspace.run(
      "shrink counter.trace --invariant non-negative --output shrunk.trace --emit-test")
    let golden = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("EmittedShrinkTest.swift"),
      encoding: .utf8)
    let body = try #require(golden.range(of: "// Generated by")).lowerBound
    #expect(emitted.stdout == String(golden[body...]))
  }
}
