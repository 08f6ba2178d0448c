import CZstd

/// A zstd compression context, reused across chunks (creating one costs more than
/// compressing a small chunk). Not thread-safe: one per writer.
final class ZstdCompressor {
  private let context: OpaquePointer

  /// Creates a compressor at `level` that writes a content checksum and the content size
  /// into every frame.
  init(level: Int32) {
    context = ZSTD_createCCtx()!
    ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
    ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
    ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 1)
    // Compress once now, so that the context's tables are allocated before the first real
    // chunk instead of stalling the writer then.
    var warmUp: [UInt8] = []
    try? [UInt8](repeating: 0, count: 64).withBytes { input throws(ZstdError) in
      try compressFrame(input, appendingTo: &warmUp)
    }
  }

  deinit {
    ZSTD_freeCCtx(context)
  }

  /// Compresses `input` into one complete zstd frame appended to `output`.
  func compressFrame(_ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8])
    throws(ZstdError)
  {
    ZSTD_CCtx_reset(context, ZSTD_reset_session_only)
    ZSTD_CCtx_setPledgedSrcSize(context, UInt64(input.count))
    let bound = ZSTD_compressBound(input.count)
    let start = output.count
    output.append(contentsOf: repeatElement(0, count: bound))
    let written: Int = output.withUnsafeMutableBytes { out in
      var outBuffer = ZSTD_outBuffer(dst: out.baseAddress! + start, size: bound, pos: 0)
      var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
      while true {
        let remaining = ZSTD_compressStream2(context, &outBuffer, &inBuffer, ZSTD_e_end)
        if ZSTD_isError(remaining) != 0 { return -Int(ZSTD_getErrorCode(remaining).rawValue) - 1 }
        if remaining == 0 { return outBuffer.pos }
      }
    }
    guard written >= 0 else {
      output.removeLast(bound)
      throw ZstdError(message: "compression failed (zstd error \(-(written + 1)))")
    }
    output.removeLast(bound - written)
  }
}

/// A zstd decompression context, reused across chunks. Not thread-safe: one per reader.
final class ZstdDecompressor {
  private let context: OpaquePointer

  init() {
    context = ZSTD_createDCtx()!
  }

  deinit {
    ZSTD_freeDCtx(context)
  }

  /// Decompresses exactly one frame of `frame` whose content is `expectedSize` bytes into
  /// `output` (replacing its contents), checking the frame's content checksum.
  ///
  /// `expectedSize` comes from a checksummed chunk header and is checked against the frame's
  /// own declared size before anything is allocated, so a damaged length cannot make the
  /// reader allocate gigabytes.
  func decompressFrame(
    _ frame: UnsafeRawBufferPointer, expectedSize: Int, into output: inout [UInt8]
  ) throws(ZstdError) {
    let declared = ZSTD_getFrameContentSize(frame.baseAddress, frame.count)
    guard declared != ZSTD_CONTENTSIZE_ERROR else { throw ZstdError(message: "not a zstd frame") }
    guard declared != ZSTD_CONTENTSIZE_UNKNOWN, declared == UInt64(expectedSize) else {
      throw ZstdError(
        message: "frame content size \(declared) does not match the chunk header's \(expectedSize)")
    }
    ZSTD_DCtx_reset(context, ZSTD_reset_session_only)
    func stream(into out: UnsafeMutableRawBufferPointer) -> (
      code: Int, produced: Int, consumed: Int
    ) {
      var outBuffer = ZSTD_outBuffer(dst: out.baseAddress, size: expectedSize, pos: 0)
      var inBuffer = ZSTD_inBuffer(src: frame.baseAddress, size: frame.count, pos: 0)
      while true {
        let hint = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
        if ZSTD_isError(hint) != 0 {
          return (Int(ZSTD_getErrorCode(hint).rawValue), outBuffer.pos, inBuffer.pos)
        }
        if hint == 0 { return (0, outBuffer.pos, inBuffer.pos) }
        if inBuffer.pos == inBuffer.size { return (-1, outBuffer.pos, inBuffer.pos) }
      }
    }
    var result = (code: 0, produced: 0, consumed: 0)
    if output.capacity < expectedSize {
      // A new buffer (a fresh reader, or a larger chunk: a snapshot's is tens of megabytes):
      // decompress straight into it. Filling it with zeros first cost as much as a third of
      // the decompression, touching every page twice.
      output = [UInt8](unsafeUninitializedCapacity: expectedSize) { buffer, initialized in
        result = stream(into: UnsafeMutableRawBufferPointer(buffer))
        initialized = result.produced
      }
    } else {
      // Every byte is overwritten below (or the call throws), so a buffer reused from the
      // previous chunk is only resized, not cleared.
      if output.count > expectedSize {
        output.removeLast(output.count - expectedSize)
      } else if output.count < expectedSize {
        output.append(contentsOf: repeatElement(0, count: expectedSize - output.count))
      }
      result = output.withUnsafeMutableBytes { stream(into: $0) }
    }
    if result.code > 0 {
      let name = String(cString: ZSTD_getErrorString(ZSTD_ErrorCode(rawValue: UInt32(result.code))))
      throw ZstdError(message: "zstd: \(name)")
    }
    if result.code < 0 { throw ZstdError(message: "zstd frame is truncated") }
    guard result.consumed == frame.count else {
      // zstd itself would go on to the next frame (and skip a skippable one): the format
      // places exactly one frame here.
      throw ZstdError(
        message:
          "the chunk holds more than one frame (its zstd frame ends after \(result.consumed) of its \(frame.count) bytes)"
      )
    }
    guard result.produced == expectedSize else {
      throw ZstdError(
        message: "zstd frame decoded to \(result.produced) bytes, expected \(expectedSize)")
    }
  }
}

/// A failure inside libzstd, turned into a message.
struct ZstdError: Error {
  let message: String
}
