import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// `TraceTranscoder`: a trace rewritten in the other format holds the same records, in the
/// same chunks, and reads as the same session, whatever it holds.
@Suite("Rewriting a trace in another format")
struct TranscoderTests {
  /// One record as a reader hands it over, copied: what must be the same in both formats.
  struct Record: Equatable {
    var kind: TraceRecord.Kind
    var sequence: UInt64
    var time: Double?
    var hash: StateHash?
    var payload: [UInt8]
  }

  /// Every record of the trace at `path`, in order, journal included.
  static func records(_ path: String, key: TracePrivateKey? = nil) throws -> [Record] {
    let reader = try TraceReader(path: path, key: key)
    var records: [Record] = []
    try reader.forEachRecord { record in
      records.append(
        Record(
          kind: record.kind, sequence: record.sequence, time: record.time, hash: record.hash,
          payload: Array(record.payload)))
      return true
    }
    return records
  }

  /// What the chunk headers of the trace at `path` say, but their sizes and checksums.
  static func chunkFacts(_ path: String, key: TracePrivateKey? = nil) throws -> [ChunkFacts] {
    try TraceReader(path: path, key: key).chunks.map(ChunkFacts.init)
  }

  static func formatOne(
    _ configuration: TraceRecorderConfiguration = smallChunks(reproducible: true)
  )
    -> TraceRecorderConfiguration
  {
    var configuration = configuration
    configuration.formatVersion = 1
    return configuration
  }

