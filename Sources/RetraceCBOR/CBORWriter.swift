/// Appends CBOR data items to a growing buffer: the writing half of the hand-written
/// fast path (``CBOREncodable``).
///
/// Every head is written in its shortest form and floats in the shortest exact width, as
/// ``CBOREncoder`` does (`docs/CODEC.md`). The writer does not check that maps and arrays
/// get as many entries as their headers announce, nor that keys come in deterministic
/// order: that is the conforming type's contract, checked by its tests.
///
/// The writer owns raw memory and writes into it directly, without `Array`'s
/// per-append bookkeeping; it cannot be copied. It is `Sendable` as an array of bytes is:
/// being noncopyable, it has one owner at a time, which alone can write, and what it lends
/// only reads.
///
/// ```swift
/// var writer = CBORWriter()
/// writer.writeMapHeader(count: 1)
/// writer.writeKey("count")
/// writer.write(3)
/// writer.bytes   // [0xa1, 0x65, 0x63, 0x6f, 0x75, 0x6e, 0x74, 0x03]
/// ```
public struct CBORWriter: ~Copyable {
  @usableFromInline var base: UnsafeMutableRawPointer
  @usableFromInline var count: Int
  @usableFromInline var capacity: Int

  /// Creates an empty writer.
  ///
  /// - Parameter capacity: How many bytes to make room for at first; the buffer grows
  ///   as needed.
  public init(capacity: Int = 256) {
    self.capacity = Swift.max(capacity, 16)
    base = .allocate(byteCount: self.capacity, alignment: 8)
    count = 0
  }

  deinit { base.deallocate() }

  /// How many bytes have been written so far.
  @inlinable
  public var byteCount: Int { count }

  /// The bytes written so far.
  public var bytes: [UInt8] { Array(UnsafeRawBufferPointer(start: base, count: count)) }

  /// Empties the writer, keeping its storage for the next value: for a writer that encodes
  /// one value after another (the trace writer's actions).
  @inlinable
  public mutating func removeAll() {
    count = 0
  }

