import Crypto
import Retrace

/// Rewrites a trace in another format version (docs/TRACE_FORMAT.md, 7) without decoding an
/// action or knowing its domain: what `retrace upgrade` does, so that traces of any domain,
/// kept for years, can move to the current format.
///
/// The new trace has the old one's header map (with the new format version), the same
/// chunks with the same flags, first sequence numbers, base times, checkpoints, snapshots
/// and jumps, the same end record and, when the old one has one, an index; only each chunk's
/// content is re-encoded. An unfinished trace (its session never closed) stays unfinished:
/// the records recovered from its journal become its last chunk, it gets no index, and an
/// empty journal is written beside it (`OUTPUT.journal`). An encrypted trace is read with
/// its private key and sealed again to the same public key, with a fresh encapsulated key.
///
/// ```swift
/// let summary = try TraceTranscoder.rewrite("old.trace", to: "new.trace")
/// print(summary.fromVersion, summary.toVersion)  // 1 2
/// ```
public enum TraceTranscoder {
  /// What ``rewrite(_:to:formatVersion:key:compressionLevel:progress:)`` did.
  public struct Summary: Equatable, Sendable {
    /// The format version of the trace read.
    public var fromVersion: UInt16
    /// The format version of the trace written.
    public var toVersion: UInt16
    /// The chunks written.
    public var chunks: Int
    /// The actions written, those recovered from the journal included.
    public var actions: Int
    /// The actions recovered from the old trace's journal, written as the last chunk.
    public var recoveredActions: Int
    /// Whether the trace is unfinished (written without an index, with an empty journal).
    public var unfinished: Bool
    /// Whether the trace is encrypted (and was sealed again to the same key).
    public var encrypted: Bool
    /// Whether the trace was already of ``toVersion`` and closed, and was copied byte for
    /// byte.
    public var copied: Bool
    /// Whether the chunks' contents were checked before anything was written: not for an
    /// encrypted trace copied without its key, whose sealed chunks were copied as they are.
    public var contentsChecked = true
    /// The size of the trace read, in bytes.
    public var bytesBefore: Int
    /// The size of the trace written, in bytes.
    public var bytesAfter: Int
  }

