import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceLog
import RetraceTestSupport
import Testing

@testable import RetraceCLI

/// The commands on real trace files: integrity, damage, recovery, and replaying with a
/// changed reducer.
@Suite struct TraceFileTests {
  @Test func infoDescribesATraceFromItsIndexAndRecords() throws {
    let workspace = try Workspace()
    try workspace.run("generate banking --actions 30000 --seed 5 -o b.trace")
    let json = try workspace.run("info b.trace --json").json()
    #expect(json["format"] as? String == "trace")
    #expect(json["actions"] as? Int == 30_000)
    #expect((json["blocks"] as? Int ?? 0) >= 1)
    #expect((json["snapshots"] as? Int ?? 0) >= 1)
    #expect((json["checkpoints"] as? Int ?? 0) >= 1)
    #expect((json["bytesPerAction"] as? Double ?? 99) < 40)
    #expect((json["integrity"] as? [String: Any])?["status"] as? String == "clean")
    let verify = try workspace.run("verify b.trace")
    #expect(verify.exitCode == 0)
    #expect(verify.stdout == "b.trace: clean\n")
  }

  @Test func aTruncatedTraceIsReportedAndItsIntactPartStillReplays() throws {
    let workspace = try Workspace()
    try workspace.run("generate banking --actions 60000 --seed 5 -o whole.trace")
    let bytes = try Data(contentsOf: workspace.directory.appendingPathComponent("whole.trace"))
    try bytes.prefix(bytes.count * 2 / 3).write(
      to: workspace.directory.appendingPathComponent("cut.trace"))

    let verify = try workspace.run("verify cut.trace --json")
    #expect(verify.exitCode == 1)
    let integrity = try #require(try verify.json()["integrity"] as? [String: Any])
    #expect(integrity["status"] as? String == "truncated")
    let intact = try #require(integrity["intactActions"] as? Int)
    #expect(intact > 0 && intact < 60_000)
    #expect(integrity["offset"] is Int)

    let info = try workspace.run("info cut.trace --json")
    #expect(info.exitCode == 1)
    #expect(try info.json()["actions"] as? Int == intact)

    // Never "verified": the intact part is checked, and the answer says the trace is cut.
    let replay = try workspace.run("replay cut.trace --verify")
    #expect(replay.exitCode == 1, "\(replay)")
    #expect(replay.stderr.hasPrefix("retrace: warning: cut.trace: truncated"))
    #expect(replay.stdout.hasPrefix("DAMAGED cut.trace: truncated at offset"))
    #expect(replay.stdout.contains("(\(intact) intact actions before it)"))
    #expect(replay.stdout.hasSuffix("nothing after the damage was checked\n"))
    // The intact part replays to the same states as the whole trace.
    let wholeState = try workspace.run("state whole.trace --at \(intact - 1) --json").stdout
    let cutState = try workspace.run("state cut.trace --at \(intact - 1) --json").stdout
    #expect(wholeState == cutState)
  }

  @Test func aTraceOfAnUnregisteredDomainCanBeDescribedButNotReplayed() throws {
    let workspace = try Workspace()
    let bakery = DomainDefinition(
      name: "bakery", summary: "Loaves.", initialState: 0,
      reducer: Reduce<Int, CounterAction> { state, _ in
        state += 1
        return .none
      },
      actionCases: ["increment", "decrement", "reset"],
      workload: Workload { _, _, _ in .increment })
    _ = try Fixtures.write(
      RecordedSession(domain: bakery, actions: [.increment, .increment, .reset]), domain: bakery,
      named: "bakery.trace", in: workspace.directory)
    let info = try workspace.run("info bakery.trace --json")
    #expect(info.exitCode == 0)
    let json = try info.json()
    #expect(json["domain"] as? String == "bakery")
    #expect(json["actionCases"] as? [String: Int] == ["increment": 2, "reset": 1])
    #expect(try workspace.run("verify bakery.trace").exitCode == 0)
    let replay = try workspace.run("replay bakery.trace")
    #expect(replay.exitCode == 4)
    #expect(replay.stderr.contains("bakery.trace: unknown domain 'bakery'"))
  }