  static func bytes(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  @Test("format 1 to 2 keeps every record and chunk, and back to 1 gives the original bytes")
  func formatOneToTwoAndBack() throws {
    let directory = temporaryDirectory()
    let old = directory + "/old.trace"
    _ = try recordWithoutStore(
      bankingDomain, count: 3_000, seed: 7, to: old, configuration: Self.formatOne())
    let new = directory + "/new.trace"
    let summary = try TraceTranscoder.rewrite(old, to: new)
    #expect(summary.fromVersion == 1 && summary.toVersion == 2)
    #expect(!summary.copied && !summary.unfinished)
    let reader = try TraceReader(path: new)
    #expect(reader.formatVersion == 2)
    #expect(reader.integrity.status == .clean)
    #expect(try TraceReader(path: new, usingIndex: true).hasIndex)
    #expect(try Self.chunkFacts(new) == Self.chunkFacts(old))
    #expect(try Self.records(new) == Self.records(old))
    #expect(reader.chunks.count > 10)

    let back = directory + "/back.trace"
    let backSummary = try TraceTranscoder.rewrite(new, to: back, formatVersion: 1)
    #expect(backSummary.fromVersion == 2 && backSummary.toVersion == 1)
    #expect(try Self.bytes(back) == Self.bytes(old))
  }

  @Test("a session upgraded from format 1 is the file the recorder writes in format 2")
  func upgradedIsWhatTheRecorderWrites() throws {
    let directory = temporaryDirectory()
    _ = try recordWithoutStore(
      bankingDomain, count: 2_000, seed: 9, to: directory + "/one.trace",
      configuration: Self.formatOne())
    _ = try recordWithoutStore(
      bankingDomain, count: 2_000, seed: 9, to: directory + "/two.trace",
      configuration: smallChunks(reproducible: true))
    _ = try TraceTranscoder.rewrite(directory + "/one.trace", to: directory + "/upgraded.trace")
    #expect(try Self.bytes(directory + "/upgraded.trace") == Self.bytes(directory + "/two.trace"))
  }

  @Test("a closed trace already in the format asked for is copied byte for byte")
  func sameFormatIsACopy() throws {
    let directory = temporaryDirectory()
    _ = try recordWithoutStore(
      counterDomain, count: 500, to: directory + "/two.trace",
      configuration: smallChunks(reproducible: true))
    let summary = try TraceTranscoder.rewrite(
      directory + "/two.trace", to: directory + "/copy.trace")
    #expect(summary.copied)
    #expect(try Self.bytes(directory + "/copy.trace") == Self.bytes(directory + "/two.trace"))
  }

  @Test("jumps are kept: the same chunks flagged, the same states", arguments: [1, 2] as [UInt16])
  @MainActor
  func jumps(_ target: UInt16) throws {
    let directory = temporaryDirectory()
    let old = directory + "/jump.trace"
    let (states, _) = try JumpTests.recordSession(
      to: old, configuration: Self.formatOne(smallChunks()))
    // Format 1 to 2, and that back to 1.
    var source = old
    if target == 1 {
      source = directory + "/jump-2.trace"
      _ = try TraceTranscoder.rewrite(old, to: source)
    }
    let new = directory + "/new.trace"
    _ = try TraceTranscoder.rewrite(source, to: new, formatVersion: target)
    let reader = try TraceReader(path: new)
    #expect(reader.integrity.status == .clean)
    #expect(reader.jumpSequences == [200])
    #expect(try Self.chunkFacts(new) == Self.chunkFacts(old))
    #expect(try Self.records(new) == Self.records(old))
    let trace = try TraceSession(reader, domain: bankingDomain)
    for sequence in [0, 120, 199, 200, 201, 300] {
      #expect(try trace.state(at: UInt64(sequence)) == states[sequence], "state at \(sequence)")
    }
  }

  @Test("a redacted trace is copied as it is: its records, hashes and snapshots")
  func redacted() throws {
    let directory = temporaryDirectory()
    var configuration = Self.formatOne()
    configuration.redactionKey = RedactionKey.random()
    let old = directory + "/redacted.trace"
    _ = try recordWithoutStore(
      bankingDomain, count: 2_000, seed: 33, to: old, configuration: configuration)
    let new = directory + "/new.trace"
    _ = try TraceTranscoder.rewrite(old, to: new)
    #expect(try TraceReader(path: new).integrity.status == .clean)
    #expect(try Self.records(new) == Self.records(old))
  }

  @Test("an encrypted trace needs its key, and is sealed again to it with a new encapsulated key")
  func encrypted() throws {
    let directory = temporaryDirectory()
    let key = TracePrivateKey.generate()
    var configuration = Self.formatOne()
    configuration.encryptionKey = key.publicKey
    let old = directory + "/sealed.trace"
    _ = try recordWithoutStore(
      bankingDomain, count: 1_500, seed: 4, to: old, configuration: configuration)
    let new = directory + "/new.trace"
    #expect {
      try TraceTranscoder.rewrite(old, to: new)
    } throws: { ($0 as? TraceError)?.isKeyNeeded == true }
    #expect {
      try TraceTranscoder.rewrite(old, to: new, key: TracePrivateKey.generate())
    } throws: { ($0 as? TraceError)?.code == .encrypted }

