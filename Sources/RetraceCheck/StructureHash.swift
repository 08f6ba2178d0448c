/// A 64-bit hash of everything a value's `encode(to:)` writes, computed as it encodes: no
/// bytes are written, nothing is sorted, and a container costs one allocation (the box
/// `KeyedEncodingContainer` needs), a value none.
///
/// Each value the encoding writes (a number, a string, a `nil`, the start of a container)
/// contributes a mix of its kind, its bits and its *path*: the keys and indices that lead to
/// it from the top. The hash is the wrapping sum of the contributions, finalized. So:
///
/// - Two values with the same encoding have the same hash.
/// - A keyed container's entries may come in any order: a `Dictionary`, whose order depends
///   on its history, hashes as one whatever its order. (A `Set` encodes as an array, so two
///   equal sets written in different orders hash apart; for a model checker that only costs
///   a state explored twice, never a state missed.)
/// - An empty container still counts (its start is a contribution), so `[[]]` and `[]`
///   differ, and so do `nil` and a missing key.
/// - Two values whose encodings differ share a hash with a probability of about 2⁻⁶⁴, as
///   for any good 64-bit hash; the contributions are mixed with a full 64×64→128-bit
///   multiply, and the sum is finalized with a bijective avalanche.
///
/// Why by hand: the checker needs a fingerprint of any `Codable` state, at the rate it
/// makes successor states (a million a second). Encoding to bytes first and hashing them
/// (`StateHash`) costs an allocation-heavy buffer and a key sort per state, about eight
/// times the reducer's own cost; `Hashable` is fast but a type may hash fewer fields than it
/// compares. No listed library hashes an encoding without writing it.
struct StructureHash {
  /// Hashes `value`'s encoding.
  static func of<Value: Encodable>(_ value: Value) throws -> UInt64 {
    let sink = Sink()
    try value.encode(to: HashingEncoder(path: Mix.seed, sink: sink))
    return Mix.finalize(sink.sum)
  }
}

/// The running sum of contributions, shared by every encoder and container of one hash.
private final class Sink {
  var sum: UInt64 = 0

  @inline(__always)
  func add(_ path: UInt64, _ kind: UInt64, _ bits: UInt64) {
    sum &+= Mix.contribution(path: path, kind: kind, bits: bits)
  }

  @inline(__always)
  func add(_ path: UInt64, _ string: String) {
    add(path, Mix.string, Mix.hash(string))
  }
}

/// The mixing functions: wyhash's 64×64→128-bit multiply-fold for the contributions and
/// MurmurHash3's 64-bit finalizer for the sum.
private enum Mix {
  static let seed: UInt64 = 0x243F_6A88_85A3_08D3
  static let key: UInt64 = 0x1319_8A2E_0370_7344
  static let index: UInt64 = 0xA409_3822_299F_31D0
  static let a: UInt64 = 0x082E_FA98_EC4E_6C89
  static let b: UInt64 = 0x4528_21E6_38D0_1377
  static let c: UInt64 = 0xBE54_66CF_34E9_0C6C

  // The kinds of contribution: a value's kind is part of what it contributes, so that
  // `0`, `false`, `""` and `nil` at one path differ.
  static let signed: UInt64 = 0x01
  static let unsigned: UInt64 = 0x02
  static let float: UInt64 = 0x03
  static let double: UInt64 = 0x04
  static let bool: UInt64 = 0x05
  static let string: UInt64 = 0x06
  static let null: UInt64 = 0x07
  static let keyedContainer: UInt64 = 0x08
  static let unkeyedContainer: UInt64 = 0x09
  static let signedHigh: UInt64 = 0x0A
  static let unsignedHigh: UInt64 = 0x0B

  @inline(__always)
  static func fold(_ x: UInt64, _ y: UInt64) -> UInt64 {
    let (high, low) = x.multipliedFullWidth(by: y)
    return high ^ low
  }

  /// The path of the value under `key` of a keyed container at `path`: by the key's
  /// `stringValue`, which is what an encoding writes. (Not by its `intValue`: a
  /// `Dictionary<String, _>` gives the keys "1" and "01" the same one.)
  @inline(__always)
  static func child(_ path: UInt64, key: some CodingKey) -> UInt64 {
    fold(path ^ Self.key, hash(key.stringValue) ^ a)
  }

  /// The path of the `index`th value of an unkeyed container at `path`.
  @inline(__always)
  static func child(_ path: UInt64, index position: Int) -> UInt64 {
    fold(path ^ index, UInt64(bitPattern: Int64(position)) ^ b)
  }

