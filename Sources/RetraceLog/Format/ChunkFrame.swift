// The frames a trace is made of, assembled: what the recorder's writer writes and what
// `TraceTranscoder` rewrites a trace with, one way for both (docs/TRACE_FORMAT.md, 2).

/// What a chunk header says about its chunk, besides its sizes and its checksum.
struct ChunkFacts: Equatable, Sendable {
  /// Bit 0: the chunk starts with a snapshot; bit 1: that snapshot is a jump.
  var flags: UInt16
  var firstSequence: UInt64
  var actionCount: UInt32
  var recordCount: UInt32
  var baseTime: Int64
  var checkpointCount: UInt32

  /// The facts `chunk`'s header gave.
  init(_ chunk: TraceChunk) {
    flags = (chunk.startsWithSnapshot ? 1 : 0) | (chunk.isJump ? 2 : 0)
    firstSequence = chunk.firstSequence
    actionCount = UInt32(chunk.actionCount)
    recordCount = UInt32(chunk.recordCount)
    baseTime = chunk.baseTime
    checkpointCount = UInt32(chunk.checkpointCount)
  }

  init(
    flags: UInt16, firstSequence: UInt64, actionCount: UInt32, recordCount: UInt32,
    baseTime: Int64, checkpointCount: UInt32
  ) {
    self.flags = flags
    self.firstSequence = firstSequence
    self.actionCount = actionCount
    self.recordCount = recordCount
    self.baseTime = baseTime
    self.checkpointCount = checkpointCount
  }
}

/// One entry of the index: where a chunk starts and what it holds.
struct IndexEntry: Equatable, Sendable {
  /// The offset of the chunk's header frame in the file.
  var offset: UInt64
  var facts: ChunkFacts

  init(offset: UInt64, _ facts: ChunkFacts) {
    self.offset = offset
    self.facts = facts
  }

  /// Appends the entry's 32 bytes.
  func append(to buffer: inout [UInt8]) {
    buffer.appendLittleEndian(offset)
    buffer.appendLittleEndian(facts.firstSequence)
    buffer.appendLittleEndian(facts.actionCount)
    buffer.appendLittleEndian(facts.flags)
    buffer.appendLittleEndian(UInt16(0))
    buffer.appendLittleEndian(facts.baseTime)
  }
}

