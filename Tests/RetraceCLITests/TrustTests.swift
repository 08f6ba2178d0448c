import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

@testable import RetraceLog

/// The answers users act on ("verified", "clean") are true in the common cases: a short
/// session recorded by an app with the default configuration, the tail of every session, a
/// crash before the first chunk, a damaged trace, a re-sealed forgery.
@Suite struct TrustTests {
  /// Records `count` banking workload actions through a store, as an app does, with the
  /// default recorder configuration; closes the recorder on the main actor.
  @MainActor
  static func appSession(count: Int, at path: String, seed: UInt64 = 11) throws {
    let recorder = try TraceRecorder(path: path, domain: bankingDomain)
    let store = Store(initialState: bankingDomain.initialState, reducer: BankingReducer())
    store.attach(recorder)
    var random = SeededRandom(seed: seed)
    for step in 0..<count {
      store.send(bankingDomain.workload!.next(store.state, step, &random))
    }
    try recorder.close()
  }

  @Test @MainActor func aShortAppSessionIsVerifiedAgainstHashesAndAChangedReducerIsCaught() throws {
    let workspace = try Workspace()
    try Self.appSession(count: 300, at: workspace.path("s.trace"))

    let verified = try workspace.run("replay s.trace --verify")
    #expect(verified.exitCode == 0, "\(verified)")
    #expect(verified.stdout.hasPrefix("verified s.trace: 300 actions against "))
    let json = try workspace.run("replay s.trace --verify --json").json()
    #expect(json["status"] as? String == "verified")
    #expect(json["coveredThrough"] as? Int == 300)
    #expect(json["uncoveredActions"] as? Int == 0)
    #expect((json["hashes"] as? Int ?? 0) >= 2)
    // One action is counted as one.
    try workspace.run("generate counter --actions 1 -o one.trace")
    let one = try workspace.run("replay one.trace --verify")
    #expect(one.stdout.hasPrefix("verified one.trace: 1 action against 2 hashes"), "\(one)")

    // The fee-charging reducer changes the state from the first payment on: caught.
    let changed = try workspace.run("replay s.trace --verify --as banking-with-fees")
    #expect(changed.exitCode == 1, "\(changed)")
    #expect(changed.stdout.hasPrefix("DIVERGED s.trace (replayed as banking-with-fees)"))
  }

