import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

@Suite struct DamageTests {
  /// A finished trace of a few thousand actions in small chunks, its actions, and an
  /// unfinished one with its journal.
  static let fixture:
    (
      trace: [UInt8], actions: [BankingAction], unfinished: [UInt8], journal: [UInt8],
      unfinishedActions: [BankingAction]
    ) = {
      let directory = temporaryDirectory("fixture")
      let clean = try! recordWithoutStore(
        bankingDomain, count: 800, to: directory + "/clean.trace", configuration: smallChunks())
      var configuration = smallChunks()
      configuration.chunkSize = 8_192
      let open = try! recordWithoutStore(
        bankingDomain, count: 400, seed: 3, to: directory + "/open.trace",
        configuration: configuration, close: false)
      let unfinished = bytes(of: directory + "/open.trace")
      let journal = bytes(of: directory + "/open.trace.journal")
      try! open.recorder.close()
      return (
        bytes(of: directory + "/clean.trace"), clean.actions, unfinished, journal, open.actions
      )
    }()

  /// Reads what a damaged copy yields (with `key`, of an encrypted trace); `nil` when the
  /// reader refuses the file outright.
  func actions(_ bytes: [UInt8], journal: [UInt8]? = nil, key: TracePrivateKey? = nil) -> (
    actions: [BankingAction], integrity: TraceIntegrity
  )? {
    guard let reader = try? TraceReader(bytes: bytes, journal: journal, key: key) else {
      return nil
    }
    var actions: [BankingAction] = []
    let trace = try! DomainTrace(reader, domain: bankingDomain)
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

  @Test func truncatingAtEveryOffsetNeverTrapsAndNeverLosesAnEarlierRecord() {
    let (trace, original, _, _, _) = Self.fixture
    let headerEnd = 8 + Int(trace[4]) + Int(trace[5]) << 8
    checkEveryTruncation(trace, original: original, headerEnd: headerEnd)
  }

  @Test func aFileThatIsNotATraceIsNamedByItsFirstBytesInFileOrder() {
    do {
      _ = try TraceReader(bytes: Array("// some Swift".utf8))
      Issue.record("read a text file as a trace")
    } catch {
      #expect(error.message == "not a trace (it starts with 0x2f2f2073, not a Retrace header)")
    }
  }

  @Test func truncatingTheJournalAtEveryOffsetKeepsAPrefix() {
    let (_, _, unfinished, journal, original) = Self.fixture
    // The journal is a fixed-size mapped file; past its last record it is zeros, and
    // truncating there changes nothing, so stop a little after the last nonzero byte.
    let used = (journal.lastIndex { $0 != 0 } ?? 0) + 64
    checkEveryTruncation(
      unfinished, original: original, headerEnd: 0, journal: Array(journal.prefix(used)))
  }

  @Test func aFlippedBitIsReportedNeverAcceptedAsADifferentRecord() {
    let (trace, original, _, _, _) = Self.fixture
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

  @Test func badFilesAreRefusedWithAClearError() throws {
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
    var huge = Self.fixture.trace
    huge.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0x7F])  // a header claiming 2 GiB
    #expect(error(huge)?.code == .corrupted)
    var future = Self.fixture.trace
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

  @Test func aChunkClaimingGigabytesIsRefusedWithoutAllocating() {
    var trace = Self.fixture.trace
    let reader = try! TraceReader(bytes: trace)
    let chunk = reader.chunks[3]
    // Make the chunk claim a 4 GiB frame: the walk stops there, before reading it.
    trace.setLittleEndian(UInt32.max, at: chunk.offset + 8 + 36)
    let damaged = try! TraceReader(bytes: trace)
    #expect(damaged.chunks.count == 3)
    #expect(damaged.integrity.status == .truncated || damaged.integrity.status == .damaged)
    #expect(damaged.integrity.damage?.chunk == 3)
  }

  @Test func aTraceOfAnotherDomainIsRefused() throws {
    let reader = try TraceReader(bytes: Self.fixture.trace)
    #expect(throws: TraceError.self) { try DomainTrace(reader, domain: counterDomain) }
    do {
      _ = try DomainTrace(reader, domain: counterDomain)
    } catch {
      #expect(error.code == .wrongDomain)
      #expect(error.description.contains("banking"))
    }
  }
}
