import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

@testable import RetraceLog

/// `log` and `diff --from --to` read only the chunks they need, from the trace's index: the
/// answers must be those of the whole session, and damage met on the way handled as when
/// the trace is read whole.
@Suite struct CLIRangeReadTests {
  static let count = 6_000

  /// A banking trace of many small chunks with a snapshot every 1,000 actions, and its
  /// session.
  static func trace(in workspace: Workspace, format: UInt16 = TraceFormat.version) throws -> (
    path: String, session: RecordedSession<DomainDefinition<BankingState, BankingAction>>
  ) {
    let session = Fixtures.session(bankingDomain, count: count, seed: 5)
    var configuration = Fixtures.smallChunks
    configuration.formatVersion = format
    let path = try Fixtures.write(
      session, domain: bankingDomain, named: "r.trace", in: workspace.directory,
      configuration: configuration)
    return (path, session)
  }

  /// The JSON Lines of `log --json` for `actions`, written from the session, not the trace.
  static func lines(_ actions: some Sequence<TimedAction<BankingAction>>) throws -> [String] {
    let writer = JSONLines.ActionWriter<BankingAction>()
    return try actions.map { try writer.line(for: $0) }
  }

  @Test func aLogOfARangeListsExactlyThoseActions() throws {
    let workspace = try Workspace()
    let (_, session) = try Self.trace(in: workspace)
    let reader = try TraceReader(path: workspace.path("r.trace"))
    #expect(reader.chunks.count > 20)
    #expect(reader.snapshotSequences.count >= 5)
    for (from, to) in [
      (1, Self.count), (2_345, 2_400), (5_990, Self.count), (1, 1), (3_000, 3_000), (999, 1_001),
    ] {
      let result = try workspace.run("log r.trace --from \(from) --to \(to) --json")
      #expect(result.exitCode == 0)
      #expect(result.stderr.isEmpty)
      let expected = try Self.lines(session.actions[(from - 1)..<to])
      #expect(result.stdout.split(separator: "\n").map(String.init) == expected, "\(from)...\(to)")
    }
    let filtered = try workspace.run("log r.trace --from 100 --to 2000 --type moveAccount --json")
    let moves = session.actions[99..<2_000].filter {
      actionCaseName(of: $0.action) == "moveAccount"
    }
    #expect(!moves.isEmpty)
    #expect(filtered.stdout.split(separator: "\n").map(String.init) == (try Self.lines(moves)))
    #expect(try workspace.run("log r.trace --from 6001").exitCode == 4)
  }

  @Test func aDiffOfTwoPointsIsTheWholeSessionsDiff() throws {
    let workspace = try Workspace()
    let (_, session) = try Self.trace(in: workspace)
    let debugger = ReplayEngine(domain: bankingDomain, session: session)
    for (from, to) in [
      (0, Self.count), (1_234, 1_300), (5_000, 4_000), (2_999, 3_001), (6_000, 6_000),
      (1_000, 2_000),
    ] {
      let result = try workspace.run("diff r.trace --from \(from) --to \(to) --full")
      #expect(result.exitCode == 0)
      let expected =
        try debugger.diff(from: UInt64(from), to: UInt64(to))
        .map {
          "state from \(from) to \(to):\n\(displayFormatted($0, bankingDomain.displayFormats))\n"
        } ?? "no change from \(from) to \(to)\n"
      #expect(result.stdout == expected, "\(from)...\(to)")
    }
    let outside = try workspace.run("diff r.trace --from 10 --to 6001")
    #expect(outside.exitCode == 4)
    #expect(outside.stderr.contains("out of range 0...6000"))
  }

  @Test(arguments: Fixtures.traceFormats)
  func damageMetInTheMiddleOfALogIsReportedOnceAndTheIntactActionsListedOnce(format: UInt16)
    throws
  {
    let workspace = try Workspace()
    let (path, session) = try Self.trace(in: workspace, format: format)
    var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    // A chunk of actions well into the session, not starting with a snapshot.
    let damaged = try #require(
      TraceReader(bytes: bytes).chunks.first {
        $0.firstSequence > 1_010 && !$0.startsWithSnapshot && $0.actionCount > 0
      })
    bytes[damaged.offset + 8 + 48 + 20] ^= 0x10
    try Data(bytes).write(to: URL(fileURLWithPath: workspace.path("f.trace")))

    // Before the damage: read from the index, which does not look at the damaged chunk.
    let early = try workspace.run("log f.trace --from 1 --to 10 --json")
    #expect(early.exitCode == 0 && early.stderr.isEmpty)
    #expect(early.stdout.split(separator: "\n").count == 10)