  /// Writes the trace at `path` to `output` in format `formatVersion`, and an empty journal
  /// to `output + ".journal"` when the trace is unfinished. `output` is created or
  /// truncated: the caller picks a path that is not `path` (the CLI writes a temporary file
  /// and renames it).
  ///
  /// A closed trace that is of `formatVersion` already is copied byte for byte.
  ///
  /// - Parameters:
  ///   - path: The trace to read, and its journal beside it when it is unfinished.
  ///   - output: The trace to write.
  ///   - formatVersion: The format to write, 1 to ``TraceFormat/version``.
  ///   - key: The private key of an encrypted trace.
  ///   - compressionLevel: The zstd level of the chunks written; the recorder's default
  ///     unless given, so that rewriting a trace the recorder wrote into its own format
  ///     again gives back its bytes.
  ///   - progress: Called with the chunks written so far and their number.
  /// - Returns: What was written.
  /// - Throws: ``TraceError`` naming the file and where, when the trace is truncated or
  ///   damaged (anywhere: in a chunk, in its journal, or a journal missing beside an
  ///   unfinished trace), encrypted and no key (or another key) is given, or the output
  ///   cannot be written. Nothing is read past damage. Damage the opening checks find
  ///   (framing, checksums, the journal) is thrown before `output` is created; damage inside
  ///   a chunk that passed its checksum, when that chunk is read, and `output` then holds
  ///   part of the trace: write to a temporary file, as the CLI does, and remove it.
  public static func rewrite(
    _ path: String, to output: String, formatVersion: UInt16 = TraceFormat.version,
    key: TracePrivateKey? = nil,
    compressionLevel: Int = TraceRecorderConfiguration().compressionLevel,
    progress: ((Int, Int) -> Void)? = nil
  ) throws(TraceError) -> Summary {
    guard (1...TraceFormat.version).contains(formatVersion) else {
      throw TraceError(
        .outOfRange,
        "format version \(formatVersion) is not one this library writes (1 to \(TraceFormat.version))"
      )
    }
    let reader = try TraceReader(path: path, key: key)
    if let damage = reader.integrity.damage { throw damage.at(path: path) }
    // Every check `verify` makes, before anything is written: damage found only by reading
    // the chunks (an end record that disagrees with the index or the last action) is
    // refused too, not copied or rewritten into a trace that reads clean.
    if reader.canReadRecords, let damage = reader.intactPart().integrity.damage {
      throw damage.at(path: path)
    }
    if let encryption = reader.header.encryption, !reader.canReadRecords {
      // A closed trace of the format asked for needs no key to be copied.
      if !(reader.hasIndex && reader.formatVersion == formatVersion) {
        throw .keyNeeded(encryption, path: path)
      }
    }
    var summary = Summary(
      fromVersion: reader.formatVersion, toVersion: formatVersion, chunks: reader.chunks.count,
      actions: reader.actionCount, recoveredActions: reader.integrity.recoveredActions,
      unfinished: !reader.hasIndex, encrypted: reader.isEncrypted, copied: false,
      bytesBefore: reader.fileSize, bytesAfter: 0)
    let storage = FileStorage()
    let file = try storage.createTrace(at: output)
    defer { file.close() }
    var offset = 0
    func write(_ bytes: [UInt8]) throws(TraceError) {
      try bytes.withBytes { raw throws(TraceError) in try file.write(raw, at: offset) }
      offset += bytes.count
    }

    if reader.hasIndex && reader.formatVersion == formatVersion {
      // Its contents checked above when they can be read, then copied as they are.
      try write(try readFile(path))
      try file.sync()
      progress?(reader.chunks.count, reader.chunks.count)
      summary.copied = true
      summary.contentsChecked = reader.canReadRecords
      summary.bytesAfter = offset
      return summary
    }

    // The header: the same map, in the new format; an encrypted trace's sealed again.
    var cbor = try headerMap(path)
    var cipher: TraceCipher?
    if reader.isEncrypted, let key {
      let encryption: TraceEncryption
      (cipher, encryption) = try TraceCipher.sealing(to: key.publicKey)
      cbor = try replacingEncryption(in: cbor, with: encryption, path: path)
    }
    let (header, headerContent) = ChunkFrame.header(version: formatVersion, cbor: cbor)
    cipher?.headerDigest = Array(SHA256.hash(data: headerContent))
    try write(header)

    let compressor = ZstdCompressor(level: Int32(compressionLevel))
    let total = reader.chunks.count + (reader.journal.isEmpty ? 0 : 1)
    var index: [IndexEntry] = []
    var content: [UInt8] = []
    var frame: [UInt8] = []
    var lastTime: Int64 = 0
    func writeChunk(_ facts: ChunkFacts, _ content: [UInt8]) throws(TraceError) {
      do {
        try content.withBytes { content throws(TraceError) in
          try ChunkFrame.assemble(
            content, facts: facts, compressor: compressor, cipher: cipher, ordinal: index.count,
            into: &frame)
        }
      } catch {
        throw error.at(path: output)
      }
      index.append(IndexEntry(offset: UInt64(offset), facts))
      try write(frame)
      progress?(index.count, total)
    }
    try reader.forEachChunkContent { chunk, raw, last throws(TraceError) in
      let facts = ChunkFacts(chunk)
      content.removeAll(keepingCapacity: true)
      do throws(ActionColumnsError) {
        try convert(raw, facts, from: reader.formatVersion, to: formatVersion, into: &content)
      } catch {
        throw TraceError(
          .corrupted, "malformed chunk at byte \(error.offset): \(error.reason)", path: path,
          offset: chunk.offset, chunk: chunk.index, sequence: chunk.firstSequence)
      }
      try writeChunk(facts, content)
      lastTime = last
    }

    // The records recovered from the journal: the last chunk, as format 1 holds them.
    if let first = reader.journal.first {
      var records: [UInt8] = []
      var actions: UInt32 = 0
      var checkpoints: UInt32 = 0
      let baseTime = lastTime
      for record in reader.journal {
        if record.kind == .action {
          // [0, Δtime, action]
          records.append(0x83)
          records.append(0x00)
          RecordCBOR.appendInt(record.time &- lastTime, to: &records)
          records.append(contentsOf: record.payload)
          lastTime = record.time
          actions += 1
        } else {
          // [2, sequence, hash]
          records.append(0x83)
          records.append(0x02)
          RecordCBOR.appendUInt(record.sequence, to: &records)
          RecordCBOR.appendUInt(record.hash, to: &records)
          checkpoints += 1
        }
      }
      let facts = ChunkFacts(
        flags: 0, firstSequence: first.sequence, actionCount: actions,
        recordCount: UInt32(reader.journal.count), baseTime: baseTime,
        checkpointCount: checkpoints)
      content.removeAll(keepingCapacity: true)
      try records.withBytes { records throws(TraceError) in
        do throws(ActionColumnsError) {
          try convert(records, facts, from: 1, to: formatVersion, into: &content)
        } catch {
          // Records this function wrote itself.
          throw TraceError(.io, "cannot rewrite the journal's records: \(error.reason)")
        }
      }
      try writeChunk(facts, content)
    }

    if reader.hasIndex, let endTime = reader.indexEndTime {
      try write(ChunkFrame.index(index, lastSequence: reader.lastSequence, endTime: endTime))
    } else {
      // Unfinished: an empty journal beside it, as a recording leaves one (a trace without
      // an index and without a journal is damage).
      var generator = SystemRandomNumberGenerator()
      let journal = try storage.createTrace(at: output + ".journal")
      defer { journal.close() }
      try ChunkFrame.journalHeader(
        sealed: cipher != nil, salt: UInt32.random(in: 1...UInt32.max, using: &generator),
        nextSequence: reader.lastSequence + 1, lastTime: lastTime,
        binding: ChunkFrame.journalBinding(of: headerContent)
      ).withBytes { bytes throws(TraceError) in try journal.write(bytes, at: 0) }
      try journal.sync()
    }
    try file.sync()
    summary.chunks = index.count
    summary.bytesAfter = offset
    return summary
  }

