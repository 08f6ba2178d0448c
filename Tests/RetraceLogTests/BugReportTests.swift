import Foundation
import Retrace
import RetraceExamples
import Synchronization
import Testing

@testable import RetraceLog

/// Bug reports: a session directory's last sessions, the live one up to now, in one file,
/// encrypted as configured and within the app's size budget.
@Suite struct BugReportTests {
  static let key = TracePrivateKey.generate()

  /// Records `count` banking actions into `directory` as a session starting at `start`,
  /// encrypted to `key`; closes it unless `close` is false (then it is flushed, as a live
  /// session is when the app makes a report).
  static func session(
    in directory: SessionDirectory, start: Double, count: Int, seed: UInt64,
    key: TracePublicKey?, close: Bool = true
  ) throws -> (actions: [BankingAction], recorder: TraceRecorder<BankingState, BankingAction>) {
    var configuration = smallChunks(reproducible: true)
    configuration.encryptionKey = key
    let recorder = try directory.startSession(
      domain: bankingDomain, startTime: start, configuration: configuration)
    let fed = try feed(
      recorder, bankingDomain, count: count, seed: seed, start: start, close: close)
    return (fed.actions, recorder)
  }

  @Test func aReportHoldsTheLiveSessionUpToNowNewestFirst() throws {
    let directory = try SessionDirectory(path: temporaryDirectory())
    let older = try Self.session(
      in: directory, start: 1_763_771_000, count: 500, seed: 1, key: Self.key.publicKey)
    let live = try Self.session(
      in: directory, start: 1_763_781_000, count: 300, seed: 2, key: Self.key.publicKey,
      close: false)
    defer { try? live.recorder.close() }
    let report = try directory.makeReport(
      BugReport.Options(
        lastSessions: 2, note: "the balance went negative", app: ["version": "2.4.1"],
        encryptTo: Self.key.publicKey))
    #expect(report.entries.map(\.sessionID).count == 2)
    #expect(report.omitted.isEmpty && report.isComplete)
    #expect(report.app == ["version": "2.4.1"])
    // The live session, up to its last action, from its chunks and its journal.
    let (trace, journal) = report.trace(at: 0)
    #expect(report.entries[0].journalBytes > 0 && journal != nil)
    let reader = try TraceReader(bytes: trace, journal: journal, key: Self.key)
    #expect(reader.integrity.status == .unfinished)
    #expect(try readActions(bankingDomain, reader) == live.actions)
    let older0 = report.trace(at: 1)
    let olderReader = try TraceReader(bytes: older0.trace, key: Self.key)
    #expect(olderReader.integrity.status == .clean)
    #expect(try readActions(bankingDomain, olderReader) == older.actions)
    // The file round-trips through its bytes.
    let again = try BugReport(bytes: report.bytes)
    #expect(again.entries == report.entries)
    #expect(try again.note(key: Self.key) == "the balance went negative")
  }

  @Test func theNoteIsEncryptedAndTracesNotForTheKeyAreLeftOut() throws {
    let directory = try SessionDirectory(path: temporaryDirectory())
    _ = try Self.session(in: directory, start: 1_763_771_000, count: 100, seed: 1, key: nil)
    let other = TracePrivateKey.generate()
    _ = try Self.session(
      in: directory, start: 1_763_772_000, count: 100, seed: 2, key: other.publicKey)
    _ = try Self.session(
      in: directory, start: 1_763_773_000, count: 100, seed: 3, key: Self.key.publicKey)
    let note = "I moved money between my accounts and it went negative"
    let report = try directory.makeReport(
      BugReport.Options(lastSessions: 10, note: note, encryptTo: Self.key.publicKey))
    #expect(report.entries.count == 1)
    #expect(report.omitted.count == 2)
    #expect(report.omitted.allSatisfy { $0.reason.contains("the report is for key") })
    #expect(!RedactionTests.contains(report.bytes, "moved money"))
    #expect(try report.note(key: nil) == nil)
    #expect(try report.note(key: Self.key) == note)
    #expect(throws: TraceError.self) { try report.note(key: other) }
    // Without a key for the report, every trace goes in as it is, and the note in clear.
    let open = try directory.makeReport(BugReport.Options(lastSessions: 10, note: note))
    #expect(open.entries.count == 3)
    #expect(try open.note(key: nil) == note)
  }

  @Test func sessionsOverTheBudgetAreLeftOutAndSaidSo() throws {
    let directory = try SessionDirectory(path: temporaryDirectory())
    _ = try Self.session(in: directory, start: 1_763_771_000, count: 100, seed: 1, key: nil)
    _ = try Self.session(in: directory, start: 1_763_772_000, count: 3_000, seed: 2, key: nil)
    let sizes = try directory.sessions().map(\.byteCount)
    let report = try directory.makeReport(
      BugReport.Options(lastSessions: 2, maxBytes: 4_096 + sizes[0] + 100))
    #expect(report.entries.count == 1)
    #expect(report.omitted.count == 1)
    #expect(report.omitted[0].reason.hasSuffix("over the size budget"))
    #expect(report.bytes.count <= 4_096 + sizes[0] + 100)
  }

  @Test func aDamagedOrCutReportIsRefusedOrReadAsFarAsItGoes() throws {
    let directory = try SessionDirectory(path: temporaryDirectory())
    let session = try Self.session(
      in: directory, start: 1_763_771_000, count: 400, seed: 4, key: Self.key.publicKey)
    let report = try directory.makeReport(BugReport.Options(note: "x"))
    var damaged = report.bytes
    damaged[20] ^= 0x10
    #expect(throws: TraceError.self) { try BugReport(bytes: damaged) }
    #expect(throws: TraceError.self) { try BugReport(bytes: Array("not a report".utf8)) }
    // A note too large for any report is refused by what it is.
    do {
      _ = try directory.makeReport(
        BugReport.Options(note: String(repeating: "x", count: 2 << 20)))
      Issue.record("a 2 MiB note was accepted")
    } catch {
      #expect(error.code == .tooLarge && error.message.contains("more than"))
    }
    // Cut at every offset: refused while the manifest is incomplete, then a trace prefix.
    let manifestEnd = report.bytes.count - report.entries[0].traceBytes
    var previous = 0
    for length in stride(from: 0, through: report.bytes.count, by: 7) {
      guard let cut = try? BugReport(bytes: Array(report.bytes.prefix(length))) else {
        #expect(length < manifestEnd, "refused at \(length)")
        continue
      }
      #expect(cut.isComplete == (length == report.bytes.count))
      guard let reader = try? TraceReader(bytes: cut.trace(at: 0).trace, key: Self.key) else {
        continue
      }
      let read = try readActions(bankingDomain, reader)
      #expect(read.count >= previous)
      #expect(Array(session.actions.prefix(read.count)) == read)
      previous = read.count
    }
  }

  @Test func theAppSendsTheReportWithItsOwnTransport() async throws {
    final class Collector: BugReportTransport {
      let sent = Mutex<[[UInt8]]>([])
      func send(_ report: BugReport) async throws { sent.withLock { $0.append(report.bytes) } }
    }
    let directory = try SessionDirectory(path: temporaryDirectory())
    _ = try Self.session(in: directory, start: 1_763_771_000, count: 50, seed: 1, key: nil)
    let collector = Collector()
    let report = try await directory.sendReport(BugReport.Options(), via: collector)
    #expect(collector.sent.withLock { $0 } == [report.bytes])
  }
}
