import Retrace

/// The framing pass over a whole trace: the header, every chunk header with its checksum,
/// and the index. It stops at the first damage and says where.
struct FramingScan {
  var header: TraceHeader
  var version: UInt16
  /// The header frame's content: what an encrypted trace's sealed frames authenticate.
  var headerContent: [UInt8]
  var chunks: [TraceChunk] = []
  var hasIndex = false
  /// The index trailer's time offset of the end, in µs, when the trace has an index.
  var endTime: Int64?
  var damage: TraceError?

  init(_ file: UnsafeRawBufferPointer) throws(TraceError) {
    let end: Int
    (header, version, end) = try Self.readHeader(file)
    headerContent = Array(file[8..<end])
    // The chunks, then the index.
    var offset = end
    var nextSequence = header.firstSequence + 1
    while offset < file.count {
      guard file.count - offset >= 8 else {
        damage = TraceError(
          .truncated, "the file ends inside a frame header", offset: offset, chunk: chunks.count,
          sequence: nextSequence)
        return
      }
      let magic = file.readLittleEndian(UInt32.self, at: offset)
      let frameSize = Int(file.readLittleEndian(UInt32.self, at: offset + 4))
      switch magic {
      case TraceFormat.chunkMagic:
        switch readChunk(file, at: offset, nextSequence: nextSequence) {
        case .success(let chunk):
          chunks.append(chunk)
          nextSequence = chunk.endSequence
          offset += chunk.byteCount
        case .failure(let error):
          damage = error
          return
        }
      case TraceFormat.indexMagic:
        if let error = readIndex(file, at: offset, size: frameSize, nextSequence: nextSequence) {
          damage = error
        } else {
          hasIndex = true
        }
        return
      default:
        damage = TraceError(
          .corrupted, "expected a chunk or the index, found 0x\(String(magic, radix: 16))",
          offset: offset,
          chunk: chunks.count, sequence: nextSequence)
        return
      }
    }
  }

  /// The framing of a cleanly closed trace read from its index: the header frame, each
  /// chunk's header frame and the index, checked as ``init(_:)`` checks them, but not the
  /// chunks' data, whose checksums are left to whoever reads them. `nil` when any of it is
  /// missing or disagrees (no index, damage): the whole file must then be scanned, which
  /// says where and why.
  init?(indexOf file: TraceFile) {
    // The header frame, and the index frame, whose size the trailer at the file's end gives.
    let trailerSize = TraceFormat.indexTrailerSize
    guard file.size >= 8 + trailerSize, let prefix = file.read(exactly: 8, at: 0) else {
      return nil
    }
    let headerSize = Int(prefix.withUnsafeBytes { $0.readLittleEndian(UInt32.self, at: 4) })
    guard headerSize <= TraceFormat.maxHeaderSize,
      let headerFrame = file.read(exactly: 8 + headerSize, at: 0),
      let (header, version, end) = try? headerFrame.withBytes({ bytes throws(TraceError) in
        try Self.readHeader(bytes)
      }),
      let trailer = file.read(exactly: trailerSize, at: file.size - trailerSize)
    else { return nil }
    let count = Int(trailer.withUnsafeBytes { $0.readLittleEndian(UInt32.self, at: 0) })
    let indexSize = count * TraceFormat.indexEntrySize + trailerSize
    let indexOffset = file.size - 8 - indexSize
    // The index frame's own header first: a damaged count must not make this read most of
    // the file.
    guard indexOffset >= end, let frameHeader = file.read(exactly: 8, at: indexOffset),
      frameHeader.withUnsafeBytes({
        $0.readLittleEndian(UInt32.self, at: 0) == TraceFormat.indexMagic
          && Int($0.readLittleEndian(UInt32.self, at: 4)) == indexSize
      }),
      let index = file.read(exactly: 8 + indexSize, at: indexOffset)
    else { return nil }
    self.header = header
    self.version = version
    headerContent = Array(headerFrame[8..<end])
    // The chunks' header frames, one after another up to the index.
    var offset = end
    var nextSequence = header.firstSequence + 1
    while offset < indexOffset && chunks.count < count {
      guard let bytes = file.read(exactly: 8 + TraceFormat.chunkHeaderSize, at: offset),
        bytes.withUnsafeBytes({ $0.readLittleEndian(UInt32.self, at: 0) })
          == TraceFormat.chunkMagic,
        case .success(let chunk) = bytes.withUnsafeBytes({
          Self.readChunkHeader(
            $0, at: offset, fileSize: indexOffset, index: chunks.count, nextSequence: nextSequence,
            sealed: header.encryption != nil, frame: nil)
        })
      else { return nil }
      chunks.append(chunk)
      nextSequence = chunk.endSequence
      offset += chunk.byteCount
    }
    // The index must list exactly those chunks, as a scan of the whole file requires.
    guard offset == indexOffset,
      index.withUnsafeBytes({ readIndex($0, at: 0, size: indexSize, nextSequence: nextSequence) })
        == nil
    else { return nil }

    hasIndex = true
  }

