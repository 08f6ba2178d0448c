/// Decodes `Decodable` values from CBOR (RFC 8949).
///
/// It reads what ``CBOREncoder`` writes and, more generally, any well-formed CBOR whose
/// shape fits the type: integers of any width, floats of any width whose value the
/// requested type holds exactly, indefinite-length strings, arrays and maps; tags are
/// skipped and their content decoded. The mapping is specified in `docs/CODEC.md`.
///
/// ```swift
/// let bytes = try CBOREncoder().encode(["a": 1])
/// let value = try CBORDecoder().decode([String: Int].self, from: bytes)   // ["a": 1]
/// ```
///
/// Decoding never traps on bad input and never allocates more than the input's size
/// suggests: the whole input is first checked to be one well-formed data item (every
/// length against the bytes that remain, nesting depth at most ``maximumNestingDepth``,
/// text strings valid UTF-8, nothing after the item); then values are read straight from
/// the bytes. Errors are `DecodingError`s whose `debugDescription` names the byte offset
/// and whose `underlyingError` is a ``CBORError``.
public struct CBORDecoder: Sendable {
  /// The deepest nesting of arrays, maps and tags that decoding accepts.
  ///
  /// An item inside 256 containers is accepted, one inside 257 is not. ``CBOREncoder``
  /// refuses to write deeper containers, so that everything it writes can be read back.
  public static let maximumNestingDepth = 256

  /// Whether a type with a hand-written decoding (``CBORDecodable``) is read by it first,
  /// falling back to its `Decodable` conformance if that throws. On by default; turn it
  /// off to compare the two in a conformance's tests.
  public var usesHandWrittenCode: Bool

  /// Creates a decoder.
  ///
  /// - Parameter usesHandWrittenCode: Whether to use a type's ``CBORDecodable``
  ///   conformance.
  public init(usesHandWrittenCode: Bool = true) {
    self.usesHandWrittenCode = usesHandWrittenCode
  }

  /// Decodes a value from bytes that hold exactly one CBOR data item.
  ///
  /// ```swift
  /// let n = try CBORDecoder().decode(Int.self, from: [0x19, 0x03, 0xe8])   // 1000
  /// ```
  ///
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - bytes: The encoded item, and nothing else.
  /// - Returns: The decoded value.
  /// - Throws: `DecodingError.dataCorrupted` for input that is not one well-formed item,
  ///   or for a number the type cannot hold; `typeMismatch`, `valueNotFound` and
  ///   `keyNotFound` when the item's shape does not fit the type; and whatever the type's
  ///   own `init(from:)` throws.
  public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    try bytes.withUnsafeBytes { try decode(type, from: $0) }
  }

  /// Decodes a value from memory that holds exactly one CBOR data item.
  ///
  /// This is the form for reading traces: records are decoded where they lie in a
  /// decompressed chunk, without copying them out first. The memory is only read during
  /// the call.
  ///
  /// ```swift
  /// let action = try chunk.withUnsafeBytes { chunk in
  ///   try CBORDecoder().decode(Action.self, from: UnsafeRawBufferPointer(rebasing: chunk[range]))
  /// }
  /// ```
  ///
  /// Inlinable, so that a call for a concrete type (a domain's action, in code compiled for
  /// it) is specialized: no run-time conformance lookup, no generic metadata.
  ///
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - bytes: The encoded item, and nothing else.
  /// - Returns: The decoded value.
  /// - Throws: The errors of ``decode(_:from:)-(_,[UInt8])``.
  @inlinable
  public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
    // The hand-written decoding, when it takes the whole item; `Decodable` otherwise.
    if let (value, count) = decodePrefix(type, from: bytes), count == bytes.count { return value }
    return try decodeWithContainers(type, from: bytes)
  }

  /// Decodes the data item at the start of `bytes` (more may follow) with the type's
  /// hand-written decoding, and says how many bytes it took; `nil` when the type has none,
  /// ``usesHandWrittenCode`` is off, or it throws (``decode(_:from:)-(UnsafeRawBufferPointer)``
  /// on the item alone then gives the value or the error).
  ///
  /// This finds where an item ends by decoding it, which a reader that must decode the item
  /// anyway does in one pass instead of two.
  @inlinable
  package func decodePrefix<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) -> (
    value: T, count: Int
  )? {
    guard usesHandWrittenCode, let fast = T.self as? any CBORDecodable.Type else { return nil }
    return withUnsafeTemporaryAllocation(of: T.self, capacity: 1) {
      buffer -> (value: T, count: Int)? in
      let slot = buffer.baseAddress!
      var reader = CBORReader(bytes)
      do {
        try fast._decode(into: slot, from: &reader)
      } catch {
        return nil
      }
      return (slot.move(), reader.offset)
    }
  }

  /// Decodes through `Decodable`'s containers even when the type has a hand-written
  /// decoding (``CBORDecodable``).
  @usableFromInline
  func decodeWithContainers<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws
    -> T
  {
    try checkWellFormed(bytes)
    return try decodeWellFormed(type, from: bytes)
  }

  /// Throws unless `bytes` hold exactly one well-formed data item.
  private func checkWellFormed(_ bytes: UnsafeRawBufferPointer) throws {
    let reader = CBORItemScanner(bytes)
    let end: Int
    do {
      end = try reader.skipItem(at: 0, depth: 0, validating: true)
    } catch {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: [], debugDescription: error.description, underlyingError: error))
    }
    guard end == bytes.count else {
      let error = CBORError(
        .trailingBytes, "\(bytes.count - end) bytes follow the data item", offset: end)
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: [], debugDescription: error.description, underlyingError: error))
    }
  }

  private func decodeWellFormed<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer)
    throws -> T
  {
    let reader = CBORItemScanner(bytes)
    return try withUnsafeTemporaryAllocation(
      of: MapCursor.self, capacity: CBORDecodingEngine.cursorLevels
    ) { cursors in
      cursors.initialize(repeating: MapCursor())
      let impl = CBORDecodingEngine(reader: reader, offset: 0, path: [], cursors: cursors)
      defer { impl.finish() }
      return try impl.decodeValue(type, at: 0, DecodingPath(depth: 0, last: nil), nil)
    }
  }
}
