import RetraceCBOR

/// A 64-bit hash of everything a value's `encode(to:)` writes, computed as it encodes: no
/// bytes are written, nothing is sorted, and a container costs one allocation (the box
/// `KeyedEncodingContainer` needs), a value none.
///
/// Each value the encoding writes (a number, a string, a `nil`, the start of a container, a
/// value that writes nothing) contributes a hash of its kind, its bits and its *path*: the
/// keys and indices that lead to it from the top. The hash is the wrapping sum of the
/// contributions, finalized. So:
///
/// - Two values with the same encoding have the same hash.
/// - A keyed container's entries may come in any order: a `Dictionary` keyed by strings or
///   integers, whose order depends on its history, hashes as one whatever its order.
/// - A `Set`, or a `Dictionary` with other keys, encodes as an array in its own hash order,
///   which differs between equal instances: each of its entries is hashed on its own and
///   the entries are summed, in any order, as deterministic CBOR (`StateHash`) sorts them.
/// - An empty container still counts (its start is a contribution), so `[[]]` and `[]`
///   differ; so do `nil` and a missing key, and a value that writes nothing and none (as
///   CBOR writes such a value as an empty map).
/// - Every hash is XXH64 (of a string's bytes, or of the words it mixes), so two values
///   whose encodings differ share a hash with a probability of about 2⁻⁶⁴.
/// - Values nested deeper than ``CBORDecoder/maximumNestingDepth`` are an error, as for
///   `StateHash`, not a stack overflow.
///
/// Why by hand: the checker needs a fingerprint of any `Codable` state, at the rate it
/// makes successor states. Encoding to bytes first and hashing them (`StateHash`) costs a
/// buffer and a key sort per state, about twice this; `Hashable` is faster but a type may
/// hash fewer fields than it compares. No listed library hashes an encoding without writing
/// it.
struct StructureHash {
  /// Hashes `value`'s encoding.
  static func of<Value: Encodable>(_ value: Value) throws -> UInt64 {
    let sink = Sink()
    try HashingEncoder(path: Mix.seed, sink: sink, type: Value.self).write(value)
    return sink.sum
  }
}

/// The running sum of contributions, shared by every encoder and container of one hash (or
/// of one entry of an unordered collection).
private final class Sink {
  var sum: UInt64 = 0
  /// The contributions added, to tell a value that wrote nothing.
  var count = 0
  /// How deep the values being written are nested.
  var depth = 0

  @inline(__always)
  func add(_ path: UInt64, _ kind: UInt64, _ bits: UInt64) {
    sum &+= Mix.words(path, kind, bits)
    count &+= 1
  }
}

/// The hashing: XXH64 of a string's UTF-8 bytes, and of the two or three words that make a
/// path or a contribution.
private enum Mix {
  static let seed: UInt64 = 0x243F_6A88_85A3_08D3

  // What a word stands for, so that a key, an index and each kind of value differ.
  static let key: UInt64 = 0x10
  static let index: UInt64 = 0x11
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
  static let nothing: UInt64 = 0x0C
  static let unorderedEntry: UInt64 = 0x0D

  @inline(__always)
  static func words(_ a: UInt64, _ b: UInt64, _ c: UInt64) -> UInt64 {
    XXH64.hash(words: a, b, c, seed: seed)
  }

  /// The path of the value under `key` of a keyed container at `path`: by the key's
  /// `stringValue`, which is what an encoding writes. (Not by its `intValue`: a
  /// `Dictionary<String, _>` gives the keys "1" and "01" the same one.)
  @inline(__always)
  static func child(_ path: UInt64, key: some CodingKey) -> UInt64 {
    words(path, Self.key, hash(key.stringValue))
  }

  /// The path of the `index`th value of an unkeyed container at `path`.
  @inline(__always)
  static func child(_ path: UInt64, index position: Int) -> UInt64 {
    words(path, index, UInt64(bitPattern: Int64(position)))
  }

  /// XXH64 of a string's UTF-8 bytes.
  @inline(__always)
  static func hash(_ string: String) -> UInt64 {
    if let hash = string.utf8.withContiguousStorageIfAvailable({
      XXH64.hash(UnsafeRawBufferPointer($0), seed: seed)
    }) {
      return hash
    }
    var string = string
    return string.withUTF8 { XXH64.hash(UnsafeRawBufferPointer($0), seed: seed) }
  }
}