    // Across it: the actions before the damaged chunk, each once, and one warning.
    let intact = Int(damaged.firstSequence) - 1
    for command in ["log f.trace --json", "log f.trace --from 500 --json"] {
      let result = try workspace.run(command)
      #expect(result.exitCode == 0)
      #expect(result.stderr.split(separator: "\n").count == 1)
      #expect(result.stderr.contains("chunk checksum mismatch; using the \(intact) intact actions"))
      let from = command.hasSuffix("500 --json") ? 499 : 0
      #expect(
        result.stdout.split(separator: "\n").map(String.init)
          == (try Self.lines(session.actions[from..<intact])))
    }

    // A diff whose replay crosses the damage: the trace read whole ends before it, so the
    // later point is out of its range (with the warning), and a diff before it still works.
    let snapshots = try TraceReader(path: workspace.path("f.trace")).snapshotSequences
    let after = Int(damaged.firstSequence) + 5
    #expect(
      !snapshots.contains { $0 > UInt64(intact - 5) && $0 <= UInt64(after) },
      "a snapshot between would avoid the damage")
    let across = try workspace.run("diff f.trace --from \(intact - 5) --to \(after)")
    #expect(across.exitCode == 4)
    #expect(across.stderr.contains("chunk checksum mismatch; using the \(intact) intact actions"))
    #expect(across.stderr.contains("out of range 0...\(intact)"))
    let before = try workspace.run("diff f.trace --from \(intact - 5) --to \(intact) --full")
    let expected = try ReplayEngine(domain: bankingDomain, session: session).diff(
      from: UInt64(intact - 5), to: UInt64(intact))
    // The CLI writes the banking domain's display formats beside the raw values.
    #expect(
      before.stdout
        == expected.map {
          "state from \(intact - 5) to \(intact):\n\(displayFormatted($0, bankingDomain.displayFormats))\n"
        })
  }

  @Test(arguments: Fixtures.traceFormats)
  func aLogThatMeetsAnUndecodableChunkPrintsEveryActionBeforeIt(format: UInt16) throws {
    let workspace = try Workspace()
    let (path, session) = try Self.trace(in: workspace, format: format)
    // A chunk whose checksummed header claims nearly 1 GiB of records: its checksum holds, so
    // only decompressing it shows the lie; it is damage like a wrong checksum: the actions
    // before it, and one warning.
    var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    let chunk = try TraceReader(bytes: bytes).chunks[30]
    let header = chunk.offset + 8
    bytes.setLittleEndian(UInt32(1 << 30 - 1), at: header + 32)
    let covered =
      Array(bytes[header..<(header + 40)])
      + Array(bytes[(header + 44)..<(header + 48 + chunk.byteCount - 56)])
    bytes.setLittleEndian(CRC32C.checksum(covered), at: header + 40)
    try Data(bytes).write(to: URL(fileURLWithPath: workspace.path("lie.trace")))
    let result = try workspace.run("log lie.trace --json")
    #expect(result.exitCode == 0)
    let before = Int(chunk.firstSequence) - 1
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(
      result.stderr.contains(
        "does not match the chunk header's 1073741823; using the \(before) intact actions"))
    #expect(
      result.stdout.split(separator: "\n").map(String.init)
        == (try Self.lines(session.actions[0..<before])))
  }

  @Test func rangesOfASessionThatStartsLateOrIsJSONLinesAreTheSessions() throws {
    let workspace = try Workspace()
    // A session that starts after action 1,000 (as one recorded from a running store does).
    let plain = Fixtures.session(
      bankingDomain, count: 2_000, seed: 9, checkpointEvery: 0, snapshotEvery: 0)
    let start = try ReplayEngine(domain: bankingDomain, session: plain).state(at: 1_000)
    let late = RecordedSession<DomainDefinition<BankingState, BankingAction>>(
      info: plain.info, startSequence: 1_000, initialState: start,
      actions: Array(plain.actions.dropFirst(1_000)))
    var configuration = TraceRecorderConfiguration()
    configuration.chunkSize = 4_096
    configuration.checkpointInterval = 100
    configuration.snapshotInterval = 200
    configuration.maxSnapshotShare = 1
    configuration.maxStateBytesPerAction = 1 << 20
    _ = try Fixtures.write(
      late, domain: bankingDomain, named: "late.trace", in: workspace.directory,
      configuration: configuration)
    _ = try Fixtures.write(
      late, domain: bankingDomain, named: "late.jsonl", in: workspace.directory)
    let debugger = ReplayEngine(domain: bankingDomain, session: late)
    for file in ["late.trace", "late.jsonl"] {
      for (from, to) in [(1_001, 1_001), (1_001, 2_000), (1_450, 1_460)] {
        let log = try workspace.run("log \(file) --from \(from) --to \(to) --json")
        #expect(
          log.stdout.split(separator: "\n").map(String.init)
            == (try Self.lines(late.actions[(from - 1_001)...(to - 1_001)])))
      }
      for (from, to) in [(1_000, 2_000), (1_500, 1_200), (1_999, 2_000)] {
        let result = try workspace.run("diff \(file) --from \(from) --to \(to) --full")
        let expected =
          try debugger.diff(from: UInt64(from), to: UInt64(to))
          .map {
            "state from \(from) to \(to):\n\(displayFormatted($0, bankingDomain.displayFormats))\n"
          } ?? "no change from \(from) to \(to)\n"
        #expect(result.stdout == expected, "\(file) \(from)...\(to)")
      }
      let early = try workspace.run("diff \(file) --from 999 --to 1500")
      #expect(early.exitCode == 4)
      #expect(early.stderr.contains("out of range 1000...2000"), "\(file)")
      #expect(
        try workspace.run("log \(file) --from 1000").stderr.contains("out of range 1001...2000"))
    }
  }
}
