import Foundation
import Retrace
import RetraceExamples
import Synchronization
import Testing

@testable import RetraceLog

@Suite struct DamageTests {
  typealias Fixture = (
    trace: [UInt8], actions: [BankingAction], unfinished: [UInt8], journal: [UInt8],
    unfinishedActions: [BankingAction]
  )

  /// For each trace format: a finished trace of a few thousand actions in small chunks, its
  /// actions, and an unfinished one with its journal.
  static let fixtures: [UInt16: Fixture] = Dictionary(
    uniqueKeysWithValues: traceFormats.map { format in
      let directory = temporaryDirectory("fixture\(format)")
      let clean = try! recordWithoutStore(
        bankingDomain, count: 800, to: directory + "/clean.trace",
        configuration: smallChunks(format: format))
      var configuration = smallChunks(format: format)
      configuration.chunkSize = 8_192
      let open = try! recordWithoutStore(
        bankingDomain, count: 400, seed: 3, to: directory + "/open.trace",
        configuration: configuration, close: false)
      let unfinished = bytes(of: directory + "/open.trace")
      let journal = bytes(of: directory + "/open.trace.journal")
      try! open.recorder.close()
      return (
        format,
        (bytes(of: directory + "/clean.trace"), clean.actions, unfinished, journal, open.actions)
      )
    })

  /// The fixture of trace format `format`.
  static func fixture(_ format: UInt16) -> Fixture {
    let fixture = fixtures[format]!
    #expect(fixture.trace[12] == format, "the fixture is not in format \(format)")
    return fixture
  }

  /// Reads what a damaged copy yields (with `key`, of an encrypted trace); `nil` when the
  /// reader refuses the file outright.
  func actions(_ bytes: [UInt8], journal: [UInt8]? = nil, key: TracePrivateKey? = nil) -> (
    actions: [BankingAction], integrity: TraceIntegrity
  )? {
    guard let reader = try? TraceReader(bytes: bytes, journal: journal, key: key) else {
      return nil
    }
    var actions: [BankingAction] = []
    let trace = try! TraceSession(reader, domain: bankingDomain)
    do {
      try trace.forEachAction {
        actions.append($0.action)
        return true
      }
    } catch {
      Issue.record("a chunk that passed its checksum failed to decode: \(error)")
    }
    return (actions, reader.integrity)
  }

  /// Checks every truncation of `bytes` (or of the journal): no trap, the records read never
  /// decrease as the length grows, and every record read equals the original. Damage is
  /// detected per chunk (or per journal record), so the records read depend only on how
  /// many actions the reader counts; each distinct count is decoded once.
  func checkEveryTruncation(
    _ bytes: [UInt8], original: [BankingAction], headerEnd: Int, journal: [UInt8]? = nil,
    key: TracePrivateKey? = nil
  ) {
    var previous = 0
    var checked: Set<Int> = []
    let total = journal?.count ?? bytes.count
    for length in 0...total {
      let trace = journal == nil ? Array(bytes[0..<length]) : bytes
      let journalPrefix = journal.map { Array($0[0..<length]) }
      guard let reader = try? TraceReader(bytes: trace, journal: journalPrefix, key: key) else {
        #expect(
          journal == nil && length < headerEnd,
          "refused a truncation at \(length), after the header")
        continue
      }
      let count = reader.actionCount
      #expect(count >= previous, "fewer records at \(length)")
      // A journal cut anywhere after its header ends as a crash leaves it: no damage.
      if let journalPrefix, journalPrefix.count >= 32 {
        #expect(reader.integrity.status == .unfinished, "\(reader.integrity) at \(length)")
      }
      if length < total, journal == nil { #expect(reader.integrity.status != .clean) }
      if checked.insert(count).inserted {
        let read = actions(trace, journal: journalPrefix, key: key)!.actions
        #expect(read.count == count)
        #expect(Array(original.prefix(read.count)) == read, "different records at \(length)")
      }
      previous = count
    }
    #expect(previous == original.count)
  }

