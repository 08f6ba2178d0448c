/// Appends CBOR heads, numbers and strings to a byte buffer, always in the shortest form
/// (RFC 8949 §4.2.1: preferred serialization, which is also the deterministic one).
///
/// The package's one writer of CBOR items into a `[UInt8]`: the Codable encoder, the trace
/// writer's record envelopes (`RetraceLog`) and the live link's messages
/// (`RetraceLiveProtocol`) all append with it. ``CBORWriter`` writes the same heads into
/// memory of its own, for the hand-written encodings on the store's thread.
@usableFromInline
package enum CBORPrimitiveWriter {
  /// Appends the head of an item of major type `major` with argument `argument`.
  @inlinable @inline(__always)
  package static func appendHead(_ major: UInt8, _ argument: UInt64, to bytes: inout [UInt8]) {
    let initial = major &<< 5
    if argument < 24 {
      bytes.append(initial | UInt8(truncatingIfNeeded: argument))
    } else if argument <= 0xff {
      bytes.append(initial | 24)
      bytes.append(UInt8(truncatingIfNeeded: argument))
    } else if argument <= 0xffff {
      bytes.append(initial | 25)
      appendBigEndian(UInt16(truncatingIfNeeded: argument), to: &bytes)
    } else if argument <= 0xffff_ffff {
      bytes.append(initial | 26)
      appendBigEndian(UInt32(truncatingIfNeeded: argument), to: &bytes)
    } else {
      bytes.append(initial | 27)
      appendBigEndian(argument, to: &bytes)
    }
  }

  /// The number of bytes of the head that ``appendHead(_:_:to:)`` writes for `argument`.
  @inlinable @inline(__always)
  static func headLength(_ argument: UInt64) -> Int {
    if argument < 24 { return 1 }
    if argument <= 0xff { return 2 }
    if argument <= 0xffff { return 3 }
    if argument <= 0xffff_ffff { return 5 }
    return 9
  }

  /// Writes the head for `argument` over `headLength(argument)` bytes at `offset`.
  static func writeHead(
    _ major: UInt8, _ argument: UInt64, into bytes: inout [UInt8], at offset: Int
  ) {
    let length = headLength(argument)
    let initial = major &<< 5
    switch length {
    case 1:
      bytes[offset] = initial | UInt8(truncatingIfNeeded: argument)
    default:
      let info: UInt8
      switch length {
      case 2: info = 24
      case 3: info = 25
      case 5: info = 26
      default: info = 27
      }
      bytes[offset] = initial | info
      for k in 1..<length {
        bytes[offset + k] = UInt8(truncatingIfNeeded: argument &>> UInt64(8 * (length - 1 - k)))
      }
    }
  }

  @inlinable @inline(__always)
  package static func appendBigEndian<I: FixedWidthInteger>(_ value: I, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
  }

  /// Appends a signed integer as major type 0 or 1.
  @inlinable @inline(__always)
  package static func appendInteger<I: FixedWidthInteger & SignedInteger>(
    _ value: I, to bytes: inout [UInt8]
  ) {
    let wide = Int64(value)
    if wide >= 0 {
      appendHead(0, UInt64(wide), to: &bytes)
    } else {
      appendHead(1, ~UInt64(bitPattern: wide), to: &bytes)
    }
  }

  /// Appends a text string (major type 3).
  @inlinable @inline(__always)
  package static func appendText(_ string: String, to bytes: inout [UInt8]) {
    var string = string
    string.withUTF8 { utf8 in
      appendHead(3, UInt64(utf8.count), to: &bytes)
      bytes.append(contentsOf: utf8)
    }
  }

  /// Appends a byte string (major type 2).
  @inlinable @inline(__always)
  package static func appendByteString(_ value: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
    appendHead(2, UInt64(value.count), to: &bytes)
    bytes.append(contentsOf: value)
  }

  /// Appends a float in double precision whatever its value: for a field whose width a
  /// reader may rely on, such as the live link's times.
  @inlinable @inline(__always)
  package static func appendFloat64(_ value: Double, to bytes: inout [UInt8]) {
    bytes.append(0xfb)
    appendBigEndian(value.bitPattern, to: &bytes)
  }

  /// Appends a float in the shortest of half, single and double precision that keeps its
  /// value exactly; every NaN becomes the half-precision quiet NaN 0xf97e00.
  @inlinable
  static func appendFloat(_ value: Double, to bytes: inout [UInt8]) {
    if value.isNaN {
      bytes.append(0xf9)
      bytes.append(0x7e)
      bytes.append(0x00)
      return
    }
    let single = Float(value)
    guard Double(single) == value else {
      bytes.append(0xfb)
      appendBigEndian(value.bitPattern, to: &bytes)
      return
    }
    if let half = halfBits(exactly: single) {
      bytes.append(0xf9)
      appendBigEndian(half, to: &bytes)
    } else {
      bytes.append(0xfa)
      appendBigEndian(single.bitPattern, to: &bytes)
    }
  }

  /// The half-precision bits of `value` if half precision holds it exactly (NaN excluded).
  @inlinable
  package static func halfBits(exactly value: Float) -> UInt16? {
    let bits = value.bitPattern
    let sign = UInt16(truncatingIfNeeded: (bits &>> 16) & 0x8000)
    let exponent = Int((bits &>> 23) & 0xff)
    let mantissa = bits & 0x7f_ffff
    switch exponent {
    case 0xff:  // infinity (NaN never gets here)
      return mantissa == 0 ? sign | 0x7c00 : nil
    case 0:  // zero; single-precision subnormals are far below half's range
      return mantissa == 0 ? sign : nil
    default:
      let unbiased = exponent - 127
      if unbiased > 15 || unbiased < -24 { return nil }
      if unbiased >= -14 {  // a normal half keeps 10 of the 23 mantissa bits
        guard mantissa & 0x1fff == 0 else { return nil }
        return sign | UInt16(unbiased + 15) &<< 10 | UInt16(truncatingIfNeeded: mantissa &>> 13)
      }
      // A subnormal half is m × 2^-24; the value is (2^23 + mantissa) × 2^(unbiased - 23).
      let significand = mantissa | 0x80_0000
      let shift = UInt32(-(unbiased + 1))
      guard significand & ((1 &<< shift) - 1) == 0 else { return nil }
      return sign | UInt16(truncatingIfNeeded: significand &>> shift)
    }
  }
}
