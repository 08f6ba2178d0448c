/// The initial byte and argument of one CBOR data item (RFC 8949 §3).
@usableFromInline
package struct CBORHead {
  /// Major type, 0…7.
  @usableFromInline package var major: UInt8
  /// Additional information, the low five bits of the initial byte.
  @usableFromInline package var info: UInt8
  /// The argument: a value, a length, a count, a tag number or a float's bits.
  /// Zero for an indefinite length (info 31).
  @usableFromInline package var argument: UInt64
  /// The offset of the first byte after the head.
  @usableFromInline package var end: Int

  /// Whether the item has an indefinite length (or, for major type 7, is a "break").
  @inlinable package var isIndefinite: Bool { info == 31 }

  @inlinable
  init(major: UInt8, info: UInt8, argument: UInt64, end: Int) {
    self.major = major
    self.info = info
    self.argument = argument
    self.end = end
  }
}

/// Bounds-checked reading of CBOR heads and items from raw bytes.
///
/// Every method checks lengths against the bytes that remain before anything else, so
/// hostile input yields a ``CBORError``: never a trap, never an allocation sized by a
/// header's claim.
///
/// The package's one reader of CBOR heads: ``CBORReader``, the Codable decoder and the
/// ``CBORValue`` parser read with it, and so do the trace reader's record envelopes
/// (`RetraceLog`) and the live link's messages (`RetraceLiveProtocol`, through
/// ``CBORReader``).
@usableFromInline
package struct CBORItemScanner {
  @usableFromInline let bytes: UnsafeRawBufferPointer

  /// A scanner of `bytes`.
  @inlinable
  package init(_ bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  /// Reads the head of the item that starts at `offset`.
  @_transparent @usableFromInline
  package func head(at offset: Int) throws(CBORError) -> CBORHead {
    guard offset < bytes.count else {
      throw CBORError(.truncated, "the input ends where a data item was expected", offset: offset)
    }
    let initial = bytes[offset]
    let major = initial &>> 5
    let info = initial & 0x1f
    switch info {
    case 0..<24:
      return CBORHead(major: major, info: info, argument: UInt64(info), end: offset &+ 1)
    case 24:
      try need(1, after: offset)
      return CBORHead(
        major: major, info: info, argument: UInt64(bytes[offset &+ 1]), end: offset &+ 2)
    case 25:
      try need(2, after: offset)
      let value = UInt16(
        bigEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 1, as: UInt16.self))
      return CBORHead(major: major, info: info, argument: UInt64(value), end: offset &+ 3)
    case 26:
      try need(4, after: offset)
      let value = UInt32(
        bigEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 1, as: UInt32.self))
      return CBORHead(major: major, info: info, argument: UInt64(value), end: offset &+ 5)
    case 27:
      try need(8, after: offset)
      let value = UInt64(
        bigEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 1, as: UInt64.self))
      return CBORHead(major: major, info: info, argument: value, end: offset &+ 9)
    case 31:
      // Indefinite length exists for strings, arrays and maps; 0xff is "break".
      guard major >= 2 && major != 6 else {
        throw CBORError(
          .invalidHeader, "major type \(major) has no indefinite-length form", offset: offset)
      }
      return CBORHead(major: major, info: info, argument: 0, end: offset &+ 1)
    default:
      throw CBORError(
        .invalidHeader, "reserved additional information \(info) in initial byte", offset: offset)
    }
  }

  @_transparent @usableFromInline
  func need(_ count: Int, after offset: Int) throws(CBORError) {
    guard bytes.count &- offset > count else {
      throw CBORError(.truncated, "the input ends inside a data item's head", offset: offset)
    }
  }

  /// The end of a definite-length string whose head is `head`, checked against the input.
  @_transparent @usableFromInline
  func stringEnd(_ head: CBORHead, at offset: Int) throws(CBORError) -> Int {
    let remaining = bytes.count &- head.end
    guard head.argument <= UInt64(remaining) else {
      throw CBORError(
        .lengthTooLarge,
        "a string claims \(head.argument) bytes but only \(remaining) remain", offset: offset)
    }
    return head.end &+ Int(truncatingIfNeeded: head.argument)
  }

  /// The number of items of a definite-length array or map, checked against the input:
  /// every item takes at least one byte.
  @_transparent @usableFromInline
  func itemCount(_ head: CBORHead, at offset: Int) throws(CBORError) -> Int {
    let remaining = UInt64(bytes.count &- head.end)
    let limit = head.major == 5 ? remaining / 2 : remaining
    guard head.argument <= limit else {
      throw CBORError(
        .lengthTooLarge,
        "\(head.major == 5 ? "a map" : "an array") claims \(head.argument) entries "
          + "but only \(remaining) bytes remain", offset: offset)
    }
    return Int(truncatingIfNeeded: head.argument)
  }

  /// Whether the byte at `offset` is the "break" stop code of an indefinite-length item.
  @inline(__always)
  func isBreak(at offset: Int) throws(CBORError) -> Bool {
    guard offset < bytes.count else {
      throw CBORError(.truncated, "the input ends inside an indefinite-length item", offset: offset)
    }
    return bytes[offset] == 0xff
  }

  /// Returns the offset just past the item at `offset`.
  ///
  /// - Parameters:
  ///   - depth: How many arrays, maps and tags enclose the item.
  ///   - validating: Whether to check text strings for valid UTF-8 (the other rules of
  ///     well-formedness are always checked).
  func skipItem(at offset: Int, depth: Int, validating: Bool) throws(CBORError) -> Int {
    let head = try head(at: offset)
    switch head.major {
    case 0, 1:
      return head.end
    case 2, 3:
      if head.isIndefinite {
        return try skipChunks(of: head, at: offset, validating: validating)
      }
      let end = try stringEnd(head, at: offset)
      if validating && head.major == 3 {
        try Self.validateUTF8(UnsafeRawBufferPointer(rebasing: bytes[head.end..<end]), at: head.end)
      }
      return end
    case 4, 5:
      try Self.checkDepth(depth, at: offset)
      let perEntry = head.major == 5 ? 2 : 1
      var position = head.end
      if head.isIndefinite {
        while try !isBreak(at: position) {
          for _ in 0..<perEntry {
            position = try skipItem(at: position, depth: depth &+ 1, validating: validating)
          }
        }
        return position &+ 1
      }
      for _ in 0..<(try itemCount(head, at: offset) &* perEntry) {
        position = try skipItem(at: position, depth: depth &+ 1, validating: validating)
      }
      return position
    case 6:
      try Self.checkDepth(depth, at: offset)
      return try skipItem(at: head.end, depth: depth &+ 1, validating: validating)
    default:
      try Self.checkSimple(head, at: offset)
      return head.end
    }
  }

  /// Skips the chunks of an indefinite-length string up to and including its "break".
  private func skipChunks(
    of head: CBORHead, at offset: Int, validating: Bool
  ) throws(CBORError) -> Int {
    var position = head.end
    while try !isBreak(at: position) {
      let chunk = try self.head(at: position)
      guard chunk.major == head.major, !chunk.isIndefinite else {
        throw CBORError(
          .invalidHeader,
          "a chunk of an indefinite-length string must be a definite-length "
            + "string of the same major type", offset: position)
      }
      let end = try stringEnd(chunk, at: position)
      if validating && head.major == 3 {
        try Self.validateUTF8(
          UnsafeRawBufferPointer(rebasing: bytes[chunk.end..<end]), at: chunk.end)
      }
      position = end
    }
    return position &+ 1
  }

  /// Throws unless an item at `depth` may contain further items.
  @inline(__always)
  static func checkDepth(_ depth: Int, at offset: Int) throws(CBORError) {
    guard depth < CBORDecoder.maximumNestingDepth else {
      throw CBORError(
        .nestingTooDeep,
        "arrays, maps and tags are nested deeper than \(CBORDecoder.maximumNestingDepth)",
        offset: offset)
    }
  }

  /// Throws if a major type 7 head is a stray "break" or a two-byte simple value below 32.
  @inline(__always)
  static func checkSimple(_ head: CBORHead, at offset: Int) throws(CBORError) {
    if head.isIndefinite {
      throw CBORError(.invalidHeader, "unexpected \"break\" (0xff)", offset: offset)
    }
    if head.info == 24 && head.argument < 32 {
      throw CBORError(
        .invalidHeader, "simple value \(head.argument) must be encoded in one byte", offset: offset)
    }
  }

  /// Throws unless `text` is valid UTF-8 (RFC 3629: no overlongs, no surrogates, at most
  /// U+10FFFF).
  /// Whether every byte of `text` is below 0x80 (and so valid UTF-8).
  @_transparent @usableFromInline
  static func isASCII(_ text: UnsafeRawBufferPointer) -> Bool {
    var i = 0
    var bits: UInt64 = 0
    while text.count &- i >= 8 {
      bits |= text.loadUnaligned(fromByteOffset: i, as: UInt64.self)
      i &+= 8
    }
    while i < text.count {
      bits |= UInt64(text.load(fromByteOffset: i, as: UInt8.self))
      i &+= 1
    }
    return bits & 0x8080_8080_8080_8080 == 0
  }

  @usableFromInline
  static func validateUTF8(_ text: UnsafeRawBufferPointer, at offset: Int) throws(CBORError) {
    let count = text.count
    var i = 0
    while i < count {
      if count &- i >= 8,
        text.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
      {
        i &+= 8
        continue
      }
      let lead = text[i]
      var length = 1
      var low: UInt8 = 0x80
      var high: UInt8 = 0xbf
      switch lead {
      case 0x00...0x7f:
        i &+= 1
        continue
      case 0xc2...0xdf: length = 2
      case 0xe0:
        length = 3
        low = 0xa0
      case 0xed:
        length = 3
        high = 0x9f
      case 0xe1...0xef: length = 3
      case 0xf0:
        length = 4
        low = 0x90
      case 0xf4:
        length = 4
        high = 0x8f
      case 0xf1...0xf3: length = 4
      default: length = 0
      }
      var valid = length > 0 && count &- i >= length
      if valid {
        let second = text[i &+ 1]
        valid = second >= low && second <= high
        for k in 2..<max(length, 2) where valid {
          valid = text[i &+ k] & 0xc0 == 0x80
        }
      }
      guard valid else {
        throw CBORError(.invalidUTF8, "a text string is not valid UTF-8", offset: offset &+ i)
      }
      i &+= length
    }
  }

  /// Whether two byte buffers hold the same bytes; a plain loop, 8 bytes at a time,
  /// because generic `elementsEqual` costs some 40 instructions a byte.
  @_transparent @usableFromInline
  static func bytesEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    guard let x = a.baseAddress, let y = b.baseAddress else { return true }
    let (p, q) = (UnsafeRawPointer(x), UnsafeRawPointer(y))
    var i = 0
    while a.count &- i >= 8 {
      guard
        p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
          == q.loadUnaligned(fromByteOffset: i, as: UInt64.self)
      else {
        return false
      }
      i &+= 8
    }
    while i < a.count {
      guard x[i] == y[i] else { return false }
      i &+= 1
    }
    return true
  }

  /// The value of an IEEE 754 half-precision float (RFC 8949 Appendix D).
  @usableFromInline
  package static func double(fromHalf bits: UInt16) -> Double {
    let exponent = Int((bits &>> 10) & 0x1f)
    let mantissa = Int(bits & 0x3ff)
    let magnitude: Double
    switch exponent {
    case 0: magnitude = Double(sign: .plus, exponent: -24, significand: Double(mantissa))
    case 31: magnitude = mantissa == 0 ? .infinity : .nan
    default:
      magnitude = Double(sign: .plus, exponent: exponent - 25, significand: Double(mantissa + 1024))
    }
    return bits & 0x8000 == 0 ? magnitude : -magnitude
  }

  /// The float value of a major type 7 head with additional information 25, 26 or 27.
  @inline(__always)
  static func double(from head: CBORHead) -> Double? {
    switch head.info {
    case 25: return double(fromHalf: UInt16(truncatingIfNeeded: head.argument))
    case 26: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: head.argument)))
    case 27: return Double(bitPattern: head.argument)
    default: return nil
    }
  }

  /// A short English name of a head's type, for error messages.
  static func typeName(_ head: CBORHead) -> String {
    switch head.major {
    case 0: return "an unsigned integer"
    case 1: return "a negative integer"
    case 2: return "a byte string"
    case 3: return "a text string"
    case 4: return "an array"
    case 5: return "a map"
    case 6: return "a tag"
    default:
      switch head.info {
      case 20, 21: return "a boolean"
      case 22: return "null"
      case 23: return "undefined"
      case 25, 26, 27: return "a float"
      default: return "a simple value"
      }
    }
  }
}