  /// Calls `body` with the bytes written so far; they are valid only during the call.
  @inlinable
  public func withBytes<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try body(UnsafeRawBufferPointer(start: base, count: count))
  }

  /// Appends the bytes written so far to `buffer`.
  func append(to buffer: inout [UInt8]) {
    buffer.append(contentsOf: UnsafeRawBufferPointer(start: base, count: count))
  }

  @_transparent @usableFromInline
  mutating func reserve(_ extra: Int) {
    if capacity &- count < extra { grow(extra) }
  }

  @usableFromInline @inline(never)
  mutating func grow(_ extra: Int) {
    let newCapacity = Swift.max(capacity &* 2, count &+ extra)
    let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 8)
    newBase.copyMemory(from: base, byteCount: count)
    base.deallocate()
    base = newBase
    capacity = newCapacity
  }

  @_transparent @usableFromInline
  mutating func appendByte(_ byte: UInt8) {
    reserve(1)
    base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
    count &+= 1
  }

  @_transparent @usableFromInline
  mutating func appendBigEndian<I: FixedWidthInteger>(_ value: I) {
    (base + count).storeBytes(of: value.bigEndian, as: I.self)
    count &+= MemoryLayout<I>.size
  }

  /// Writes the head of an item of major type `major` with argument `argument`.
  @_transparent @usableFromInline
  mutating func writeHead(_ major: UInt8, _ argument: UInt64) {
    reserve(9)
    let initial = major &<< 5
    if argument < 24 {
      base.storeBytes(
        of: initial | UInt8(truncatingIfNeeded: argument), toByteOffset: count, as: UInt8.self)
      count &+= 1
    } else if argument <= 0xff {
      base.storeBytes(of: initial | 24, toByteOffset: count, as: UInt8.self)
      base.storeBytes(
        of: UInt8(truncatingIfNeeded: argument), toByteOffset: count &+ 1, as: UInt8.self)
      count &+= 2
    } else if argument <= 0xffff {
      base.storeBytes(of: initial | 25, toByteOffset: count, as: UInt8.self)
      count &+= 1
      appendBigEndian(UInt16(truncatingIfNeeded: argument))
    } else if argument <= 0xffff_ffff {
      base.storeBytes(of: initial | 26, toByteOffset: count, as: UInt8.self)
      count &+= 1
      appendBigEndian(UInt32(truncatingIfNeeded: argument))
    } else {
      base.storeBytes(of: initial | 27, toByteOffset: count, as: UInt8.self)
      count &+= 1
      appendBigEndian(argument)
    }
  }

  @_transparent @usableFromInline
  mutating func writeText(_ utf8: UnsafeRawBufferPointer) {
    writeHead(3, UInt64(utf8.count))
    appendRaw(utf8)
  }

  /// Appends `bytes` as they are. Up to 32 bytes (map keys, identifiers, most short
  /// strings) are copied with two overlapping loads and stores: a call to `memcpy` costs
  /// more than such a copy, and a hand-written encoding makes several per value.
  @_transparent @usableFromInline
  mutating func appendRaw(_ bytes: UnsafeRawBufferPointer) {
    let n = bytes.count
    reserve(n)
    guard let source = bytes.baseAddress else { return }
    let target = base + count
    if n > 32 {
      target.copyMemory(from: source, byteCount: n)
    } else if n > 16 {
      target.storeBytes(of: source.loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
      target.storeBytes(
        of: source.loadUnaligned(fromByteOffset: n &- 16, as: SIMD16<UInt8>.self),
        toByteOffset: n &- 16,
        as: SIMD16<UInt8>.self)
    } else if n >= 8 {
      target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
      target.storeBytes(
        of: source.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self), toByteOffset: n &- 8,
        as: UInt64.self)
    } else if n >= 4 {
      target.storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
      target.storeBytes(
        of: source.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self), toByteOffset: n &- 4,
        as: UInt32.self)
    } else if n > 0 {
      // 1 to 3 bytes: the first, the middle and the last cover them all.
      let middle = n &>> 1
      let last = n &- 1
      target.storeBytes(of: source.load(as: UInt8.self), as: UInt8.self)
      target.storeBytes(
        of: source.load(fromByteOffset: middle, as: UInt8.self), toByteOffset: middle,
        as: UInt8.self)
      target.storeBytes(
        of: source.load(fromByteOffset: last, as: UInt8.self), toByteOffset: last, as: UInt8.self)
    }
    count &+= n
  }

  /// Writes the head of a map of `count` entries; the entries follow as key, value, key, …
  @_transparent
  public mutating func writeMapHeader(count: Int) {
    writeHead(5, UInt64(count))
  }

  /// Writes the head of an array of `count` items; the items follow.
  @_transparent
  public mutating func writeArrayHeader(count: Int) {
    writeHead(4, UInt64(count))
  }

  /// Writes the head of an enum case the way `Codable` encodes one: a map of one entry from
  /// the case's name to a map of its `fields` labelled values, which follow as key, value, …
  ///
  /// ```swift
  /// case .move(let from, let to):
  ///   writer.writeCase("move", fields: 2)
  ///   writer.writeKey("from"); writer.write(from)
  ///   writer.writeKey("to"); writer.write(to)
  /// ```
  @_transparent
  public mutating func writeCase(_ name: StaticString, fields: Int) {
    writeMapHeader(count: 1)
    writeKey(name)
    writeMapHeader(count: fields)
  }

  /// Writes a map key, or any text known at compile time, without going through `String`.
  @_transparent
  public mutating func writeKey(_ key: StaticString) {
    if key.hasPointerRepresentation {
      writeText(UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    } else {
      write(key.description)
    }
  }

  /// Writes a text string.
  // Not `@_transparent`, unlike the other primitives: made transparent, its closure stays
  // a call into unspecialized code (see W4).
  @inlinable @inline(__always)
  public mutating func write(_ value: String) {
    // A native string lends its UTF-8 as it is; `withUTF8` would need a mutable copy of
    // the string first, a retain and a release.
    let written: Void? = value.utf8.withContiguousStorageIfAvailable {
      writeText(UnsafeRawBufferPointer($0))
    }
    if written == nil {
      var value = value
      value.withUTF8 { writeText(UnsafeRawBufferPointer($0)) }
    }
  }

  /// Writes a signed integer (major type 0 or 1).
  @_transparent
  public mutating func write(_ value: Int) {
    if value >= 0 {
      writeHead(0, UInt64(value))
    } else {
      writeHead(1, ~UInt64(bitPattern: Int64(value)))
    }
  }

  /// Writes an unsigned integer (major type 0).
  @inlinable
  public mutating func write(_ value: UInt64) {
    writeHead(0, value)
  }

  /// Writes a float in the shortest of half, single and double precision that holds it;
  /// every NaN as the half-precision quiet NaN 0xf97e00.
  @_transparent
  public mutating func write(_ value: Double) {
    reserve(9)
    if value.isNaN {
      appendByte(0xf9)
      appendBigEndian(UInt16(0x7e00))
      return
    }
    let single = Float(value)
    guard Double(single) == value else {
      appendByte(0xfb)
      appendBigEndian(value.bitPattern)
      return
    }
    if let half = CBORPrimitiveWriter.halfBits(exactly: single) {
      appendByte(0xf9)
      appendBigEndian(half)
    } else {
      appendByte(0xfa)
      appendBigEndian(single.bitPattern)
    }
  }

  /// Writes `true` (0xf5) or `false` (0xf4).
  @inlinable
  public mutating func write(_ value: Bool) {
    appendByte(value ? 0xf5 : 0xf4)
  }

  /// Writes null (0xf6).
  @inlinable
  public mutating func writeNull() {
    appendByte(0xf6)
  }

  /// Writes a value that has a hand-written encoding.
  @inlinable
  public mutating func write<T: CBOREncodable>(_ value: T) {
    value.encode(to: &self)
  }

  /// Writes a value through its `Encodable` conformance, in deterministic mode: the
  /// escape hatch for parts of a hand-written type that are not on a hot path.
  ///
  /// - Throws: The errors of ``CBOREncoder/encode(_:)``.
  public mutating func encode<T: Encodable>(_ value: T) throws {
    var buffer: [UInt8] = []
    try CBOREncoder(deterministic: true).encodeWithContainers(value, appendingTo: &buffer)
    buffer.withUnsafeBytes { appendRaw($0) }
  }

}

// The buffer is reached only through the writer, which cannot be copied: sending it moves
// the one owner of the memory, and concurrent borrows only read (the reasoning that makes
// `Array<UInt8>` Sendable). The recorder swaps writers in and out of its locked queue.
extension CBORWriter: @unchecked Sendable {}
