// An encoder that notes the first key of an encoding and ignores everything else: what
// `actionCaseName(of:)` runs an action's `encode(to:)` against.

/// Holds the first key (or top-level string) an encoding produced.
final class FirstKeyRecorder {
  var name: String?

  func note(_ name: String) {
    if self.name == nil { self.name = name }
  }
}

/// An `Encoder` that notes the first key of the top-level container and ignores the rest.
struct FirstKeyEncoder: Encoder {
  let recorder = FirstKeyRecorder()
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(FirstKeyContainer<Key>(recorder: recorder))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    IgnoringUnkeyedContainer()
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    FirstKeySingleValueContainer(recorder: recorder)
  }
}

/// The top-level keyed container: notes the first key it sees.
struct FirstKeyContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let recorder: FirstKeyRecorder?
  var codingPath: [any CodingKey] { [] }

  func note(_ key: Key) { recorder?.note(key.stringValue) }

  mutating func encodeNil(forKey key: Key) throws { note(key) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: String, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: Double, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: Float, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: Int, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { note(key) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { note(key) }
  // The value itself is not encoded: only the key matters.
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { note(key) }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    note(key)
    return KeyedEncodingContainer(FirstKeyContainer<NestedKey>(recorder: nil))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    note(key)
    return IgnoringUnkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder { IgnoringEncoder() }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    note(key)
    return IgnoringEncoder()
  }
}

/// The top-level single-value container: a string there is the case name.
struct FirstKeySingleValueContainer: SingleValueEncodingContainer {
  let recorder: FirstKeyRecorder
  var codingPath: [any CodingKey] { [] }

  mutating func encodeNil() throws {}
  mutating func encode(_ value: Bool) throws {}
  mutating func encode(_ value: String) throws { recorder.note(value) }
  mutating func encode(_ value: Double) throws {}
  mutating func encode(_ value: Float) throws {}
  mutating func encode(_ value: Int) throws {}
  mutating func encode(_ value: Int8) throws {}
  mutating func encode(_ value: Int16) throws {}
  mutating func encode(_ value: Int32) throws {}
  mutating func encode(_ value: Int64) throws {}
  mutating func encode(_ value: UInt) throws {}
  mutating func encode(_ value: UInt8) throws {}
  mutating func encode(_ value: UInt16) throws {}
  mutating func encode(_ value: UInt32) throws {}
  mutating func encode(_ value: UInt64) throws {}
  mutating func encode<T: Encodable>(_ value: T) throws {
    // A wrapper that encodes another value as itself (a raw-value enum, a newtype): look inside.
    let inner = FirstKeyEncoder()
    try? value.encode(to: inner)
    if let name = inner.recorder.name { recorder.note(name) }
  }
}

/// An encoder that accepts everything and keeps nothing.
struct IgnoringEncoder: Encoder {
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(FirstKeyContainer<Key>(recorder: nil))
  }
  func unkeyedContainer() -> any UnkeyedEncodingContainer { IgnoringUnkeyedContainer() }
  func singleValueContainer() -> any SingleValueEncodingContainer {
    IgnoringSingleValueContainer()
  }
}

/// An unkeyed container that accepts everything and keeps nothing.
struct IgnoringUnkeyedContainer: UnkeyedEncodingContainer {
  var codingPath: [any CodingKey] { [] }
  var count: Int { 0 }

  mutating func encodeNil() throws {}
  mutating func encode<T: Encodable>(_ value: T) throws {}
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    KeyedEncodingContainer(FirstKeyContainer<NestedKey>(recorder: nil))
  }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    IgnoringUnkeyedContainer()
  }
  mutating func superEncoder() -> any Encoder { IgnoringEncoder() }
}

/// A single-value container that accepts everything and keeps nothing.
struct IgnoringSingleValueContainer: SingleValueEncodingContainer {
  var codingPath: [any CodingKey] { [] }
  mutating func encodeNil() throws {}
  mutating func encode<T: Encodable>(_ value: T) throws {}
}