  /// The header frame at the start of `file` (which needs to hold only that frame): the
  /// header, the format version, and the offset where the frame ends.
  static func readHeader(_ file: UnsafeRawBufferPointer) throws(TraceError) -> (
    TraceHeader, UInt16, Int
  ) {
    // The header: a skippable frame that must be intact, or this is not a trace at all.
    guard file.count > 0 else { throw TraceError(.notATrace, "empty file, not a trace") }
    guard file.count >= 8 else {
      throw TraceError(.notATrace, "too short to be a trace (\(file.count) bytes)")
    }
    let magic = file.readLittleEndian(UInt32.self, at: 0)
    guard magic == TraceFormat.headerMagic else {
      if magic == TraceFormat.zstdMagic {
        throw TraceError(
          .notATrace, "a zstd file, but not a Retrace trace (no header frame)", offset: 0)
      }
      // The bytes in the file's order, not the little-endian number they make.
      throw TraceError(
        .notATrace, "not a trace (it starts with 0x\(file[0..<4].hex), not a Retrace header)",
        offset: 0)
    }
    let size = Int(file.readLittleEndian(UInt32.self, at: 4))
    guard size <= TraceFormat.maxHeaderSize, size >= 16 else {
      throw TraceError(.corrupted, "header frame size \(size) is impossible", offset: 4)
    }
    guard file.count - 8 >= size else {
      throw TraceError(
        .truncated, "the header frame needs \(size) bytes, the file has \(file.count - 8)",
        offset: 8)
    }
    let content = UnsafeRawBufferPointer(rebasing: file[8..<(8 + size)])
    guard content.readLittleEndian(UInt32.self, at: 0) == TraceFormat.headerTag else {
      throw TraceError(.notATrace, "a skippable frame, but not a Retrace header", offset: 8)
    }
    let crc = content.readLittleEndian(UInt32.self, at: size - 4)
    guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: content[0..<(size - 4)])) == crc else {
      throw TraceError(.corrupted, "header checksum mismatch", offset: 8)
    }
    let version = content.readLittleEndian(UInt16.self, at: 4)
    guard version >= 1, version <= TraceFormat.version else {
      throw TraceError(
        .unsupportedVersion,
        "format version \(version) is not supported (this reader knows 1 to \(TraceFormat.version))",
        offset: 12)
    }
    guard content.readLittleEndian(UInt16.self, at: 6) == 0 else {
      throw TraceError(.corrupted, "the header's reserved field is not 0", offset: 14)
    }
    let cborLength = Int(content.readLittleEndian(UInt32.self, at: 8))
    guard cborLength == size - 16 else {
      throw TraceError(.corrupted, "header length \(cborLength) does not fit its frame", offset: 16)
    }
    let header: TraceHeader
    do {
      header = try CBORDecoder().decode(
        TraceHeader.self, from: UnsafeRawBufferPointer(rebasing: content[12..<(12 + cborLength)]))
    } catch {
      throw TraceError(.corrupted, "header fields: \(error)", offset: 20)
    }
    // Sequence numbers are counted on from here; one near UInt64.max would overflow.
    if let impossibility = header.impossibility {
      throw TraceError(.corrupted, "header \(impossibility)", offset: 20)
    }
    return (header, version, 8 + size)
  }

  private func readChunk(_ file: UnsafeRawBufferPointer, at offset: Int, nextSequence: UInt64)
    -> Result<TraceChunk, TraceError>
  {
    let header = UnsafeRawBufferPointer(
      rebasing: file[offset..<min(file.count, offset + 8 + TraceFormat.chunkHeaderSize)])
    return Self.readChunkHeader(
      header, at: offset, fileSize: file.count, index: chunks.count, nextSequence: nextSequence,
      sealed: self.header.encryption != nil
    ) { frameStart, frameSize in
      UnsafeRawBufferPointer(rebasing: file[frameStart..<(frameStart + frameSize)])
    }
  }

  /// The chunk whose header frame, at `offset` of a file of `fileSize` bytes, is `header`
  /// (its 8-byte frame header and 48 bytes of content, or fewer where the file ends), or
  /// the damage found.
  ///
  /// - Parameters:
  ///   - sealed: Whether the trace is encrypted, so that its chunks must be of format 2
  ///     (a sealed frame in place of the zstd frame); format 1 otherwise.
  ///   - frame: The chunk's zstd frame, given where it starts and its size, to check
  ///     the chunk's checksum against; `nil` leaves that check to whoever reads the frame
  ///     (``checksumMatches(_:header:frame:)``).
  static func readChunkHeader(
    _ header: UnsafeRawBufferPointer, at offset: Int, fileSize: Int, index: Int,
    nextSequence: UInt64, sealed: Bool,
    frame: ((_ start: Int, _ size: Int) -> UnsafeRawBufferPointer)?
  ) -> Result<TraceChunk, TraceError> {
    func failure(_ code: TraceError.Code, _ message: String, _ at: Int) -> Result<
      TraceChunk, TraceError
    > {
      .failure(TraceError(code, message, offset: at, chunk: index, sequence: nextSequence))
    }
    guard Int(header.readLittleEndian(UInt32.self, at: 4)) == TraceFormat.chunkHeaderSize else {
      return failure(
        .corrupted, "chunk header size is not \(TraceFormat.chunkHeaderSize)", offset + 4)
    }
    guard header.count == 8 + TraceFormat.chunkHeaderSize else {
      return failure(.truncated, "the file ends inside a chunk header", offset + 8)
    }
    let h = 8
    guard header.readLittleEndian(UInt32.self, at: h) == TraceFormat.chunkTag else {
      return failure(.corrupted, "chunk header tag is wrong", offset + h)
    }
    let format = header.readLittleEndian(UInt16.self, at: h + 4)
    guard format == (sealed ? 2 : 1) else {
      return failure(
        .corrupted,
        "chunk format \(format) in \(sealed ? "an encrypted" : "a clear") trace (it must be \(sealed ? 2 : 1))",
        offset + h + 4)
    }
    let rawSize = Int(header.readLittleEndian(UInt32.self, at: h + 32))
    let frameSize = Int(header.readLittleEndian(UInt32.self, at: h + 36))
    let frameStart = offset + h + TraceFormat.chunkHeaderSize
    guard fileSize - frameStart >= frameSize else {
      return failure(
        .truncated, "the chunk needs \(frameSize) bytes, the file has \(fileSize - frameStart)",
        frameStart)
    }
    let checksum = header.readLittleEndian(UInt32.self, at: h + 40)
    if let frame, !checksumMatches(checksum, header: header, frame: frame(frameStart, frameSize)) {
      return failure(.corrupted, "chunk checksum mismatch", offset)
    }
    // The checksum vouches for the fields; these checks catch a writer that lied.
    guard rawSize <= TraceFormat.maxChunkSize else {
      return failure(
        .tooLarge,
        "chunk claims \(rawSize) bytes of records, more than the limit of \(TraceFormat.maxChunkSize)",
        offset + h + 32)
    }
    let firstSequence = header.readLittleEndian(UInt64.self, at: h + 8)
    guard firstSequence == nextSequence else {
      return failure(
        .corrupted, "chunk starts at sequence \(firstSequence), expected \(nextSequence)",
        offset + h + 8)
    }
    let actionCount = Int(header.readLittleEndian(UInt32.self, at: h + 16))
    let recordCount = Int(header.readLittleEndian(UInt32.self, at: h + 20))
    guard recordCount > 0 else {
      return failure(.corrupted, "chunk has no records", offset + h + 20)
    }
    guard actionCount <= recordCount, recordCount <= rawSize else {
      return failure(.corrupted, "chunk record counts are impossible", offset + h + 16)
    }
    // Bit 0: starts with a snapshot; bit 1: that snapshot is a jump (so only with bit 0, and
    // only in a chunk of that one record).
    let flags = header.readLittleEndian(UInt16.self, at: h + 6)
    guard flags & ~3 == 0,
      flags & 2 == 0 || (flags == 3 && recordCount == 1 && actionCount == 0 && index > 0)
    else {
      return failure(.corrupted, "chunk flags \(flags) are impossible", offset + h + 6)
    }
    return .success(
      TraceChunk(
        index: index, offset: offset, byteCount: 8 + TraceFormat.chunkHeaderSize + frameSize,
        rawSize: rawSize,
        firstSequence: firstSequence, actionCount: actionCount, recordCount: recordCount,
        checkpointCount: Int(header.readLittleEndian(UInt32.self, at: h + 44)),
        startsWithSnapshot: flags & 1 != 0, isJump: flags & 2 != 0,
        baseTime: header.readLittleEndian(Int64.self, at: h + 24), checksum: checksum))
  }

  /// Whether a chunk's CRC32C (over its header's content bytes `0..<40` and `44..<48`, then
  /// its zstd frame) is `checksum`. `header` is the chunk's header frame, 8 + 48 bytes.
  static func checksumMatches(
    _ checksum: UInt32, header: UnsafeRawBufferPointer, frame: UnsafeRawBufferPointer
  ) -> Bool {
    let crc = CRC32C.update(
      CRC32C.update(
        CRC32C.checksum(UnsafeRawBufferPointer(rebasing: header[8..<48])),
        UnsafeRawBufferPointer(rebasing: header[52..<56])),
      frame)
    return crc == checksum
  }

  private mutating func readIndex(
    _ file: UnsafeRawBufferPointer, at offset: Int, size: Int, nextSequence: UInt64
  ) -> TraceError? {
    func error(_ code: TraceError.Code, _ message: String, _ at: Int) -> TraceError {
      TraceError(code, message, offset: at, chunk: chunks.count, sequence: nextSequence)
    }
    let content = offset + 8
    guard file.count - content >= size else {
      return error(.truncated, "the file ends inside the index", content)
    }
    guard file.count - content == size else {
      return error(.corrupted, "bytes after the index", content + size)
    }
    guard size >= TraceFormat.indexTrailerSize,
      (size - TraceFormat.indexTrailerSize) % TraceFormat.indexEntrySize == 0
    else { return error(.corrupted, "index size \(size) is impossible", offset + 4) }
    let trailer = file.count - TraceFormat.indexTrailerSize
    guard file.readLittleEndian(UInt32.self, at: trailer + 28) == TraceFormat.indexTag else {
      return error(.corrupted, "index tag is wrong", trailer + 28)
    }
    let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: file[content..<(trailer + 24)]))
    guard crc == file.readLittleEndian(UInt32.self, at: trailer + 24) else {
      return error(.corrupted, "index checksum mismatch", offset)
    }
    let count = Int(file.readLittleEndian(UInt32.self, at: trailer))
    guard count == chunks.count,
      count * TraceFormat.indexEntrySize == size - TraceFormat.indexTrailerSize
    else {
      return error(
        .corrupted, "the index lists \(count) chunks, the file has \(chunks.count)", trailer)
    }
    for (i, chunk) in chunks.enumerated() {
      let e = content + i * TraceFormat.indexEntrySize
      // Every field must agree with the chunk's header, reserved ones included.
      guard file.readLittleEndian(UInt64.self, at: e) == UInt64(chunk.offset),
        file.readLittleEndian(UInt64.self, at: e + 8) == chunk.firstSequence,
        Int(file.readLittleEndian(UInt32.self, at: e + 16)) == chunk.actionCount,
        file.readLittleEndian(UInt16.self, at: e + 20)
          == (chunk.startsWithSnapshot ? 1 : 0) | (chunk.isJump ? 2 : 0),
        file.readLittleEndian(UInt16.self, at: e + 22) == 0,
        file.readLittleEndian(Int64.self, at: e + 24) == chunk.baseTime
      else { return error(.corrupted, "index entry \(i) does not match chunk \(i)", e) }
    }
    guard file.readLittleEndian(UInt32.self, at: trailer + 4) == 0 else {
      return error(.corrupted, "the index's reserved field is not 0", trailer + 4)
    }
    guard file.readLittleEndian(UInt64.self, at: trailer + 8) == nextSequence - 1 else {
      return error(.corrupted, "the index's last sequence does not match the chunks", trailer + 8)
    }
    // The end time is checked against the end record by readers that read the last chunk
    // (`TraceReader.intactPart()`).
    endTime = file.readLittleEndian(Int64.self, at: trailer + 16)
    return nil
  }
}
