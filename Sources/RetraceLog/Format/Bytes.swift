/// Little-endian integers in byte buffers: the fixed-size parts of the trace format.
extension Array where Element == UInt8 {
  mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
    Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
  }

  mutating func setLittleEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
    Swift.withUnsafeBytes(of: value.littleEndian) { bytes in
      for i in 0..<bytes.count { self[offset + i] = bytes[i] }
    }
  }
}

extension UnsafeRawBufferPointer {
  /// Reads a little-endian integer at `offset`; the caller has checked the bounds.
  func readLittleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
    T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
  }
}

extension Array where Element == UInt8 {
  /// `withUnsafeBytes` that keeps a typed error (the standard one only rethrows `any Error`).
  func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
    let result: Result<R, E> = withUnsafeBytes { raw in Result { () throws(E) in try body(raw) } }
    return try result.get()
  }

  /// `withUnsafeMutableBytes` that keeps a typed error.
  mutating func withMutableBytes<R, E: Error>(
    _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
  ) throws(E) -> R {
    let result: Result<R, E> = withUnsafeMutableBytes { raw in
      Result { () throws(E) in try body(raw) }
    }
    return try result.get()
  }
}

extension Sequence where Element == UInt8 {
  /// The bytes in lowercase hex, two digits each, in order: `2f2f2073`.
  var hex: String {
    map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
  }
}