  /// What one value contributes: its path, kind and bits, mixed twice so that no choice of
  /// bits cancels the path.
  @inline(__always)
  static func contribution(path: UInt64, kind: UInt64, bits: UInt64) -> UInt64 {
    let value = fold(bits ^ a, kind ^ c)
    return fold(path ^ b, value ^ seed) ^ value
  }

  /// A string's UTF-8 bytes, eight at a time, with its length.
  @inline(__always)
  static func hash(_ string: String) -> UInt64 {
    if let hash = string.utf8.withContiguousStorageIfAvailable({
      hash(bytes: UnsafeRawBufferPointer($0))
    }) {
      return hash
    }
    var string = string
    return string.withUTF8 { hash(bytes: UnsafeRawBufferPointer($0)) }
  }

  static func hash(bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash = seed ^ UInt64(bytes.count)
    var offset = 0
    while offset + 8 <= bytes.count {
      hash = fold(hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self), a)
      offset += 8
    }
    if offset < bytes.count {
      var tail: UInt64 = 0
      var index = bytes.count
      while index > offset {
        index -= 1
        tail = tail << 8 | UInt64(bytes[index])
      }
      hash = fold(hash ^ tail, b)
    }
    return fold(hash ^ c, UInt64(bytes.count) ^ a)
  }

  /// MurmurHash3's finalizer: a bijection that spreads every bit of the sum.
  static func finalize(_ x: UInt64) -> UInt64 {
    var x = x
    x ^= x >> 33
    x &*= 0xFF51_AFD7_ED55_8CCD
    x ^= x >> 33
    x &*= 0xC4CE_B9FE_1A85_EC53
    x ^= x >> 33
    return x
  }
}

/// The encoder: a path and the sink. Small enough to pass as `any Encoder` without a box.
private struct HashingEncoder: Encoder {
  let path: UInt64
  let sink: Sink

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    sink.add(path, Mix.keyedContainer, 0)
    return KeyedEncodingContainer(KeyedHashingContainer(path: path, sink: sink))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    sink.add(path, Mix.unkeyedContainer, 0)
    return UnkeyedHashingContainer(path: path, sink: sink)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueHashingContainer(path: path, sink: sink)
  }
}

/// The primitives every container writes, at a path.
private protocol HashingWriter {
  var sink: Sink { get }
}

extension HashingWriter {
  @inline(__always)
  func write(integer value: some FixedWidthInteger, at path: UInt64) {
    if value.bitWidth > 64 {
      let signed = type(of: value).isSigned
      sink.add(
        path, signed ? Mix.signedHigh : Mix.unsignedHigh, UInt64(truncatingIfNeeded: value >> 64))
      sink.add(path, signed ? Mix.signed : Mix.unsigned, UInt64(truncatingIfNeeded: value))
    } else if type(of: value).isSigned {
      sink.add(path, Mix.signed, UInt64(bitPattern: Int64(truncatingIfNeeded: value)))
    } else {
      sink.add(path, Mix.unsigned, UInt64(truncatingIfNeeded: value))
    }
  }

  @inline(__always)
  func write(_ value: Bool, at path: UInt64) { sink.add(path, Mix.bool, value ? 1 : 0) }
  @inline(__always)
  func write(_ value: Double, at path: UInt64) { sink.add(path, Mix.double, value.bitPattern) }
  @inline(__always)
  func write(_ value: Float, at path: UInt64) {
    sink.add(path, Mix.float, UInt64(value.bitPattern))
  }
  @inline(__always)
  func write(_ value: String, at path: UInt64) { sink.add(path, value) }
  @inline(__always)
  func writeNil(at path: UInt64) { sink.add(path, Mix.null, 0) }
  @inline(__always)
  func write<T: Encodable>(_ value: T, at path: UInt64) throws {
    try value.encode(to: HashingEncoder(path: path, sink: sink))
  }
}

