import IdentifiedCollections

// Hand-written CBOR for the standard types that actions and states are built of, so that
// a conforming type can write `writer.write(value)` and `reader.read(T.self)` for its
// fields. Each writes what its `Codable` conformance writes (docs/CODEC.md §2).

extension Int: CBOREncodable, CBORDecodable {
  /// Writes the integer.
  @inlinable
  public func encode(to writer: inout CBORWriter) { writer.write(self) }
  /// Reads an integer that fits in `Int`.
  public init(from reader: inout CBORReader) throws(CBORError) { self = try reader.read(Int.self) }
}

extension UInt64: CBOREncodable, CBORDecodable {
  /// Writes the integer.
  @inlinable
  public func encode(to writer: inout CBORWriter) { writer.write(self) }
  /// Reads an unsigned integer.
  public init(from reader: inout CBORReader) throws(CBORError) {
    self = try reader.read(UInt64.self)
  }
}

extension Double: CBOREncodable, CBORDecodable {
  /// Writes the float in its shortest exact width.
  @inlinable
  public func encode(to writer: inout CBORWriter) { writer.write(self) }
  /// Reads a float.
  public init(from reader: inout CBORReader) throws(CBORError) {
    self = try reader.read(Double.self)
  }
}

extension Bool: CBOREncodable, CBORDecodable {
  /// Writes `true` or `false`.
  @inlinable
  public func encode(to writer: inout CBORWriter) { writer.write(self) }
  /// Reads `true` or `false`.
  public init(from reader: inout CBORReader) throws(CBORError) { self = try reader.read(Bool.self) }
}

extension String: CBOREncodable, CBORDecodable {
  /// Writes a text string.
  @inlinable
  public func encode(to writer: inout CBORWriter) { writer.write(self) }
  /// Reads a text string.
  public init(from reader: inout CBORReader) throws(CBORError) {
    self = try reader.read(String.self)
  }
}

extension Optional: CBOREncodable where Wrapped: CBOREncodable {
  /// Writes null or the wrapped value. (A struct leaves a `nil` property out instead.)
  @inlinable
  public func encode(to writer: inout CBORWriter) {
    if let self { writer.write(self) } else { writer.writeNull() }
  }
}

extension Optional: CBORDecodable where Wrapped: CBORDecodable {
  /// Reads null as `nil`, anything else as the wrapped value.
  public init(from reader: inout CBORReader) throws(CBORError) {
    self = try reader.readNull() ? nil : try reader.read(Wrapped.self)
  }
}

extension Array: CBOREncodable where Element: CBOREncodable {
  /// Writes an array of the elements.
  @inlinable
  public func encode(to writer: inout CBORWriter) {
    writer.writeArrayHeader(count: count)
    for element in self { writer.write(element) }
  }
}

extension Array: CBORDecodable where Element: CBORDecodable {
  /// Reads an array of elements.
  @inlinable
  public init(from reader: inout CBORReader) throws(CBORError) {
    let count = try reader.readArrayHeader()
    self.init()
    reserveCapacity(count)  // bounded: the decoder checked that `count` items follow
    for _ in 0..<count { append(try reader.read(Element.self)) }
  }
}

extension IdentifiedArray: CBOREncodable where Element: CBOREncodable {
  /// Writes an array of the elements, in order.
  @inlinable
  public func encode(to writer: inout CBORWriter) {
    writer.writeArrayHeader(count: count)
    for element in self { writer.write(element) }
  }
}

extension IdentifiedArray: CBORDecodable
where Element: CBORDecodable & Identifiable, ID == Element.ID {
  /// Reads an array of elements with unique ids.
  @inlinable
  public init(from reader: inout CBORReader) throws(CBORError) {
    let count = try reader.readArrayHeader()
    self.init()
    reserveCapacity(count)
    for index in 0..<count {
      guard append(try reader.read(Element.self)).inserted else {
        throw reader.invalidValue("duplicate element at offset \(index)")
      }
    }
  }
}