  @Test @MainActor func everyCheckpointSpacingCoversTheLastAction() throws {
    // Small sessions of every length: the last action is always covered (by the hash at
    // close), and a small state gets a checkpoint every few actions.
    let workspace = try Workspace()
    for count in [1, 15, 16, 17, 50, 301] {
      let path = workspace.path("s\(count).trace")
      try Self.appSession(count: count, at: path)
      let json = try workspace.run("replay s\(count).trace --verify --json").json()
      #expect(json["status"] as? String == "verified", "\(count) actions: \(json)")
      #expect(json["coveredThrough"] as? Int == count)
    }
    // A counter's state is a few bytes: a checkpoint every 16 actions, and one at close.
    let path = workspace.path("c.trace")
    var configuration = TraceRecorderConfiguration()
    configuration.reproducibleCheckpoints = true  // a burst of sends keeps every checkpoint
    let recorder = try TraceRecorder(
      path: path, domain: counterDomain, configuration: configuration)
    let store = Store(initialState: counterDomain.initialState, reducer: CounterReducer())
    store.attach(recorder)
    for _ in 0..<50 { store.send(.increment) }
    try recorder.close()
    let checkpoints = try TraceReader(path: path).checkpointCount
    #expect(
      checkpoints >= 3 && checkpoints <= 4, "\(checkpoints) checkpoints in 50 counter actions")
  }

  @Test func aChangedActionInTheTailOfAResealedTraceIsCaught() throws {
    // A forger changes one of the last actions and re-seals the file (checksums redone,
    // hashes kept): the hash at close covers it.
    let workspace = try Workspace()
    let (actions, _) = bankingDomain.generate(count: 2_000, seed: 5)
    let forged = try #require(
      actions.indices.last { index in
        if case .addTransaction = actions[index] { return index > 1_990 }
        return false
      })
    var configuration = TraceRecorderConfiguration()
    configuration.reproducibleCheckpoints = true
    let recorder = try TraceRecorder<BankingState, BankingAction>(
      path: workspace.path("forged.trace"), domain: bankingDomain, startTime: 1_763_771_000,
      configuration: configuration)
    var state = bankingDomain.initialState
    recorder.attached(sequence: 0, state: state)
    for (index, action) in actions.enumerated() {
      _ = bankingDomain.reduce(into: &state, action: action)
      var recorded = action
      if index == forged,
        case .addTransaction(let iban, let amount, let beneficiary, let date) = action
      {
        recorded = .addTransaction(
          iban: iban, amount: amount - 100, beneficiary: beneficiary, date: date)
      }
      recorder.record(
        Transition(
          sequence: UInt64(index + 1), time: 1_763_771_000 + Double(index), action: recorded,
          stateBefore: nil,
          stateAfter: state))
    }
    recorder.checkpoint(state: state, after: 2_000)
    try recorder.close()
    #expect(try workspace.run("verify forged.trace").exitCode == 0)  // the file itself is intact
    let replay = try workspace.run("replay forged.trace --verify --json")
    #expect(replay.exitCode == 1, "\(replay)")
    let json = try replay.json()
    #expect(json["status"] as? String == "diverged")
    let divergence = try #require(json["divergence"] as? [String: Any])
    #expect(divergence["sequence"] as? Int == 2_000)
    #expect((divergence["windowStart"] as? Int ?? .max) <= forged + 1)
  }

  /// Runs the crash child: `count` actions with the default configuration, then (with
  /// `flush`) a flush, then SIGKILL.
  static func crashedSession(count: Int, flush: Bool, at path: String) throws {
    let child = try #require(
      CLI.sibling("retrace-crash-child"), "retrace-crash-child was not built")
    let process = Process()
    process.executableURL = child
    process.arguments = [path, "--actions", "\(count)"] + (flush ? ["--flush"] : [])
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let ready = pipe.fileHandleForReading.readData(ofLength: 6)
    #expect(String(decoding: ready, as: UTF8.self) == "ready\n")
    // The documented window: what `send` returned more than 10 ms before a kill is kept.
    Thread.sleep(forTimeInterval: 0.1)
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  @Test func aSessionThatCrashesBeforeItsFirstChunkReplays() throws {
    let workspace = try Workspace()
    try Self.crashedSession(count: 200, flush: false, at: workspace.path("crash.trace"))

    let verify = try workspace.run("verify crash.trace")
    #expect(verify.exitCode == 0, "\(verify)")
    #expect(verify.stdout.contains("200 actions recovered from its journal"))
    // Every command reads it: the starting state is in the file from the start.
    let replay = try workspace.run("replay crash.trace --verify --json")
    #expect(replay.exitCode == 1, "\(replay)")  // its tail is covered by no hash
    let json = try replay.json()
    #expect(json["actions"] as? Int == 200)
    let covered = try #require(json["coveredThrough"] as? Int)
    #expect(json["status"] as? String == (covered == 200 ? "verified" : "unverified"))
    #expect(json["uncoveredActions"] as? Int == 200 - covered)
    let text = try workspace.run("replay crash.trace --verify")
    #expect(text.stdout.contains("the session did not close"), "\(text)")
    #expect(try workspace.run("state crash.trace --at 200").exitCode == 0)
    let bisect = try workspace.run("bisect crash.trace --invariant balance-matches-transactions")
    #expect(bisect.exitCode == 0, "\(bisect)")
    let export = try workspace.run("export crash.trace --format jsonl")
    #expect(export.exitCode == 0)
    #expect(export.stdout.split(separator: "\n").count == 201)  // the header and 200 actions
    #expect(try workspace.run("replay crash.trace --verify --as banking-with-fees").exitCode == 1)
  }

  @Test func aCrashAfterAFlushIsVerifiedThroughTheFlush() throws {
    let workspace = try Workspace()
    try Self.crashedSession(count: 200, flush: true, at: workspace.path("crash.trace"))
    let replay = try workspace.run("replay crash.trace --verify --json")
    #expect(replay.exitCode == 0, "\(replay)")
    let json = try replay.json()
    #expect(json["status"] as? String == "verified")
    #expect(json["coveredThrough"] as? Int == 200)
  }

  /// A banking trace of many small chunks in trace format `format`, and its bytes.
  static func chunkedTrace(in workspace: Workspace, format: UInt16 = TraceFormat.version) throws
    -> [UInt8]
  {
    try HostileTraceTests.cleanTrace(in: workspace, format: format)
  }

  /// Writes ``chunkedTrace(in:format:)`` to each of `names` in `workspace`, its fifth
  /// chunk damaged (a byte flipped inside its frame, which its checksum then refuses), and
  /// returns that chunk.
  static func damagedTrace(in workspace: Workspace, format: UInt16, as names: String...) throws
    -> TraceChunk
  {
    var bytes = try chunkedTrace(in: workspace, format: format)
    let chunk = try TraceReader(bytes: bytes).chunks[4]
    bytes[chunk.offset + 8 + 48 + 20] ^= 0x04
    for name in names {
      try Data(bytes).write(to: URL(fileURLWithPath: workspace.path(name)))
    }
    return chunk
  }

  @Test(arguments: Fixtures.traceFormats)
  func aDamagedTraceIsNeverVerified(format: UInt16) throws {
    let workspace = try Workspace()
    let chunk = try Self.damagedTrace(in: workspace, format: format, as: "flipped.trace")
    let replay = try workspace.run("replay flipped.trace --verify")
    #expect(replay.exitCode == 1, "\(replay)")
    #expect(replay.stdout.hasPrefix("DAMAGED flipped.trace: damaged at offset \(chunk.offset)"))
    #expect(replay.stdout.contains("nothing after the damage was checked"))
    let json = try workspace.run("replay flipped.trace --verify --json").json()
    #expect(json["status"] as? String == "damaged")
    #expect(json["actions"] as? Int == Int(chunk.firstSequence) - 1)
    #expect((json["integrity"] as? [String: Any])?["status"] as? String == "damaged")
    // Many traces: a damaged one counts against the run.
    try Data(try Self.chunkedTrace(in: workspace, format: format)).write(
      to: URL(fileURLWithPath: workspace.path("clean.trace")))
    let many = try workspace.run("replay clean.trace flipped.trace --verify")
    #expect(many.exitCode == 1)
    #expect(
      many.stdout.contains(
        "2 traces: 1 verified, 0 diverged, 0 unverified, 1 damaged, 0 unreadable"))
  }

  /// `bytes` with chunk `chunk`'s CRC32C recomputed, as a forger or a buggy writer would.
  static func resealingChunk(_ bytes: [UInt8], _ chunk: TraceChunk) -> [UInt8] {
    var bytes = bytes
    let h = chunk.offset + 8
    let covered =
      Array(bytes[h..<(h + 40)]) + Array(bytes[(h + 44)..<(chunk.offset + chunk.byteCount)])
    bytes.setLittleEndian(CRC32C.checksum(covered), at: h + 40)
    return bytes
  }

  /// `bytes` with the index's CRC32C recomputed.
  static func resealingIndex(_ bytes: [UInt8]) -> [UInt8] {
    var bytes = bytes
    let trailer = bytes.count - TraceFormat.indexTrailerSize
    let count = Int(bytes[trailer]) | Int(bytes[trailer + 1]) << 8
    let content = trailer - count * TraceFormat.indexEntrySize
    bytes.setLittleEndian(CRC32C.checksum(Array(bytes[content..<(trailer + 24)])), at: trailer + 24)
    return bytes
  }

  @Test(arguments: Fixtures.traceFormats)
  func aChunkWhoseZstdChecksumIsWrongIsDamageForEveryCommand(format: UInt16) throws {
    let workspace = try Workspace()
    let clean = try Self.chunkedTrace(in: workspace, format: format)
    let chunk = try TraceReader(bytes: clean).chunks[4]
    var bytes = clean
    // The last four bytes of the zstd frame are its content checksum.
    bytes[chunk.offset + chunk.byteCount - 2] ^= 0x01
    bytes = Self.resealingChunk(bytes, chunk)
    try Data(bytes).write(to: URL(fileURLWithPath: workspace.path("z.trace")))
    let intact = Int(chunk.firstSequence) - 1

    let verify = try workspace.run("verify z.trace")
    #expect(verify.exitCode == 1, "\(verify)")
    #expect(verify.stdout.contains("damaged at offset"))
    #expect(verify.stdout.contains("(\(intact) intact actions before it)"))
    let info = try workspace.run("info z.trace --json")
    #expect(info.exitCode == 1)
    #expect((try info.json()["integrity"] as? [String: Any])?["status"] as? String == "damaged")
    // The commands that read actions use the intact part, with one warning, as for any damage.
    let log = try workspace.run("log z.trace --json")
    #expect(log.exitCode == 0, "\(log)")
    #expect(log.stdout.split(separator: "\n").count == intact)
    #expect(log.stderr.contains("using the \(intact) intact actions"))
    let replay = try workspace.run("replay z.trace --verify --json")
    #expect(replay.exitCode == 1)
    #expect(try replay.json()["status"] as? String == "damaged")
  }

  /// A chunk header is a claim until its chunk is read: a forged one, resealed, that says
  /// its chunk holds 2^30 actions (as many records, as many bytes) must not make a reader
  /// allocate room for them. `replay`, `debug` and `state` read the whole session; they
  /// used to stop with "failed to allocate 25769803808 bytes" (signal 6) before any chunk
  /// was read. A smaller lie (2^22) gets its room, which is given back when the chunk turns
  /// out to hold fewer.
  @Test(arguments: Fixtures.traceFormats)
  func aChunkHeaderThatClaimsBillionsOfActionsIsNotBelievedBeforeItIsRead(format: UInt16)
    throws
  {
    let workspace = try Workspace()
    let clean = try Self.chunkedTrace(in: workspace, format: format)
    let chunk = try TraceReader(bytes: clean).chunks.last!
    for claim in [UInt32(1 << 30), 1 << 22] {
      // Without the index, so that the forged header is scanned as it stands.
      var forged = Array(clean[..<(chunk.offset + chunk.byteCount)])
      let h = chunk.offset + 8
      forged.setLittleEndian(claim, at: h + 16)  // actions
      forged.setLittleEndian(claim, at: h + 20)  // records
      forged.setLittleEndian(claim, at: h + 32)  // bytes of records
      forged = Self.resealingChunk(forged, chunk)
      try Data(forged).write(to: URL(fileURLWithPath: workspace.path("forged.trace")))
      for command in [
        "replay forged.trace", "debug forged.trace --at 3", "state forged.trace --at 3",
      ] {
        let result = try workspace.run(command)
        #expect(!result.stderr.contains("Fatal error"), "\(claim), \(command): \(result)")
        #expect(result.exitCode < 128, "\(claim), \(command): \(result)")
        // Opening counted the claim; once the chunk has failed, the true count is said
        // (`state --at 3` reads only the first chunks).
        if claim == 1 << 22, !command.hasPrefix("state") {
          #expect(
            result.stderr.contains("using the \(chunk.firstSequence - 1) intact actions"),
            "\(command): \(result)")
        }
      }
      let verify = try workspace.run("replay forged.trace --verify")
      #expect(verify.exitCode == 1, "\(claim): \(verify)")
      #expect(verify.stdout.hasPrefix("DAMAGED forged.trace: damaged at offset "))
      #expect(verify.stdout.contains("does not match the chunk header's \(claim)"))
    }
  }

  /// A session recorded by an app whose decrement took two (the bug, since fixed), replayed
  /// by today's counter: the recorded session broke `non-negative`, today's replay of it
  /// does not. `bisect` said "holds after every one of the 6 actions" (exit 0) and `shrink`
  /// "nothing to shrink", about a session that broke it; both now say the replay does not
  /// reproduce the recording, and `bisect` exits 1.
  @Test @MainActor func bisectAndShrinkSayWhenTheReplayDoesNotReproduceTheRecording() throws {
    let workspace = try Workspace()
    let recorder = try TraceRecorder(path: workspace.path("old.trace"), domain: counterDomain)
    let store = Store(
      initialState: counterDomain.initialState,
      reducer: Reduce<CounterState, CounterAction> { state, action in
        switch action {
        case .increment: state.count += 1
        case .decrement: state.count -= 2
        case .reset: state.count = 0
        }
        return .none
      })
    store.attach(recorder)
    for action in [
      CounterAction.increment, .increment, .increment, .decrement, .decrement, .increment,
    ] {
      store.send(action)
    }
    try recorder.close()

    let bisect = try workspace.run("bisect old.trace --invariant non-negative")
    #expect(bisect.exitCode == 1, "\(bisect)")
    #expect(bisect.stdout.contains("holds after every one of the 6 actions"))
    #expect(
      bisect.stdout.contains(
        "(today's replay does not reproduce the recorded session: its state after action "))
    let json = try workspace.run("bisect old.trace --invariant non-negative --json")
    #expect(json.exitCode == 1)
    #expect(try json.json()["reproduced"] as? Bool == false)
    #expect(try json.json()["divergedAt"] as? Int != nil)
    let shrink = try workspace.run("shrink old.trace --invariant non-negative -o s.trace")
    #expect(shrink.exitCode == 1)
    #expect(shrink.stderr.contains("today's replay does not reproduce the recorded session"))
    // A session today's reducer reproduces says nothing of the kind.
    try workspace.run("generate counter --actions 300 --seed 4 -o new.trace")
    let reproduced = try workspace.run("bisect new.trace --invariant non-negative --json")
    #expect(try reproduced.json()["reproduced"] as? Bool == true, "\(reproduced)")
  }

  /// Two copies of a trace, each damaged in its fifth chunk, compare equal as far as they
  /// were read: `diff` said "identical" (exit 0) where the actions after the damage, which
  /// may differ, were never compared.
  @Test(arguments: Fixtures.traceFormats)
  func twoDamagedTracesAreNeverCalledIdentical(format: UInt16) throws {
    let workspace = try Workspace()
    let chunk = try Self.damagedTrace(in: workspace, format: format, as: "a.trace", "b.trace")
    let read = Int(chunk.firstSequence) - 1
    let diff = try workspace.run("diff a.trace b.trace")
    #expect(diff.exitCode == 1, "\(diff)")
    #expect(!diff.stdout.contains("identical"))
    #expect(
      diff.stdout.hasPrefix(
        "no difference in the \(read) actions read, but the sessions could not be read whole"))
    #expect(diff.stdout.contains("(a.trace could not be read whole: damaged at offset"))
    #expect(diff.stdout.contains("(b.trace could not be read whole: damaged at offset"))
    let json = try workspace.run("diff a.trace b.trace --json")
    #expect(json.exitCode == 1)
    let report = try json.json()
    #expect(report["readWhole"] as? Bool == false)
    #expect((report["damagedTraces"] as? [[String: Any]])?.count == 2)
    // One damaged, one whole: the answer is the damage's end, and says why.
    let whole = try workspace.run("diff clean.trace a.trace")
    #expect(whole.exitCode == 1)
    #expect(whole.stdout.contains("(a.trace could not be read whole: "))
    // Where the damaged one's actions end is no difference: nothing after it was read.
    #expect(whole.stdout.hasPrefix("no difference in the \(read) actions read"), "\(whole)")
  }

  /// The fixture `name` in Tests/Fixtures/hostile, copied into `workspace` as `as`.
  static func copyHostile(_ name: String, into workspace: Workspace, as copy: String) throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Fixtures/hostile/\(name)")
    try FileManager.default.copyItem(at: fixture, to: URL(fileURLWithPath: workspace.path(copy)))
  }

  /// Damage that only reading every chunk finds (an end record that disagrees with the last
  /// action, a record after the end record): `verify` finds it, and `upgrade` refuses the
  /// trace and writes nothing, in either format. It copied or rewrote them with exit 0,
  /// into traces that read clean.
  @Test(arguments: ["end-sequence-wrong.trace", "end-record-not-last.trace"])
  func upgradeRefusesDamageOnlyReadingFinds(_ name: String) throws {
    let workspace = try Workspace()
    try Self.copyHostile(name, into: workspace, as: "d.trace")
    #expect(try workspace.run("verify d.trace").exitCode == 1)
    for format in ["1", "2"] {
      let upgrade = try workspace.run("upgrade d.trace --output u.trace --trace-format \(format)")
      #expect(upgrade.exitCode == 3, "\(format): \(upgrade)")
      #expect(upgrade.stderr.contains("end record"), "\(format): \(upgrade)")
      #expect(!FileManager.default.fileExists(atPath: workspace.path("u.trace")), "\(format)")
    }
  }

  /// A damaged trace exported and imported again: the lines end before the damage, and their
  /// header says so, and so does `import`. `export` said nothing in the file (its header was
  /// a whole session's) and exited 0, and the imported trace read clean and verified.
  @Test(arguments: Fixtures.traceFormats)
  func anExportOfADamagedTraceSaysSoInItsHeader(format: UInt16) throws {
    let workspace = try Workspace()
    let chunk = try Self.damagedTrace(in: workspace, format: format, as: "d.trace")
    let export = try workspace.run("export d.trace --format jsonl -o d.jsonl")
    #expect(export.exitCode == 1, "\(export)")
    let lines = try String(contentsOfFile: workspace.path("d.jsonl"), encoding: .utf8)
      .split(separator: "\n")
    #expect(lines.count == Int(chunk.firstSequence))  // the header and the intact actions
    let header = try #require(
      try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    #expect((header["damage"] as? String)?.hasPrefix("damaged at offset \(chunk.offset)") == true)
    let imported = try workspace.run("import d.jsonl -o i.trace")
    #expect(imported.exitCode == 0)
    #expect(
      imported.stderr.contains("exported from a damaged trace, so they end before its damage"))
    // The lines themselves say it to every command: not intact, and not whole.
    let verify = try workspace.run("verify d.jsonl")
    #expect(verify.exitCode == 1, "\(verify)")
    #expect(verify.stdout.contains("exported from a damaged trace"), "\(verify)")
    let bisect = try workspace.run("bisect d.jsonl --invariant non-negative-balance --json")
    #expect(bisect.exitCode == 1, "\(bisect)")
    #expect(try bisect.json()["readWhole"] as? Bool == false)
    // JSON Lines hold no hashes: whether the replay reproduces the recording is not known.
    #expect(try bisect.json()["reproduced"] is NSNull)
    // Exported again, they keep saying so.
    let again = try workspace.run("export d.jsonl --format jsonl -o e.jsonl")
    #expect(again.exitCode == 1, "\(again)")
    #expect(
      try String(contentsOfFile: workspace.path("e.jsonl"), encoding: .utf8).contains("\"damage\""))
    // A clean trace's export has no such key, and exits 0.
    let clean = try workspace.run("export clean.trace --format jsonl -o c.jsonl")
    #expect(clean.exitCode == 0)
    #expect(
      !(try String(contentsOfFile: workspace.path("c.jsonl"), encoding: .utf8)).contains(
        "\"damage\""))
  }

  /// An unfinished encrypted session read without its key: its actions are in its
  /// journal, whose records are sealed. `info` said "actions 0; unfinished session: 0
  /// actions recovered from the journal" (exit 0) of a session of 200 actions.
  @Test @MainActor func anUnfinishedEncryptedSessionWithoutItsKeyIsNotCountedAsEmpty() throws {
    let workspace = try Workspace()
    try workspace.run("keygen -o dev")
    let path = workspace.path("enc.trace")
    var configuration = TraceRecorderConfiguration()
    configuration.encryptionKey = try TracePublicKey(contentsOfFile: workspace.path("dev.pub"))
    let recorder = try TraceRecorder(
      path: path, domain: counterDomain, configuration: configuration)
    let store = Store(initialState: counterDomain.initialState, reducer: CounterReducer())
    store.attach(recorder)
    for _ in 0..<200 { store.send(.increment) }
    try recorder.flush()
    // The process "crashes": the trace is left as it is, its journal beside it.
    try FileManager.default.copyItem(atPath: path, toPath: workspace.path("c.trace"))
    try FileManager.default.copyItem(
      atPath: path + ".journal", toPath: workspace.path("c.trace.journal"))
    try recorder.close()

    let text = try workspace.run("info c.trace")
    #expect(!text.stdout.contains("0 actions recovered"), "\(text)")
    #expect(text.stdout.contains("the actions in its journal are not counted"), "\(text)")
    let json = try workspace.run("info c.trace --json").json()
    #expect(json["actions"] is NSNull)
    #expect(json["recoveredActions"] is NSNull)
    let keyed = try workspace.run("info c.trace --json --key dev.key").json()
    #expect(keyed["actions"] as? Int == 200)
  }

  /// A checkpoint of the starting state (sequence 0, which a chunk may hold before its first
  /// action) whose hash does not match: `replay --verify` says the start does not match,
  /// where it trapped computing "the last matching record" before 0. The fixture is the
  /// format-1 counter trace with that record added to its first chunk, resealed.
  @Test func aStartingStateWhoseHashDoesNotMatchIsReportedNotATrap() throws {
    let workspace = try Workspace()
    try Self.copyHostile("start-hash-mismatch.trace", into: workspace, as: "start.trace")
    let result = try workspace.run("replay start.trace --verify")
    #expect(result.exitCode == 1, "\(result)")
    #expect(result.stdout.hasPrefix("DIVERGED start.trace: the checkpoint at 0 does not match"))
    #expect(
      result.stdout.contains(
        "the state the session starts from (after 0) does not match its recorded hash"))
    let json = try workspace.run("replay start.trace --verify --json")
    #expect(json.exitCode == 1)
    #expect(try json.json()["status"] as? String == "diverged")
  }

  /// A session that never closed, whose chunk (its count forged and resealed) fails as it
  /// is read: the warning about the damage is the one line on stderr, not followed by the
  /// note that the session is unfinished.
  @Test func aChunkThatFailsInAnUnfinishedSessionIsOneWarning() throws {
    let workspace = try Workspace()
    let path = workspace.path("crash.trace")
    try Self.crashedSession(count: 200, flush: true, at: path)
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let chunk = try TraceReader(bytes: bytes).chunks.last!
    let h = chunk.offset + 8
    for field in [16, 20, 32] { bytes.setLittleEndian(UInt32(1 << 22), at: h + field) }
    try Data(Self.resealingChunk(bytes, chunk)).write(to: URL(fileURLWithPath: path))
    for command in ["log crash.trace", "log crash.trace --json"] {
      let result = try workspace.run(command)
      let lines = result.stderr.split(separator: "\n")
      #expect(lines.count == 1, "\(command): \(result)")
      #expect(
        lines.first?.contains("using the \(chunk.firstSequence - 1) intact actions") == true,
        "\(command): \(result)")
    }
  }

  /// `bytes` with `extra` appended to chunk `chunk`'s zstd frame, inside the chunk (its
  /// `frameSize` grown to cover it), resealed.
  static func growingChunk(_ bytes: [UInt8], _ chunk: TraceChunk, by extra: [UInt8]) -> [UInt8] {
    let end = chunk.offset + chunk.byteCount
    var grown = Array(bytes[..<end]) + extra + Array(bytes[end...])
    var grownChunk = chunk
    grownChunk.byteCount += extra.count
    grown.setLittleEndian(
      UInt32(grownChunk.byteCount - 8 - TraceFormat.chunkHeaderSize), at: chunk.offset + 8 + 36)
    return resealingChunk(grown, grownChunk)
  }

  @Test(arguments: Fixtures.traceFormats)
  func aFrameTheFormatDoesNotPlaceIsDamageThoughZstdAcceptsIt(format: UInt16) throws {
    let workspace = try Workspace()
    let clean = try Self.chunkedTrace(in: workspace, format: format)
    let chunk = try TraceReader(bytes: clean).chunks[4]
    let end = chunk.offset + chunk.byteCount
    // zstd's empty frame (with its content size and checksum), and a skippable frame.
    let emptyFrame: [UInt8] = [
      0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x00, 0x01, 0x00, 0x00, 0x99, 0xE9, 0xD8, 0x51,
    ]
    let skippable: [UInt8] = [
      0x53, 0x2A, 0x4D, 0x18, 0x04, 0x00, 0x00, 0x00, 0x61, 0x62, 0x63, 0x64,
    ]
    // A chunk of no records, its frame the empty one, where the index was.
    var emptyChunk = [UInt8](repeating: 0, count: 8 + TraceFormat.chunkHeaderSize)
    let last = try TraceReader(bytes: clean).chunks.last!
    emptyChunk.setLittleEndian(TraceFormat.chunkMagic, at: 0)
    emptyChunk.setLittleEndian(UInt32(TraceFormat.chunkHeaderSize), at: 4)
    emptyChunk.setLittleEndian(TraceFormat.chunkTag, at: 8)
    emptyChunk.setLittleEndian(UInt16(1), at: 12)
    emptyChunk.setLittleEndian(last.firstSequence + UInt64(last.actionCount), at: 16)
    emptyChunk.setLittleEndian(UInt32(emptyFrame.count), at: 8 + 36)
    emptyChunk += emptyFrame
    var placed = last
    (placed.offset, placed.byteCount) = (0, emptyChunk.count)
    emptyChunk = Self.resealingChunk(emptyChunk, placed)
    let cases: [(String, [UInt8], String)] = [
      (
        "skippable-between.trace", Array(clean[..<end]) + skippable + Array(clean[end...]),
        "expected a chunk or the index"
      ),
      (
        "zstd-between.trace", Array(clean[..<end]) + emptyFrame + Array(clean[end...]),
        "expected a chunk or the index"
      ),
      (
        "skippable-inside.trace", Self.growingChunk(clean, chunk, by: skippable),
        "more than one frame"
      ),
      ("zstd-inside.trace", Self.growingChunk(clean, chunk, by: emptyFrame), "more than one frame"),
      (
        "empty-chunk.trace", Array(clean[..<(last.offset + last.byteCount)]) + emptyChunk,
        "no records"
      ),
    ]
    // The header's reserved field, resealed: a header the format does not write.
    var reserved = clean
    reserved[14] = 1
    let headerSize = Int(clean[4]) | Int(clean[5]) << 8
    reserved.setLittleEndian(
      CRC32C.checksum(Array(reserved[8..<(8 + headerSize - 4)])), at: 8 + headerSize - 4)
    try Data(reserved).write(to: URL(fileURLWithPath: workspace.path("reserved.trace")))
    let header = try workspace.run("verify reserved.trace")
    #expect(header.exitCode != 0, "\(header)")
    #expect(
      header.stdout.contains("reserved field is not 0")
        || header.stderr.contains("reserved field is not 0"), "\(header)")

    for (name, bytes, problem) in cases {
      try Data(bytes).write(to: URL(fileURLWithPath: workspace.path(name)))
      let verify = try workspace.run("verify \(name)")
      #expect(verify.exitCode == 1, "\(name): \(verify)")
      #expect(verify.stdout.contains(problem), "\(name): \(verify)")
      let replay = try workspace.run("replay \(name) --verify --json")
      #expect(replay.exitCode == 1, "\(name): \(replay)")
      #expect(try replay.json()["status"] as? String == "damaged", "\(name)")
    }
  }

  @Test(arguments: Fixtures.traceFormats)
  func everyIndexFieldIsChecked(format: UInt16) throws {
    let workspace = try Workspace()
    let clean = try Self.chunkedTrace(in: workspace, format: format)
    let trailer = clean.count - TraceFormat.indexTrailerSize
    let count = Int(clean[trailer]) | Int(clean[trailer + 1]) << 8
    let entries = trailer - count * TraceFormat.indexEntrySize
    var baseTime = clean
    baseTime[entries + 2 * TraceFormat.indexEntrySize + 24] ^= 0x01
    var flags = clean
    flags[entries + 2 * TraceFormat.indexEntrySize + 20] ^= 0x01
    var endTime = clean
    endTime[trailer + 16] ^= 0x01
    for (name, bytes, problem) in [
      ("base-time.trace", baseTime, "index entry 2 does not match chunk 2"),
      ("flags.trace", flags, "index entry 2 does not match chunk 2"),
      ("end-time.trace", endTime, "end time"),
    ] {
      try Data(Self.resealingIndex(bytes)).write(to: URL(fileURLWithPath: workspace.path(name)))
      let verify = try workspace.run("verify \(name)")
      #expect(verify.exitCode == 1, "\(name): \(verify)")
      #expect(verify.stdout.contains(problem), "\(name): \(verify)")
      #expect(try workspace.run("replay \(name) --verify").exitCode == 1)
    }
  }

  @Test func aDivergenceIsNamedExactlyWhenBothReducersAreInTheBinary() throws {
    let workspace = try Workspace()
    #expect(try workspace.run("generate banking --actions 1200 --seed 4 -o s.trace").exitCode == 0)
    // The first action after which the two reducers' states differ, found independently.
    let (actions, _) = bankingDomain.generate(count: 1_200, seed: 4)
    var old = bankingDomain.initialState
    var new = old
    var first: Int?
    for (index, action) in actions.enumerated() {
      _ = bankingDomain.reduce(into: &old, action: action)
      _ = bankingWithFeesDomain.reduce(into: &new, action: action)
      if old != new {
        first = index + 1
        break
      }
    }
    let expected = try #require(first)
    let result = try workspace.run("replay s.trace --verify --as banking-with-fees --json")
    #expect(result.exitCode == 1)
    let lockstep = try #require(try result.json()["lockstep"] as? [String: Any])
    #expect(lockstep["sequence"] as? Int == expected)
    #expect(lockstep["against"] as? String == "banking")
    #expect(lockstep["actionCase"] as? String == "addTransaction")
    #expect((lockstep["stateDiff"] as? String)?.contains("Payment fee") == true)
    let text = try workspace.run("replay s.trace --verify --as banking-with-fees")
    #expect(
      text.stdout.contains("the states first differ after action \(expected) (addTransaction)"))
  }
}