  @Test(arguments: traceFormats)
  func truncatingAtEveryOffsetNeverTrapsAndNeverLosesAnEarlierRecord(format: UInt16) {
    let (trace, original, _, _, _) = Self.fixture(format)
    let headerEnd = 8 + Int(trace[4]) + Int(trace[5]) << 8
    checkEveryTruncation(trace, original: original, headerEnd: headerEnd)
  }

  /// The offsets of the records of the journal's current salt, up to its end mark.
  static func recordOffsets(_ journal: [UInt8]) -> [Int] {
    var offsets: [Int] = []
    var offset = 32
    while offset + 8 <= journal.count {
      let length = journal[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
      if length == 0 { break }
      offsets.append(offset)
      offset += 8 + length
    }
    return offsets
  }

  @Test(arguments: traceFormats)
  func bytesFlippedInTheMiddleOfTheJournalAreDamageNotItsEnd(format: UInt16) throws {
    let (_, _, unfinished, journal, original) = Self.fixture(format)
    let whole = try TraceReader(bytes: unfinished, journal: journal)
    #expect(whole.integrity.status == .unfinished)
    let records = Self.recordOffsets(journal)
    #expect(records.count >= 4 && whole.integrity.recoveredActions >= 3)
    let middle = records[records.count / 2]
    var flipped = journal
    for i in (middle + 10)..<(middle + 18) { flipped[i] ^= 0xFF }
    let read = try #require(actions(unfinished, journal: flipped))
    #expect(read.integrity.status == .damaged)
    #expect(read.integrity.isInJournal)
    let damage = try #require(read.integrity.damage)
    #expect(damage.path == "<memory>.journal")
    #expect(damage.offset == middle)
    #expect(damage.sequence == UInt64(read.actions.count) + 1)
    #expect(
      "\(read.integrity)".hasPrefix("damaged at <memory>.journal: offset \(middle) (sequence "))
    // Every record before the damage, and none after it.
    #expect(read.actions.count < whole.actionCount)
    #expect(Array(original.prefix(read.actions.count)) == read.actions)
    // A record's length flipped to 0, the end mark, with intact records after it: damage too.
    var ended = journal
    for i in middle..<(middle + 4) { ended[i] = 0 }
    #expect(try TraceReader(bytes: unfinished, journal: ended).integrity.status == .damaged)
    // A damaged header: the journal's records are all lost.
    var header = journal
    header[9] ^= 0x01
    let headerDamage = try TraceReader(bytes: unfinished, journal: header).integrity
    #expect(headerDamage.status == .damaged && headerDamage.damage?.offset == 28)
  }

  /// `journal` with a record of `payload` (sealed with the journal's salt) inserted at
  /// `offset`.
  static func inserting(_ payload: [UInt8], at offset: Int, into journal: [UInt8]) -> [UInt8] {
    var record: [UInt8] = []
    record.appendLittleEndian(UInt32(payload.count))
    record.appendLittleEndian(CRC32C.checksum(Array(journal[8..<12]) + payload))
    return Array(journal[..<offset]) + record + payload + Array(journal[offset...])
  }