  @Test func replayVerifyCatchesAReducerChangedAfterRecording() async throws {
    // Recorded with the real banking reducer, a snapshot every 100 actions...
    let workspace = try Workspace()
    var configuration = TraceRecorderConfiguration()
    configuration.checkpointInterval = 100
    configuration.snapshotInterval = 100
    configuration.maxSnapshotShare = 1
    configuration.maxStateBytesPerAction = 1 << 20
    let (actions, _) = bankingDomain.generate(count: 3_000, seed: 1)
    let path = try Fixtures.write(
      RecordedSession(domain: bankingDomain, actions: actions), domain: bankingDomain,
      named: "b.trace",
      in: workspace.directory, configuration: configuration)
    #expect(try workspace.run("replay b.trace --verify").exitCode == 0)

    // ...replayed by a debugger in which "banking" has a different overdraft penalty.
    let domains = DomainRegistry(Examples.domains).replacing(Fixtures.changedBanking).domains
    let code = await RetraceCommand.run(
      domains: domains, arguments: ["replay", path, "--verify", "--json"])
    #expect(code == 1)

    // The engine, on the same file: the divergence is at the first snapshot after the first
    // overdraft, and the recorded state, read back from the file, gives the diff.
    let file = try SessionFile.open(path, key: nil)
    let session = try file.load(as: Fixtures.changedBanking)
    #expect(session.snapshots.allSatisfy { $0.state == nil })
    let divergence = try #require(
      ReplayEngine(domain: Fixtures.changedBanking, session: session).verify().divergence)
    let firstOverdraft = try #require(
      ReplayEngine(domain: bankingDomain, session: session).bisect(
        invariant: "non-negative-balance"
      )
      .firstViolation)
    #expect(divergence.window.contains(firstOverdraft))
    #expect(divergence.kind == .snapshot)
    let diff = try #require(divergence.stateDiff)
    #expect(diff.contains("-1500") && diff.contains("-1600"))
  }

  @Test func stateAtNIsTheLiveStateFromATraceOrJSONLines() throws {
    let workspace = try Workspace()
    var configuration = TraceRecorderConfiguration()
    configuration.checkpointInterval = 500
    configuration.snapshotInterval = 1_000
    configuration.maxSnapshotShare = 1
    configuration.maxStateBytesPerAction = 1 << 20
    configuration.chunkSize = 4_096
    let (actions, final) = counterDomain.generate(count: 10_000, seed: 3)
    let session = RecordedSession(domain: counterDomain, actions: actions)
    var expected = CounterState()
    for action in actions.prefix(7_654) {
      _ = counterDomain.reduce(into: &expected, action: action)
    }
    for name in ["c.trace", "c.jsonl"] {
      let path = try Fixtures.write(
        session, domain: counterDomain, named: name, in: workspace.directory,
        configuration: configuration)
      let file = try SessionFile.open(path, key: nil)
      let middle = try file.state(as: counterDomain, at: 7_654)
      #expect(
        middle.sequence == 7_654 && middle.last == 10_000 && middle.state == expected, "\(name)")
      let last = try file.state(as: counterDomain, at: nil)
      #expect(last.sequence == 10_000 && last.state == final, "\(name)")
      #expect(throws: TraceError.self) { try file.state(as: counterDomain, at: 10_001) }
      do {
        _ = try file.state(as: counterDomain, at: 10_001)
      } catch {
        #expect(
          error.code == .outOfRange && error.message.contains("out of range 0...10000"), "\(name)")
      }
    }
  }

  @Test func importWritesATraceWithCheckpointsThatReplaysToTheSameHash() throws {
    let workspace = try Workspace()
    try workspace.run("generate banking --actions 12000 --seed 2 -o original.trace")
    #expect(
      try workspace.run("export original.trace --format jsonl -o session.jsonl").exitCode == 0)
    #expect(try workspace.run("import session.jsonl -o imported.trace").exitCode == 0)
    let info = try workspace.run("info imported.trace --json").json()
    #expect((info["checkpoints"] as? Int ?? 0) > 0)
    #expect(info["sessionID"] as? String == "banking-seed-2")
    let verified = try workspace.run("replay imported.trace --verify --json").json()
    #expect(verified["status"] as? String == "verified")
    let hashes = try ["original.trace", "imported.trace"].map {
      try workspace.run("replay \($0) --json").json()["stateHash"] as? String
    }
    #expect(hashes[0] != nil && hashes[0] == hashes[1])
    // And the export of the import is the export of the original.
    #expect(
      try workspace.run("export imported.trace --format jsonl").stdout
        == workspace.read("session.jsonl"))
  }
}
