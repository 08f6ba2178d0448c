/// A keyed container: a CBOR map with text-string keys, written in encode order.
struct CBORKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let impl: CBOREncodingEngine
  let index: Int
  let id: UInt32

  var codingPath: [any CodingKey] { impl.codingPath(ofFrame: index, id) }

  @inline(__always)
  private func beginEntry(_ key: Key) throws {
    _ = try impl.beginEntry(index, id)
    CBORPrimitiveWriter.appendText(key.stringValue, to: &impl.bytes)
  }

  mutating func encodeNil(forKey key: Key) throws {
    try beginEntry(key)
    impl.bytes.append(0xf6)
  }

  mutating func encode(_ value: Bool, forKey key: Key) throws {
    try beginEntry(key)
    impl.bytes.append(value ? 0xf5 : 0xf4)
  }

  mutating func encode(_ value: String, forKey key: Key) throws {
    try beginEntry(key)
    CBORPrimitiveWriter.appendText(value, to: &impl.bytes)
  }

  mutating func encode(_ value: Double, forKey key: Key) throws {
    try beginEntry(key)
    CBORPrimitiveWriter.appendFloat(value, to: &impl.bytes)
  }

  mutating func encode(_ value: Float, forKey key: Key) throws {
    try beginEntry(key)
    CBORPrimitiveWriter.appendFloat(Double(value), to: &impl.bytes)
  }

  mutating func encode(_ value: Int, forKey key: Key) throws { try encodeSigned(value, key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { try encodeSigned(value, key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { try encodeSigned(value, key) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { try encodeSigned(value, key) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { try encodeSigned(value, key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { try encodeUnsigned(value, key) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { try encodeUnsigned(value, key) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { try encodeUnsigned(value, key) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { try encodeUnsigned(value, key) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodeUnsigned(value, key) }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try beginEntry(key)
    try impl.encodeValue(value)
  }

  @inline(__always)
  private func encodeSigned<I: FixedWidthInteger & SignedInteger>(_ value: I, _ key: Key) throws {
    try beginEntry(key)
    CBORPrimitiveWriter.appendInteger(value, to: &impl.bytes)
  }

  @inline(__always)
  private func encodeUnsigned<I: FixedWidthInteger & UnsignedInteger>(_ value: I, _ key: Key) throws
  {
    try beginEntry(key)
    CBORPrimitiveWriter.appendHead(0, UInt64(value), to: &impl.bytes)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let (index, id) = impl.nestedFrame(.map, in: index, id, key: key.stringValue)
    return KeyedEncodingContainer(
      CBORKeyedEncodingContainer<NestedKey>(impl: impl, index: index, id: id))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let (index, id) = impl.nestedFrame(.array, in: index, id, key: key.stringValue)
    return CBORUnkeyedEncodingContainer(impl: impl, index: index, id: id)
  }

  mutating func superEncoder() -> any Encoder {
    let (index, id) = impl.nestedFrame(.slot, in: index, id, key: "super")
    return CBORSlotEncoder(impl: impl, index: index, id: id)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    let (index, id) = impl.nestedFrame(.slot, in: index, id, key: key.stringValue)
    return CBORSlotEncoder(impl: impl, index: index, id: id)
  }
}

/// An unkeyed container: a CBOR array.
struct CBORUnkeyedEncodingContainer: UnkeyedEncodingContainer {
  let impl: CBOREncodingEngine
  let index: Int
  let id: UInt32

  var codingPath: [any CodingKey] { impl.codingPath(ofFrame: index, id) }
  var count: Int { impl.count(index, id) }

  mutating func encodeNil() throws {
    _ = try impl.beginEntry(index, id)
    impl.bytes.append(0xf6)
  }

  mutating func encode(_ value: Bool) throws {
    _ = try impl.beginEntry(index, id)
    impl.bytes.append(value ? 0xf5 : 0xf4)
  }

  mutating func encode(_ value: String) throws {
    _ = try impl.beginEntry(index, id)
    CBORPrimitiveWriter.appendText(value, to: &impl.bytes)
  }

  mutating func encode(_ value: Double) throws {
    _ = try impl.beginEntry(index, id)
    CBORPrimitiveWriter.appendFloat(value, to: &impl.bytes)
  }

  mutating func encode(_ value: Float) throws {
    _ = try impl.beginEntry(index, id)
    CBORPrimitiveWriter.appendFloat(Double(value), to: &impl.bytes)
  }

  mutating func encode(_ value: Int) throws { try encodeSigned(value) }
  mutating func encode(_ value: Int8) throws { try encodeSigned(value) }
  mutating func encode(_ value: Int16) throws { try encodeSigned(value) }
  mutating func encode(_ value: Int32) throws { try encodeSigned(value) }
  mutating func encode(_ value: Int64) throws { try encodeSigned(value) }
  mutating func encode(_ value: UInt) throws { try encodeUnsigned(value) }
  mutating func encode(_ value: UInt8) throws { try encodeUnsigned(value) }
  mutating func encode(_ value: UInt16) throws { try encodeUnsigned(value) }
  mutating func encode(_ value: UInt32) throws { try encodeUnsigned(value) }
  mutating func encode(_ value: UInt64) throws { try encodeUnsigned(value) }

  mutating func encode<T: Encodable>(_ value: T) throws {
    _ = try impl.beginEntry(index, id)
    try impl.encodeValue(value)
  }

  @inline(__always)
  private mutating func encodeSigned<I: FixedWidthInteger & SignedInteger>(_ value: I) throws {
    _ = try impl.beginEntry(index, id)
    CBORPrimitiveWriter.appendInteger(value, to: &impl.bytes)
  }

  @inline(__always)
  private mutating func encodeUnsigned<I: FixedWidthInteger & UnsignedInteger>(_ value: I) throws {
    _ = try impl.beginEntry(index, id)
    CBORPrimitiveWriter.appendHead(0, UInt64(value), to: &impl.bytes)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    let (index, id) = impl.nestedFrame(.map, in: index, id, key: nil)
    return KeyedEncodingContainer(
      CBORKeyedEncodingContainer<NestedKey>(impl: impl, index: index, id: id))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let (index, id) = impl.nestedFrame(.array, in: index, id, key: nil)
    return CBORUnkeyedEncodingContainer(impl: impl, index: index, id: id)
  }

  mutating func superEncoder() -> any Encoder {
    let (index, id) = impl.nestedFrame(.slot, in: index, id, key: nil)
    return CBORSlotEncoder(impl: impl, index: index, id: id)
  }
}

/// The encoder that `superEncoder()` returns: it writes one value into the slot its parent
/// reserved; a slot left empty becomes an empty map, as JSONEncoder writes `{}`.
final class CBORSlotEncoder: Encoder, SingleValueEncodingContainer {
  let impl: CBOREncodingEngine
  let index: Int
  let id: UInt32

  init(impl: CBOREncodingEngine, index: Int, id: UInt32) {
    self.impl = impl
    self.index = index
    self.id = id
  }

  var codingPath: [any CodingKey] { impl.codingPath(inFrames: index) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// The slot's value as a level, or nil once the parent has moved on.
  private var level: EncodingLevel? {
    guard impl.isOpen(index, id), index >= impl.level.base else { return nil }
    return EncodingLevel(base: index + 1, start: impl.frame(index).offset)
  }

  private func checkedLevel() throws -> EncodingLevel {
    guard let level else {
      throw impl.misuse("a super encoder was used after its parent moved on to its next entry")
    }
    try impl.beginSingleValue(in: level)
    return level
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    var (index, id) = (0, UInt32(0))
    if let level {
      (index, id) = impl.openContainer(.map, in: level)
    } else {
      impl.recordDeferred(impl.misuse("a super encoder was used after its parent moved on"))
    }
    return KeyedEncodingContainer(
      CBORKeyedEncodingContainer<Key>(impl: impl, index: index, id: id))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    var (index, id) = (0, UInt32(0))
    if let level {
      (index, id) = impl.openContainer(.array, in: level)
    } else {
      impl.recordDeferred(impl.misuse("a super encoder was used after its parent moved on"))
    }
    return CBORUnkeyedEncodingContainer(impl: impl, index: index, id: id)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  func encodeNil() throws {
    _ = try checkedLevel()
    impl.bytes.append(0xf6)
  }

  func encode(_ value: Bool) throws {
    _ = try checkedLevel()
    impl.bytes.append(value ? 0xf5 : 0xf4)
  }

  func encode(_ value: String) throws {
    _ = try checkedLevel()
    CBORPrimitiveWriter.appendText(value, to: &impl.bytes)
  }

  func encode(_ value: Double) throws {
    _ = try checkedLevel()
    CBORPrimitiveWriter.appendFloat(value, to: &impl.bytes)
  }

  func encode(_ value: Float) throws {
    _ = try checkedLevel()
    CBORPrimitiveWriter.appendFloat(Double(value), to: &impl.bytes)
  }

  func encode(_ value: Int) throws { try encode(Int64(value)) }
  func encode(_ value: Int8) throws { try encode(Int64(value)) }
  func encode(_ value: Int16) throws { try encode(Int64(value)) }
  func encode(_ value: Int32) throws { try encode(Int64(value)) }
  func encode(_ value: Int64) throws {
    _ = try checkedLevel()
    CBORPrimitiveWriter.appendInteger(value, to: &impl.bytes)
  }
  func encode(_ value: UInt) throws { try encode(UInt64(value)) }
  func encode(_ value: UInt8) throws { try encode(UInt64(value)) }
  func encode(_ value: UInt16) throws { try encode(UInt64(value)) }
  func encode(_ value: UInt32) throws { try encode(UInt64(value)) }
  func encode(_ value: UInt64) throws {
    _ = try checkedLevel()
    CBORPrimitiveWriter.appendHead(0, value, to: &impl.bytes)
  }

  func encode<T: Encodable>(_ value: T) throws {
    _ = try checkedLevel()
    try impl.encodeValue(value)
  }
}