  /// Journal records that pass their checksums and are still wrong are damage, not the
  /// journal's end or something to skip: an action that comes again (a different one for
  /// a sequence number already given, or the same one), a checkpoint of an earlier action,
  /// and a header of zeros with records after it. All three were read as an unfinished
  /// session, the record skipped (a forged action for a repeated sequence number replayed
  /// instead of the true one when it came first) or the records lost without a word.
  @Test(arguments: traceFormats)
  func journalRecordsThatAreWrongAreDamage(format: UInt16) throws {
    let (_, _, unfinished, journal, _) = Self.fixture(format)
    let whole = try TraceReader(bytes: unfinished, journal: journal)
    #expect(whole.integrity.status == .unfinished)
    let records = Self.recordOffsets(journal) + [Self.recordOffsets(journal).last!]
    // The action records (`[0, seq, t, action]`), each with the offset of the record after it.
    let actionRecords = zip(records, records.dropFirst()).filter { offset, _ in
      journal[offset + 8] == 0x84 && journal[offset + 9] == 0x00
    }
    try #require(actionRecords.count >= 3)
    let (first, afterFirst) = actionRecords[0]
    let payload = Array(journal[(first + 8)..<afterFirst])
    // The first record again, after itself.
    let repeated = try TraceReader(
      bytes: unfinished, journal: Self.inserting(payload, at: afterFirst, into: journal)
    ).integrity
    #expect(repeated.status == .damaged, "\(repeated)")
    #expect(repeated.damage?.offset == afterFirst)
    #expect(repeated.damage?.message.contains("comes again") == true, "\(repeated)")
    // A checkpoint of the first recovered action, after the second action.
    let third = actionRecords[1].1
    var checkpoint: [UInt8] = [0x83, 0x02]
    // The first action's sequence number, as its record holds it (a CBOR unsigned).
    let head = payload[2]
    let width = head < 0x18 ? 0 : 1 << Int(head - 0x18)
    checkpoint += payload[2..<(3 + width)]
    checkpoint += [0x18, 123]
    let backward = try TraceReader(
      bytes: unfinished, journal: Self.inserting(checkpoint, at: third, into: journal)
    ).integrity
    #expect(backward.status == .damaged, "\(backward)")
    #expect(backward.damage?.offset == third)
    // A checkpoint of an action the chunks hold (0), after recovered actions: damage too,
    // not skipped as the chunks' own.
    let chunkHeld = try TraceReader(
      bytes: unfinished,
      journal: Self.inserting([0x83, 0x02, 0x00, 0x18, 123], at: third, into: journal)
    ).integrity
    #expect(chunkHeld.status == .damaged, "\(chunkHeld)")
    #expect(chunkHeld.damage?.offset == third)
    // The header zeroed: the records after it are lost, and that is said.
    var zeroed = journal
    for i in 0..<32 { zeroed[i] = 0 }
    let lost = try TraceReader(bytes: unfinished, journal: zeroed).integrity
    #expect(lost.status == .damaged, "\(lost)")
    #expect(lost.damage?.offset == 0)
    // A journal of zeros alone is one never written: nothing, and no damage.
    let fresh = try TraceReader(
      bytes: unfinished, journal: [UInt8](repeating: 0, count: journal.count)
    ).integrity
    #expect(fresh.status == .unfinished)
  }

  /// A journal beside a trace it was not written for (another session's, put there by a
  /// copy) is damage: it was read as this session's, its actions replayed as this
  /// session's and its times moved to this session's start. A journal written before
  /// journals were tied to their traces (0 in its header) is still read.
  @Test(arguments: traceFormats)
  func anotherSessionsJournalIsDamage(format: UInt16) throws {
    let (_, _, unfinished, journal, original) = Self.fixture(format)
    let directory = temporaryDirectory("anotherSessionsJournal-\(format)")
    var configuration = smallChunks(format: format)
    configuration.chunkSize = 8_192
    let recorder = try TraceRecorder(
      path: directory + "/other.trace", domain: bankingDomain, sessionID: "another-session",
      startTime: 1_763_771_000, configuration: configuration)
    _ = try feed(recorder, bankingDomain, count: 400, seed: 3, close: false)
    let otherJournal = bytes(of: directory + "/other.trace.journal")
    try recorder.close()
    // The same actions at the same times: only the header's session ID tells them apart.
    let swapped = try TraceReader(bytes: unfinished, journal: otherJournal).integrity
    #expect(swapped.status == .damaged, "\(swapped)")
    #expect(swapped.damage?.offset == 6)
    #expect(swapped.damage?.message.hasPrefix("the journal is another session's") == true)
    // Its own journal is read, and so is one without a binding.
    #expect(try TraceReader(bytes: unfinished, journal: journal).integrity.status == .unfinished)
    var legacy = journal
    legacy[6] = 0
    legacy[7] = 0
    legacy.setLittleEndian(CRC32C.checksum(Array(legacy[0..<28])), at: 28)
    let read = try #require(actions(unfinished, journal: legacy))
    #expect(read.integrity.status == .unfinished)
    #expect(read.actions == original)
  }