private struct KeyedHashingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol,
  HashingWriter
{
  let path: UInt64
  let sink: Sink

  var codingPath: [any CodingKey] { [] }

  func encodeNil(forKey key: Key) { writeNil(at: Mix.child(path, key: key)) }
  func encode(_ value: Bool, forKey key: Key) { write(value, at: Mix.child(path, key: key)) }
  func encode(_ value: String, forKey key: Key) { write(value, at: Mix.child(path, key: key)) }
  func encode(_ value: Double, forKey key: Key) { write(value, at: Mix.child(path, key: key)) }
  func encode(_ value: Float, forKey key: Key) { write(value, at: Mix.child(path, key: key)) }
  func encode(_ value: Int, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode(_ value: Int8, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode(_ value: Int16, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode(_ value: Int32, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode(_ value: Int64, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode(_ value: Int128, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode(_ value: UInt, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode(_ value: UInt8, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode(_ value: UInt16, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode(_ value: UInt32, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode(_ value: UInt64, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode(_ value: UInt128, forKey key: Key) {
    write(integer: value, at: Mix.child(path, key: key))
  }
  func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try write(value, at: Mix.child(path, key: key))
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    HashingEncoder(path: Mix.child(path, key: key), sink: sink).container(keyedBy: keyType)
  }

  func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    HashingEncoder(path: Mix.child(path, key: key), sink: sink).unkeyedContainer()
  }

  func superEncoder() -> any Encoder {
    HashingEncoder(path: Mix.child(path, key: SuperKey.super), sink: sink)
  }

  func superEncoder(forKey key: Key) -> any Encoder {
    HashingEncoder(path: Mix.child(path, key: key), sink: sink)
  }
}

/// The key `superEncoder()` encodes under, as `JSONEncoder` names it.
private enum SuperKey: String, CodingKey {
  case `super`
}

private struct UnkeyedHashingContainer: UnkeyedEncodingContainer, HashingWriter {
  let path: UInt64
  let sink: Sink
  private(set) var count = 0

  init(path: UInt64, sink: Sink) {
    self.path = path
    self.sink = sink
  }

  var codingPath: [any CodingKey] { [] }

  /// The path of the next element, counted.
  private mutating func next() -> UInt64 {
    defer { count += 1 }
    return Mix.child(path, index: count)
  }

  mutating func encodeNil() { writeNil(at: next()) }
  mutating func encode(_ value: Bool) { write(value, at: next()) }
  mutating func encode(_ value: String) { write(value, at: next()) }
  mutating func encode(_ value: Double) { write(value, at: next()) }
  mutating func encode(_ value: Float) { write(value, at: next()) }
  mutating func encode(_ value: Int) { write(integer: value, at: next()) }
  mutating func encode(_ value: Int8) { write(integer: value, at: next()) }
  mutating func encode(_ value: Int16) { write(integer: value, at: next()) }
  mutating func encode(_ value: Int32) { write(integer: value, at: next()) }
  mutating func encode(_ value: Int64) { write(integer: value, at: next()) }
  mutating func encode(_ value: Int128) { write(integer: value, at: next()) }
  mutating func encode(_ value: UInt) { write(integer: value, at: next()) }
  mutating func encode(_ value: UInt8) { write(integer: value, at: next()) }
  mutating func encode(_ value: UInt16) { write(integer: value, at: next()) }
  mutating func encode(_ value: UInt32) { write(integer: value, at: next()) }
  mutating func encode(_ value: UInt64) { write(integer: value, at: next()) }
  mutating func encode(_ value: UInt128) { write(integer: value, at: next()) }
  mutating func encode<T: Encodable>(_ value: T) throws { try write(value, at: next()) }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    HashingEncoder(path: next(), sink: sink).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    HashingEncoder(path: next(), sink: sink).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    HashingEncoder(path: next(), sink: sink)
  }
}

private struct SingleValueHashingContainer: SingleValueEncodingContainer, HashingWriter {
  let path: UInt64
  let sink: Sink

  var codingPath: [any CodingKey] { [] }

  func encodeNil() { writeNil(at: path) }
  func encode(_ value: Bool) { write(value, at: path) }
  func encode(_ value: String) { write(value, at: path) }
  func encode(_ value: Double) { write(value, at: path) }
  func encode(_ value: Float) { write(value, at: path) }
  func encode(_ value: Int) { write(integer: value, at: path) }
  func encode(_ value: Int8) { write(integer: value, at: path) }
  func encode(_ value: Int16) { write(integer: value, at: path) }
  func encode(_ value: Int32) { write(integer: value, at: path) }
  func encode(_ value: Int64) { write(integer: value, at: path) }
  func encode(_ value: Int128) { write(integer: value, at: path) }
  func encode(_ value: UInt) { write(integer: value, at: path) }
  func encode(_ value: UInt8) { write(integer: value, at: path) }
  func encode(_ value: UInt16) { write(integer: value, at: path) }
  func encode(_ value: UInt32) { write(integer: value, at: path) }
  func encode(_ value: UInt64) { write(integer: value, at: path) }
  func encode(_ value: UInt128) { write(integer: value, at: path) }
  func encode<T: Encodable>(_ value: T) throws { try write(value, at: path) }
}
