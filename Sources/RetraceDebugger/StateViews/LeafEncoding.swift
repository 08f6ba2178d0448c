import RetraceLog

/// An encoding container that turns every primitive value into a JSON leaf: the Studio's
/// encoders (the preview of a state, its search) implement ``encodeLeaf(_:)`` and get the
/// fourteen primitive `encode` methods that `Encoder`'s containers require from here.
package protocol LeafEncodingContainer {
  /// Takes one primitive value, as JSON.
  mutating func encodeLeaf(_ value: JSONValue) throws
}

extension LeafEncodingContainer {
  mutating func encodeNil() throws { try encodeLeaf(.null) }
  mutating func encode(_ value: Bool) throws { try encodeLeaf(.bool(value)) }
  mutating func encode(_ value: String) throws { try encodeLeaf(.string(value)) }
  mutating func encode(_ value: Double) throws { try encodeLeaf(.double(value)) }
  mutating func encode(_ value: Float) throws { try encodeLeaf(.double(Double(value))) }
  mutating func encode(_ value: Int) throws { try encodeLeaf(.int(Int64(value))) }
  mutating func encode(_ value: Int8) throws { try encodeLeaf(.int(Int64(value))) }
  mutating func encode(_ value: Int16) throws { try encodeLeaf(.int(Int64(value))) }
  mutating func encode(_ value: Int32) throws { try encodeLeaf(.int(Int64(value))) }
  mutating func encode(_ value: Int64) throws { try encodeLeaf(.int(value)) }
  mutating func encode(_ value: UInt) throws { try encodeLeaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt8) throws { try encodeLeaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt16) throws { try encodeLeaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt32) throws { try encodeLeaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt64) throws { try encodeLeaf(.uint(value)) }
}