enum ChunkFrame {
  /// Replaces `frame`'s bytes with the chunk of decompressed `content`: its chunk-header
  /// frame, then its zstd frame (sealed, when `cipher` is given, as chunk number `ordinal`),
  /// with the header's checksum.
  ///
  /// - Throws: `TraceError` naming chunk `ordinal` (not the file) when the content cannot be
  ///   compressed or sealed.
  static func assemble(
    _ content: UnsafeRawBufferPointer, facts: ChunkFacts, compressor: ZstdCompressor,
    cipher: TraceCipher?, ordinal: Int, into frame: inout [UInt8]
  ) throws(TraceError) {
    frame.removeAll(keepingCapacity: true)
    // Room for the skippable chunk-header frame, filled in once the frame's size is known.
    let headerEnd = 8 + TraceFormat.chunkHeaderSize
    frame.append(contentsOf: repeatElement(0, count: headerEnd))
    do {
      try compressor.compressFrame(content, appendingTo: &frame)
    } catch {
      throw TraceError(.io, error.message, chunk: ordinal)
    }
    let zstdSize = frame.count - headerEnd
    let frameSize = cipher == nil ? zstdSize : TraceCipher.sealedSize(zstdSize)
    frame.setLittleEndian(TraceFormat.chunkMagic, at: 0)
    frame.setLittleEndian(UInt32(TraceFormat.chunkHeaderSize), at: 4)
    let h = 8
    frame.setLittleEndian(TraceFormat.chunkTag, at: h)
    frame.setLittleEndian(UInt16(cipher == nil ? 1 : 2), at: h + 4)
    frame.setLittleEndian(facts.flags, at: h + 6)
    frame.setLittleEndian(facts.firstSequence, at: h + 8)
    frame.setLittleEndian(facts.actionCount, at: h + 16)
    frame.setLittleEndian(facts.recordCount, at: h + 20)
    frame.setLittleEndian(facts.baseTime, at: h + 24)
    frame.setLittleEndian(UInt32(content.count), at: h + 32)
    frame.setLittleEndian(UInt32(frameSize), at: h + 36)
    frame.setLittleEndian(facts.checkpointCount, at: h + 44)
    if let cipher {
      // The zstd frame gives way to its sealed frame, which authenticates the header too.
      var sealed: [UInt8] = []
      sealed.reserveCapacity(frameSize)
      try frame.withBytes { bytes throws(TraceError) in
        try cipher.sealChunk(
          UnsafeRawBufferPointer(rebasing: bytes[headerEnd...]), ordinal: ordinal,
          header: UnsafeRawBufferPointer(rebasing: bytes[h..<headerEnd]), appendingTo: &sealed)
      }
      frame.replaceSubrange(headerEnd..., with: sealed)
    }
    let crc = frame.withUnsafeBytes { bytes in
      let head = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[h..<(h + 40)]))
      let withTail = CRC32C.update(
        head, UnsafeRawBufferPointer(rebasing: bytes[(h + 44)..<(h + 48)]))
      return CRC32C.update(withTail, UnsafeRawBufferPointer(rebasing: bytes[(h + 48)...]))
    }
    frame.setLittleEndian(crc, at: h + 40)
  }

  /// The header frame of a trace of format `version` whose header map is `cbor`, and the
  /// frame's content (what an encrypted trace's sealed frames authenticate, by its SHA-256).
  static func header(version: UInt16, cbor: [UInt8]) -> (frame: [UInt8], content: [UInt8]) {
    var content: [UInt8] = []
    content.appendLittleEndian(TraceFormat.headerTag)
    content.appendLittleEndian(version)
    content.appendLittleEndian(UInt16(0))
    content.appendLittleEndian(UInt32(cbor.count))
    content.append(contentsOf: cbor)
    content.appendLittleEndian(CRC32C.checksum(content))
    var frame: [UInt8] = []
    frame.appendLittleEndian(TraceFormat.headerMagic)
    frame.appendLittleEndian(UInt32(content.count))
    frame.append(contentsOf: content)
    return (frame, content)
  }

  /// The index frame of a trace whose chunks `index` lists, closed after action
  /// `lastSequence` at time offset `endTime`.
  static func index(_ index: [IndexEntry], lastSequence: UInt64, endTime: Int64) -> [UInt8] {
    var frame: [UInt8] = []
    frame.appendLittleEndian(TraceFormat.indexMagic)
    frame.appendLittleEndian(
      UInt32(index.count * TraceFormat.indexEntrySize + TraceFormat.indexTrailerSize))
    let contentStart = frame.count
    for entry in index { entry.append(to: &frame) }
    frame.appendLittleEndian(UInt32(index.count))
    frame.appendLittleEndian(UInt32(0))
    frame.appendLittleEndian(lastSequence)
    frame.appendLittleEndian(endTime)
    let crc = frame.withUnsafeBytes {
      CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[contentStart...]))
    }
    frame.appendLittleEndian(crc)
    frame.appendLittleEndian(TraceFormat.indexTag)
    return frame
  }

  /// A journal's header, with `salt`, for the records from action `nextSequence` on (the
  /// action before it at time offset `lastTime`), followed by the empty record that marks
  /// its end: an empty journal. `sealed` for an encrypted trace's. `binding` ties it to its
  /// trace (``journalBinding(of:)``).
  static func journalHeader(
    sealed: Bool, salt: UInt32, nextSequence: UInt64, lastTime: Int64, binding: UInt16
  ) -> [UInt8] {
    var header: [UInt8] = []
    header.appendLittleEndian(TraceFormat.journalTag)
    header.appendLittleEndian(UInt16(sealed ? 2 : 1))
    header.appendLittleEndian(binding)
    header.appendLittleEndian(salt)
    header.appendLittleEndian(nextSequence)
    header.appendLittleEndian(lastTime)
    header.appendLittleEndian(CRC32C.checksum(header))
    header.append(contentsOf: repeatElement(0, count: 8))  // an empty first record: the end
    return header
  }

  /// What ties a journal to its trace: the header frame's CRC32C (the last four bytes of
  /// `headerContent`, which is the frame after its magic and length), its two halves
  /// combined, never 0. A journal whose header holds 0 there was written before journals
  /// were tied to their traces, and is not checked.
  ///
  /// The stored checksum itself, not a checksum of the content with it: a CRC over a
  /// message followed by its own CRC is the same for every message.
  static func journalBinding(of headerContent: [UInt8]) -> UInt16 {
    guard headerContent.count >= 4 else { return 1 }
    let crc = headerContent.withUnsafeBytes {
      $0.readLittleEndian(UInt32.self, at: headerContent.count - 4)
    }
    let folded = UInt16(truncatingIfNeeded: crc) ^ UInt16(truncatingIfNeeded: crc >> 16)
    return folded == 0 ? 1 : folded
  }
}