    let summary = try TraceTranscoder.rewrite(old, to: new, key: key)
    #expect(summary.encrypted)
    let reader = try TraceReader(path: new, key: key)
    #expect(reader.integrity.status == .clean && reader.formatVersion == 2)
    let before = try TraceReader(path: old).header.encryption
    let after = try #require(reader.header.encryption)
    #expect(after.keyID == key.publicKey.id)
    #expect(after.encapsulatedKey != before?.encapsulatedKey)
    #expect(try Self.records(new, key: key) == Self.records(old, key: key))
    // Its chunks are sealed: without the key, nothing but the framing reads.
    #expect(!(try TraceReader(path: new)).canReadRecords)
  }

  @Test(
    "an unfinished trace stays unfinished: its journal's records last, and an empty journal",
    arguments: [false, true])
  func unfinished(encrypted: Bool) throws {
    let directory = temporaryDirectory()
    var configuration = Self.formatOne(smallChunks(reproducible: true))
    configuration.chunkSize = 1 << 20
    let key = encrypted ? TracePrivateKey.generate() : nil
    configuration.encryptionKey = key?.publicKey
    let old = directory + "/crashed.trace"
    let (_, _, recorder) = try recordWithoutStore(
      bankingDomain, count: 700, seed: 2, to: old, configuration: configuration, close: false)
    defer { try? recorder.close() }
    let before = try TraceReader(path: old, key: key)
    #expect(before.integrity.status == .unfinished)
    let recovered = before.integrity.recoveredActions
    #expect(recovered > 100)

    let new = directory + "/new.trace"
    let summary = try TraceTranscoder.rewrite(old, to: new, key: key)
    #expect(summary.unfinished && summary.recoveredActions == recovered)
    #expect(summary.encrypted == encrypted)
    let reader = try TraceReader(path: new, key: key)
    #expect(reader.formatVersion == 2)
    #expect(!reader.hasIndex && reader.isUnfinished)
    #expect(reader.integrity.status == .unfinished)
    #expect(reader.integrity.recoveredActions == 0)
    #expect(reader.chunks.count == before.chunks.count + 1)
    #expect(reader.lastSequence == 700)
    #expect(try Self.records(new, key: key) == Self.records(old, key: key))
    // The empty journal beside it is what keeps it from being damage.
    #expect(FileManager.default.fileExists(atPath: new + ".journal"))
    try FileManager.default.removeItem(atPath: new + ".journal")
    #expect(try TraceReader(path: new, key: key).journalIsMissing)

    // And back to format 1: the same records, still unfinished.
    _ = try TraceTranscoder.rewrite(old, to: new, key: key)
    let back = directory + "/back.trace"
    _ = try TraceTranscoder.rewrite(new, to: back, formatVersion: 1, key: key)
    #expect(try TraceReader(path: back, key: key).integrity.status == .unfinished)
    #expect(try Self.records(back, key: key) == Self.records(old, key: key))
  }

  @Test("a damaged trace is refused with where and why, and nothing is written")
  func damaged() throws {
    let directory = temporaryDirectory()
    let old = directory + "/old.trace"
    _ = try recordWithoutStore(
      counterDomain, count: 800, to: old, configuration: Self.formatOne())
    var bytes = try Self.bytes(old)
    let chunk = try TraceReader(path: old).chunks[2]
    bytes[chunk.offset + 70] ^= 0xFF
    try Data(bytes).write(to: URL(fileURLWithPath: old))
    let new = directory + "/new.trace"
    #expect {
      try TraceTranscoder.rewrite(old, to: new)
    } throws: { error in
      guard let error = error as? TraceError else { return false }
      return error.path == old && error.offset != nil && error.chunk == 2
    }
    #expect(!FileManager.default.fileExists(atPath: new))
  }

  @Test("a format-1 chunk transposed and turned back is the same bytes")
  func chunkContentRoundTrip() throws {
    let directory = temporaryDirectory()
    let path = directory + "/one.trace"
    _ = try recordWithoutStore(
      settingsDomain, count: 1_000, to: path, configuration: Self.formatOne())
    let reader = try TraceReader(path: path)
    var checked = 0
    try reader.forEachChunkContent { chunk, content, lastTime throws(TraceError) in
      var columns: [UInt8] = []
      var records: [UInt8] = []
      do throws(ActionColumnsError) {
        try ChunkContent.columns(fromRecords: content, into: &columns)
        let last = try columns.withBytes { columns throws(ActionColumnsError) in
          try ChunkContent.records(fromColumns: columns, ChunkFacts(chunk), into: &records)
        }
        #expect(last == lastTime, "chunk \(chunk.index)")
      } catch {
        Issue.record("chunk \(chunk.index): \(error.reason)")
      }
      #expect(records == Array(content), "chunk \(chunk.index)")
      checked += 1
    }
    #expect(checked == reader.chunks.count)
  }
}