  /// A session read while it is recorded: the trace and its journal change under the
  /// reader (a record torn as its page is copied, a chunk written and the journal reset
  /// between the two files, the journal removed by the close), which must not read as damage.
  @Test func aSessionReadWhileItIsRecordedIsNeverDamaged() throws {
    let path = temporaryDirectory() + "/recording.trace"
    let recorder = try TraceRecorder(
      path: path, domain: bankingDomain, sessionID: "s", startTime: 1_763_771_000,
      configuration: smallChunks())
    let stop = StopFlag()
    let stopped = DispatchSemaphore(value: 0)
    Thread {
      var state = bankingDomain.initialState
      recorder.attached(sequence: 0, state: state)
      var random = SeededRandom(seed: 9)
      var step = 0
      while !stop.value.withLock({ $0 }) {
        let action = bankingDomain.workload!.next(state, step, &random)
        _ = bankingDomain.reduce(into: &state, action: action)
        step += 1
        recorder.record(
          Transition(
            sequence: UInt64(step), time: 1_763_771_000 + Double(step), action: action,
            stateBefore: nil, stateAfter: state))
        // About 10,000 actions a second in chunks of about 20: a reset every 2 ms.
        if step % 20 == 0 { usleep(2_000) }
      }
      stopped.signal()
    }.start()
    var reads = 0
    while reads < 200 {
      if let reader = try? TraceReader(path: path) {
        // Never damage. A chunk whose last bytes have not landed yet reads as `truncated`
        // for that moment (on a machine busy with a whole test suite, about one read in 200).
        let status = reader.integrity.status
        #expect(status == .unfinished || status == .truncated, "\(reader.integrity)")
        reads += 1
      }
    }
    #expect(recorder.droppedActionCount == 0)
    stop.value.withLock { $0 = true }
    stopped.wait()
    try recorder.close()
    #expect(try TraceReader(path: path).integrity.status == .clean)
  }

  @Test(arguments: traceFormats)
  func aCrashedTraceWithoutItsJournalSaysTheJournalIsMissing(format: UInt16) throws {
    let path = temporaryDirectory() + "/copy.trace"
    try Data(Self.fixture(format).unfinished).write(to: URL(fileURLWithPath: path))
    let reader = try TraceReader(path: path)
    #expect(reader.integrity.status == .damaged)
    #expect(reader.journalIsMissing)
    #expect(reader.integrity.damage?.path == path + ".journal")
    #expect("\(reader.integrity)".contains("copy.trace.journal: missing"))
    #expect(reader.integrityReport.file == path + ".journal")
    // Not looked for, it is not missing; beside the trace, it is read.
    #expect(try TraceReader(path: path, readJournal: false).integrity.status == .unfinished)
    try Data(Self.fixture(format).journal).write(to: URL(fileURLWithPath: path + ".journal"))
    #expect(try TraceReader(path: path).integrity.status == .unfinished)
  }

  @Test func aFileThatIsNotATraceIsNamedByItsFirstBytesInFileOrder() {
    do {
      _ = try TraceReader(bytes: Array("// some Swift".utf8))
      Issue.record("read a text file as a trace")
    } catch {
      #expect(error.message == "not a trace (it starts with 0x2f2f2073, not a Retrace header)")
    }
  }