  /// Appends `content`, the content of the chunk `facts` describe in format `from`, to
  /// `output` in format `to`.
  private static func convert(
    _ content: UnsafeRawBufferPointer, _ facts: ChunkFacts, from: UInt16, to: UInt16,
    into output: inout [UInt8]
  ) throws(ActionColumnsError) {
    switch (from, to) {
    case (1, 2): try ChunkContent.columns(fromRecords: content, into: &output)
    case (2, 1): try ChunkContent.records(fromColumns: content, facts, into: &output)
    default: output.append(contentsOf: content)
    }
  }

  /// The header map of the trace at `path` (whose header frame the reader checked), as its
  /// bytes.
  private static func headerMap(_ path: String) throws(TraceError) -> [UInt8] {
    let file = try TraceFile(path: path)
    guard let prefix = file.read(exactly: 8, at: 0) else {
      throw TraceError(.truncated, "the file ends inside its header", path: path, offset: 0)
    }
    let size = Int(prefix.withUnsafeBytes { $0.readLittleEndian(UInt32.self, at: 4) })
    guard let frame = file.read(exactly: 8 + size, at: 0), size >= 16 else {
      throw TraceError(.truncated, "the file ends inside its header", path: path, offset: 8)
    }
    // Tag, version, reserved and length, then the map, then the checksum.
    return Array(frame[20..<(8 + size - 4)])
  }

  /// `cbor`, a header map, with the value of its `encryption` key replaced by `encryption`;
  /// every other entry keeps its bytes.
  private static func replacingEncryption(
    in cbor: [UInt8], with encryption: TraceEncryption, path: String
  ) throws(TraceError) -> [UInt8] {
    var field: [UInt8] = []
    do { try CBOREncoder().encode(encryption, appendingTo: &field) } catch {
      throw TraceError(.io, "cannot encode the header: \(error)", path: path)
    }
    return try cbor.withBytes { map throws(TraceError) in
      var cursor = RecordCBOR.Cursor(map)
      var output: [UInt8] = []
      do throws(RecordCBOR.CursorError) {
        let head = try cursor.readHead()
        guard head.major == 5, head.info != 31 else {
          throw RecordCBOR.CursorError(offset: 0, reason: "not a map of definite length")
        }
        output.append(contentsOf: map[0..<cursor.offset])
        for _ in 0..<head.argument {
          let key = try cursor.skipItem()
          let value = try cursor.skipItem()
          output.append(contentsOf: map[key])
          if Array(map[key]) == [0x6A] + Array("encryption".utf8) {  // the text "encryption"
            output.append(contentsOf: field)
          } else {
            output.append(contentsOf: map[value])
          }
        }
      } catch {
        throw TraceError(
          .corrupted, "the header map: \(error.reason)", path: path, offset: 20 + error.offset)
      }
      return output
    }
  }
}