/// The encoder: a path, the sink, and the type of the value it encodes (to tell an
/// unordered collection). Small enough to pass as `any Encoder` without a box.
private struct HashingEncoder: Encoder {
  let path: UInt64
  let sink: Sink
  let type: Any.Type

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// Writes `value` here: its own encoding, or a contribution that says it wrote nothing.
  func write<T: Encodable>(_ value: T) throws {
    guard sink.depth < CBORDecoder.maximumNestingDepth else {
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(
          codingPath: [],
          debugDescription:
            "values nest deeper than \(CBORDecoder.maximumNestingDepth) levels"))
    }
    sink.depth += 1
    defer { sink.depth -= 1 }
    let before = sink.count
    try value.encode(to: self)
    if sink.count == before { sink.add(path, Mix.nothing, 0) }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    sink.add(path, Mix.keyedContainer, 0)
    return KeyedEncodingContainer(KeyedHashingContainer(path: path, sink: sink))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    sink.add(path, Mix.unkeyedContainer, 0)
    if let unordered = type as? any UnorderedCollection.Type {
      return UnorderedHashingContainer(
        path: path, sink: sink, groupSize: Int(unordered.cborGroupSize))
    }
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
  func write(_ value: String, at path: UInt64) { sink.add(path, Mix.string, Mix.hash(value)) }
  @inline(__always)
  func writeNil(at path: UInt64) { sink.add(path, Mix.null, 0) }
  @inline(__always)
  func write<T: Encodable>(_ value: T, at path: UInt64) throws {
    try HashingEncoder(path: path, sink: sink, type: T.self).write(value)
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
    encoder(at: Mix.child(path, key: key)).container(keyedBy: keyType)
  }

  func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    encoder(at: Mix.child(path, key: key)).unkeyedContainer()
  }

  func superEncoder() -> any Encoder {
    encoder(at: Mix.child(path, key: SuperKey.super))
  }

  func superEncoder(forKey key: Key) -> any Encoder {
    encoder(at: Mix.child(path, key: key))
  }

  private func encoder(at path: UInt64) -> HashingEncoder {
    HashingEncoder(path: path, sink: sink, type: Void.self)
  }
}

/// The key `superEncoder()` encodes under, as `JSONEncoder` names it.
private enum SuperKey: String, CodingKey {
  case `super`
}

/// An array's container: each element at its index.
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
    HashingEncoder(path: next(), sink: sink, type: Void.self).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    HashingEncoder(path: next(), sink: sink, type: Void.self).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    HashingEncoder(path: next(), sink: sink, type: Void.self)
  }
}

/// The container of a `Set`, or of a `Dictionary` whose keys are neither strings nor
/// integers: its elements come in the instance's own order, so each entry (an element, or
/// a key and its value) is hashed apart, and the entries' hashes are summed, in any order.
private struct UnorderedHashingContainer: UnkeyedEncodingContainer {
  let path: UInt64
  let sink: Sink
  let groupSize: Int
  private(set) var count = 0
  /// The entry being written.
  private var entry: Sink?

  init(path: UInt64, sink: Sink, groupSize: Int) {
    self.path = path
    self.sink = sink
    self.groupSize = max(groupSize, 1)
  }

  var codingPath: [any CodingKey] { [] }

  /// Writes the next element into its entry, and adds the entry once it is whole.
  private mutating func next<R>(_ body: (HashingEncoder) throws -> R) rethrows -> R {
    let position = count % groupSize
    if position == 0 {
      entry = Sink()
      entry?.depth = sink.depth
    }
    let entry = self.entry ?? sink
    count += 1
    let result = try body(
      HashingEncoder(path: Mix.child(Mix.seed, index: position), sink: entry, type: Void.self))
    if position == groupSize - 1 { sink.add(path, Mix.unorderedEntry, entry.sum) }
    return result
  }

  mutating func encodeNil() { next { $0.single.encodeNil() } }
  mutating func encode(_ value: Bool) { next { $0.single.encode(value) } }
  mutating func encode(_ value: String) { next { $0.single.encode(value) } }
  mutating func encode(_ value: Double) { next { $0.single.encode(value) } }
  mutating func encode(_ value: Float) { next { $0.single.encode(value) } }
  mutating func encode(_ value: Int) { next { $0.single.encode(value) } }
  mutating func encode(_ value: Int8) { next { $0.single.encode(value) } }
  mutating func encode(_ value: Int16) { next { $0.single.encode(value) } }
  mutating func encode(_ value: Int32) { next { $0.single.encode(value) } }
  mutating func encode(_ value: Int64) { next { $0.single.encode(value) } }
  mutating func encode(_ value: Int128) { next { $0.single.encode(value) } }
  mutating func encode(_ value: UInt) { next { $0.single.encode(value) } }
  mutating func encode(_ value: UInt8) { next { $0.single.encode(value) } }
  mutating func encode(_ value: UInt16) { next { $0.single.encode(value) } }
  mutating func encode(_ value: UInt32) { next { $0.single.encode(value) } }
  mutating func encode(_ value: UInt64) { next { $0.single.encode(value) } }
  mutating func encode(_ value: UInt128) { next { $0.single.encode(value) } }
  mutating func encode<T: Encodable>(_ value: T) throws {
    try next { try $0.single.encode(value) }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    next { $0.container(keyedBy: keyType) }
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    next { $0.unkeyedContainer() }
  }

  mutating func superEncoder() -> any Encoder {
    next { $0 }
  }
}

extension HashingEncoder {
  /// The single-value container at this encoder's path.
  fileprivate var single: SingleValueHashingContainer {
    SingleValueHashingContainer(path: path, sink: sink)
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
