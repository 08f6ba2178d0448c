import CFuzzSupport
import Retrace
import RetraceLog

/// Builds and repairs trace files around the fuzzer's bytes.
///
/// The reader rejects any frame whose CRC32C is wrong, and random bytes almost never carry
/// a right one, so a fuzzer that only mutated whole files would spend its time in the
/// checksum checks. These helpers write the checksums (and compress records with zstd) so
/// that mutated lengths, counts and records reach the code behind the checks.
enum TraceBytes {
  // Constants of docs/TRACE_FORMAT.md (the library keeps its own internal).
  static let headerMagic: UInt32 = 0x184D_2A50
  static let chunkMagic: UInt32 = 0x184D_2A51
  static let indexMagic: UInt32 = 0x184D_2A5E
  static let journalTag: UInt32 = 0x4E4A_5452

  // MARK: Little-endian fields

  static func read32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
  }

  static func set32(_ value: UInt32, _ bytes: inout [UInt8], _ at: Int) {
    for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
  }

  static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  // MARK: CRC32C (Castagnoli), bitwise: slow and obviously right

  static let table: [UInt32] = (0..<256).map { i -> UInt32 in
    var crc = UInt32(i)
    for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0x82F6_3B78 : 0) }
    return crc
  }

  static func crc32c(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
    var crc = ~crc
    for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)] }
    return ~crc
  }

  // MARK: Building

  /// A header frame for `domain`, starting at sequence 0.
  static func headerFrame(domain: String) -> [UInt8] {
    let header = TraceHeader(
      domain: domain, actionSchemaVersion: 1, sessionID: "fuzz", startTime: 1_763_771_000,
      checkpointInterval: 2, snapshotInterval: 0)
    let cbor = (try? CBOREncoder().encode(header)) ?? []
    var content: [UInt8] = Array("RTRC".utf8)
    append(UInt16(1), to: &content)
    append(UInt16(0), to: &content)
    append(UInt32(cbor.count), to: &content)
    content += cbor
    append(crc32c(content[...]), to: &content)
    var frame: [UInt8] = []
    append(headerMagic, to: &frame)
    append(UInt32(content.count), to: &frame)
    return frame + content
  }

  /// One chunk (header frame and zstd frame) holding `records`, with a correct checksum.
  static func chunk(
    _ records: [UInt8], firstSequence: UInt64, actions: UInt32, records recordCount: UInt32, snapshot: Bool
  ) -> [UInt8] {
    let frame = compress(records)
    var content: [UInt8] = Array("RTCK".utf8)
    append(UInt16(1), to: &content)
    append(UInt16(snapshot ? 1 : 0), to: &content)
    append(firstSequence, to: &content)
    append(actions, to: &content)
    append(recordCount, to: &content)
    append(Int64(0), to: &content)
    append(UInt32(records.count), to: &content)
    append(UInt32(frame.count), to: &content)
    append(UInt32(0), to: &content)  // CRC, below
    append(UInt32(0), to: &content)  // checkpoints
    let crc = crc32c(frame[...], continuing: crc32c(content[44..<48], continuing: crc32c(content[0..<40])))
    set32(crc, &content, 40)
    var chunk: [UInt8] = []
    append(chunkMagic, to: &chunk)
    append(UInt32(content.count), to: &chunk)
    return chunk + content + frame
  }

  /// One zstd frame of `bytes`, with the content size and checksum set, as the writer makes.
  static func compress(_ bytes: [UInt8]) -> [UInt8] {
    let context = ZSTD_createCCtx()
    defer { ZSTD_freeCCtx(context) }
    ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, 1)
    ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
    ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 1)
    var output = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
    let written = output.withUnsafeMutableBytes { out in
      bytes.withUnsafeBytes { input in
        ZSTD_compress2(context, out.baseAddress, out.count, input.baseAddress, input.count)
      }
    }
    guard ZSTD_isError(written) == 0 else { return [] }
    return Array(output[0..<written])
  }

  // MARK: Repairing

  /// Rewrites the checksums of the header frame, of every chunk header and of the index,
  /// walking the frames as a reader would, and leaves everything else as it is.
  static func repairChecksums(_ file: inout [UInt8]) {
    var offset = 0
    while file.count - offset >= 8 {
      let magic = read32(file, offset)
      let size = Int(read32(file, offset + 4))
      let content = offset + 8
      guard file.count - content >= size else { return }
      switch magic {
      case headerMagic where offset == 0 && size >= 16:
        set32(crc32c(file[content..<(content + size - 4)]), &file, content + size - 4)
      case chunkMagic where size == 48:
        let frameSize = Int(read32(file, content + 36))
        let frameStart = content + 48
        guard file.count - frameStart >= frameSize else { return }
        let crc = crc32c(
          file[frameStart..<(frameStart + frameSize)],
          continuing: crc32c(file[(content + 44)..<(content + 48)], continuing: crc32c(file[content..<(content + 40)])))
        set32(crc, &file, content + 40)
        offset = frameStart + frameSize
        continue
      case indexMagic where size >= 32 && content + size == file.count:
        let trailer = file.count - 32
        set32(crc32c(file[content..<(trailer + 24)]), &file, trailer + 24)
      default:
        if offset == 0 { return }
      }
      offset = content + size
    }
  }

  /// Rewrites a journal's header checksum and every record's salted checksum, up to the
  /// first record whose length runs past the end.
  static func repairJournal(_ journal: inout [UInt8]) {
    guard journal.count >= 32, read32(journal, 0) == journalTag else { return }
    set32(crc32c(journal[0..<28]), &journal, 28)
    let salt = journal[8..<12]
    var offset = 32
    while journal.count - offset >= 8 {
      let length = Int(read32(journal, offset))
      guard length > 0, journal.count - offset - 8 >= length else { return }
      set32(crc32c(journal[(offset + 8)..<(offset + 8 + length)], continuing: crc32c(salt)), &journal, offset + 4)
      offset += 8 + length
    }
  }
}