  @Test(arguments: traceFormats)
  func truncatingTheJournalAtEveryOffsetKeepsAPrefix(format: UInt16) {
    let (_, _, unfinished, journal, original) = Self.fixture(format)
    // The journal is a fixed-size mapped file; past its last record it is zeros, and
    // truncating there changes nothing, so stop a little after the last nonzero byte.
    let used = (journal.lastIndex { $0 != 0 } ?? 0) + 64
    checkEveryTruncation(
      unfinished, original: original, headerEnd: 0, journal: Array(journal.prefix(used)))
  }

  @Test(arguments: traceFormats)
  func aFlippedBitIsReportedNeverAcceptedAsADifferentRecord(format: UInt16) {
    let (trace, original, _, _, _) = Self.fixture(format)
    var random = SeededRandom(seed: 99)
    for _ in 0..<600 {
      var damaged = trace
      let position = Int.random(in: 0..<damaged.count, using: &random)
      damaged[position] ^= 1 << UInt8.random(in: 0..<8, using: &random)
      guard let result = actions(damaged) else { continue }
      #expect(
        Array(original.prefix(result.actions.count)) == result.actions, "bit flip at \(position)")
      if result.actions.count == original.count {
        // The flip hit no record: then it hit the index (reported) or nothing that matters.
        #expect(result.integrity.status != .clean || damaged[position] == trace[position])
      } else {
        #expect(result.integrity.status == .damaged || result.integrity.status == .truncated)
        #expect(result.integrity.damage?.offset != nil)
      }
    }
  }

  @Test(arguments: traceFormats)
  func badFilesAreRefusedWithAClearError(format: UInt16) throws {
    let directory = temporaryDirectory()
    func error(_ bytes: [UInt8]) -> TraceError? {
      let path = directory + "/bad.trace"
      _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
      do {
        _ = try TraceReader(path: path)
        return nil
      } catch {
        return error
      }
    }
    #expect(error([])?.code == .notATrace)
    #expect(error(Array("hello, world\n".utf8))?.code == .notATrace)
    #expect(error([0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0, 0])?.description.contains("zstd file") == true)
    var huge = Self.fixture(format).trace
    huge.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0x7F])  // a header claiming 2 GiB
    #expect(error(huge)?.code == .corrupted)
    var future = Self.fixture(format).trace
    future[12] = 9  // format version 9
    let futureError = error(future)
    #expect(futureError?.code == .unsupportedVersion || futureError?.code == .corrupted)
    do {
      _ = try TraceReader(path: directory + "/missing.trace")
      Issue.record("a missing file was read")
    } catch {
      #expect(error.code == .notFound)
      #expect(error.description.hasPrefix(directory + "/missing.trace: "))
    }
  }

  @Test(arguments: traceFormats)
  func aChunkClaimingGigabytesIsRefusedWithoutAllocating(format: UInt16) {
    var trace = Self.fixture(format).trace
    let reader = try! TraceReader(bytes: trace)
    let chunk = reader.chunks[3]
    // Make the chunk claim a 4 GiB frame: the walk stops there, before reading it.
    trace.setLittleEndian(UInt32.max, at: chunk.offset + 8 + 36)
    let damaged = try! TraceReader(bytes: trace)
    #expect(damaged.chunks.count == 3)
    #expect(damaged.integrity.status == .truncated || damaged.integrity.status == .damaged)
    #expect(damaged.integrity.damage?.chunk == 3)
  }

  @Test(arguments: traceFormats)
  func aTraceOfAnotherDomainIsRefused(format: UInt16) throws {
    let reader = try TraceReader(bytes: Self.fixture(format).trace)
    #expect(throws: TraceError.self) { try TraceSession(reader, domain: counterDomain) }
    do {
      _ = try TraceSession(reader, domain: counterDomain)
    } catch {
      #expect(error.code == .wrongDomain)
      #expect(error.description.contains("banking"))
    }
  }
}

/// A flag one thread sets and another reads.
private final class StopFlag: Sendable {
  let value = Mutex(false)
}
