/// A keyed container over a CBOR map; finds keys by scanning the map's bytes.
struct CBORKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let impl: CBORDecodingEngine
  /// The offset of the map's head.
  let offset: Int
  /// The offset of the first key.
  let start: Int
  /// The number of entries, or -1 for an indefinite-length map.
  let count: Int
  let path: DecodingPath

  var codingPath: [any CodingKey] { impl.codingPath(path) }

  /// The map's nesting level, which selects its lookup cursor.
  private var level: Int { path.depth + (path.last == nil ? 0 : 1) }

  var allKeys: [Key] {
    (try? impl.textKeys(Key.self, entries: start, count: count)) ?? []
  }

  /// The offset of the value for `key`, or nil.
  @inline(__always)
  private func find(_ key: Key) throws -> Int? {
    do {
      return try impl.valueOffset(
        forKey: key.stringValue, entries: start, count: count, level: level)
    } catch {
      throw impl.corrupted(error, path, .key(key.stringValue))
    }
  }

  /// The offset of the value for `key`; throws `keyNotFound` if there is none.
  @inline(__always)
  private func require(_ key: Key) throws -> Int {
    if let offset = try find(key) { return offset }
    throw DecodingError.keyNotFound(
      key,
      .init(
        codingPath: codingPath,
        debugDescription:
          "No value for key \"\(key.stringValue)\" in the map at byte offset \(offset)."))
  }

  func contains(_ key: Key) -> Bool { (try? find(key)) != nil }

  func decodeNil(forKey key: Key) throws -> Bool {
    try impl.isNil(at: require(key), path, .key(key.stringValue))
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try impl.decodeBool(at: require(key), path, .key(key.stringValue))
  }

  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try impl.decodeString(at: require(key), path, .key(key.stringValue))
  }

  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try impl.decodeDouble(at: require(key), path, .key(key.stringValue))
  }

  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try impl.decodeFloat(at: require(key), path, .key(key.stringValue))
  }

  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

  @inline(__always)
  private func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
    try impl.decodeInteger(type, at: require(key), path, .key(key.stringValue))
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try impl.decodeValue(type, at: require(key), path, .key(key.stringValue))
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let offset = try require(key)
    return try impl.keyedContainer(type, at: offset, impl.child(of: path, .key(key.stringValue)))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    let offset = try require(key)
    return try impl.unkeyedContainer(at: offset, impl.child(of: path, .key(key.stringValue)))
  }

  func superDecoder() throws -> any Decoder {
    let offset: Int?
    do {
      offset = try impl.valueOffset(forKey: "super", entries: start, count: count, level: level)
    } catch {
      throw impl.corrupted(error, path, .superKey)
    }
    guard let offset else {
      throw DecodingError.keyNotFound(
        CBORCodingKey(stringValue: "super"),
        .init(
          codingPath: codingPath,
          debugDescription: "No value for key \"super\" in the map at byte offset \(self.offset)."))
    }
    return impl.superDecoder(at: offset, path: impl.components(path, appending: .superKey))
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    let offset = try require(key)
    return impl.superDecoder(
      at: offset, path: impl.components(path, appending: .key(key.stringValue)))
  }
}

/// An unkeyed container over a CBOR array.
struct CBORUnkeyedDecodingContainer: UnkeyedDecodingContainer {
  let impl: CBORDecodingEngine
  /// The number of elements, or nil for an indefinite-length array.
  let count: Int?
  /// The offset of the next element.
  var position: Int
  let path: DecodingPath
  var currentIndex = 0

  init(impl: CBORDecodingEngine, count: Int?, position: Int, path: DecodingPath) {
    self.impl = impl
    self.count = count
    self.position = position
    self.path = path
  }

  var codingPath: [any CodingKey] { impl.codingPath(path) }

  var isAtEnd: Bool {
    if let count { return currentIndex >= count }
    return (try? impl.reader.isBreak(at: position)) ?? true
  }

  /// The offset of the next element; throws `valueNotFound` at the end.
  @inline(__always)
  private func next(_ type: Any.Type) throws -> Int {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        type,
        .init(
          codingPath: impl.codingPath(path, appending: .index(currentIndex)),
          debugDescription:
            "The array has no element at index \(currentIndex) (byte offset \(position))."))
    }
    return position
  }

  /// Moves past the element at `offset`, once it has been decoded.
  @inline(__always)
  private mutating func advance(past offset: Int) throws {
    position = try impl.end(ofItemAt: offset, path, .index(currentIndex))
    currentIndex += 1
  }

  mutating func decodeNil() throws -> Bool {
    let offset = try next(Never.self)
    guard try impl.isNil(at: offset, path, .index(currentIndex)) else { return false }
    try advance(past: offset)
    return true
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool {
    let offset = try next(type)
    let value = try impl.decodeBool(at: offset, path, .index(currentIndex))
    try advance(past: offset)
    return value
  }

  mutating func decode(_ type: String.Type) throws -> String {
    let offset = try next(type)
    let value = try impl.decodeString(at: offset, path, .index(currentIndex))
    try advance(past: offset)
    return value
  }

  mutating func decode(_ type: Double.Type) throws -> Double {
    let offset = try next(type)
    let value = try impl.decodeDouble(at: offset, path, .index(currentIndex))
    try advance(past: offset)
    return value
  }

  mutating func decode(_ type: Float.Type) throws -> Float {
    let offset = try next(type)
    let value = try impl.decodeFloat(at: offset, path, .index(currentIndex))
    try advance(past: offset)
    return value
  }

  mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

  @inline(__always)
  private mutating func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
    let offset = try next(type)
    let value = try impl.decodeInteger(type, at: offset, path, .index(currentIndex))
    try advance(past: offset)
    return value
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let offset = try next(type)
    let value = try impl.decodeValue(type, at: offset, path, .index(currentIndex))
    try advance(past: offset)
    return value
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let offset = try next(KeyedDecodingContainer<NestedKey>.self)
    let container = try impl.keyedContainer(
      type, at: offset, impl.child(of: path, .index(currentIndex)))
    try advance(past: offset)
    return container
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let offset = try next((any UnkeyedDecodingContainer).self)
    let container = try impl.unkeyedContainer(
      at: offset, impl.child(of: path, .index(currentIndex)))
    try advance(past: offset)
    return container
  }

  mutating func superDecoder() throws -> any Decoder {
    let offset = try next((any Decoder).self)
    let decoder = impl.superDecoder(
      at: offset, path: impl.components(path, appending: .index(currentIndex)))
    try advance(past: offset)
    return decoder
  }
}
