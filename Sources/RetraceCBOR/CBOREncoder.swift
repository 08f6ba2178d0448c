/// Encodes `Encodable` values as CBOR (RFC 8949).
///
/// The mapping from `Codable` is specified in `docs/CODEC.md`: keyed containers become maps
/// with text-string keys, unkeyed containers become arrays, integers use the shortest
/// head, floats the shortest of half, single and double precision that keeps the value
/// exactly, and Foundation's `Data` becomes a byte string. An enum with associated values
/// encodes the way Swift synthesizes it, as a one-entry map from the case name to a map of
/// its payload.
///
/// In deterministic mode (RFC 8949 §4.2.1) the entries of every map are sorted by the
/// bytes of their encoded keys, and so are the arrays that a `Set` (or a `Dictionary`
/// whose keys are not `String` or `Int`) encodes to in hash order, so that equal values
/// always encode to equal bytes, in every process: ``StateHash`` relies on that. Otherwise
/// entries stay in encode order, which for synthesized `Codable` is declaration order.
///
/// ```swift
/// enum Action: Codable { case move(from: Int, to: Int) }
///
/// let bytes = try CBOREncoder().encode(Action.move(from: 1, to: 2))
/// // a1 64 "move" a2 64 "from" 01 62 "to" 02
/// print(try CBORValue(decoding: bytes))   // {"move": {"from": 1, "to": 2}}
/// ```
///
/// The encoder writes in one pass, straight into the output buffer: a container's header
/// is completed when the container is finished. As a consequence, a container must not be
/// written to after its parent has moved on to its next entry (JSONEncoder tolerates that;
/// no synthesized conformance does it); doing so throws an `EncodingError`.
public struct CBOREncoder: Sendable {
  /// Whether map entries are sorted as RFC 8949 §4.2.1 requires for deterministic encoding.
  public var deterministic: Bool

  /// Creates an encoder.
  ///
  /// - Parameters:
  ///   - deterministic: Whether to sort every map's entries by the bytes of their encoded
  ///     keys (RFC 8949 §4.2.1), and the elements of sets, so that equal values encode to
  ///     equal bytes whatever order their keys were encoded in. Sorting costs time; the
  ///     trace recorder leaves it off, state hashing turns it on.
  ///   - usesHandWrittenCode: Whether to use a type's ``CBOREncodable`` conformance.
  public init(deterministic: Bool = false, usesHandWrittenCode: Bool = true) {
    self.deterministic = deterministic
    self.usesHandWrittenCode = usesHandWrittenCode
  }

  /// Whether a value with a hand-written encoding (``CBOREncodable``) is written by it,
  /// rather than through its `Encodable` conformance. On by default; turn it off to
  /// compare the two in a conformance's tests. A hand-written encoding writes map entries
  /// in deterministic order whatever ``deterministic`` says.
  public var usesHandWrittenCode: Bool

  /// Encodes a value as one CBOR data item.
  ///
  /// ```swift
  /// let bytes = try CBOREncoder().encode([1, 2, 3])   // [0x83, 0x01, 0x02, 0x03]
  /// ```
  ///
  /// - Parameter value: The value to encode.
  /// - Returns: The encoded bytes.
  /// - Throws: `EncodingError` if the value encodes nothing at the top level, if a map has
  ///   a duplicate key in deterministic mode, if containers nest deeper than
  ///   ``CBORDecoder/maximumNestingDepth``, or if the value's own `encode(to:)` throws.
  public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
    var bytes: [UInt8] = []
    try encode(value, appendingTo: &bytes)
    return bytes
  }

  /// Encodes a value as one CBOR data item at the end of a buffer.
  ///
  /// This is the form for recording: the same buffer can take one record after another
  /// (or be emptied with `removeAll(keepingCapacity: true)`), so that encoding allocates
  /// nothing for the bytes beyond the buffer's growth. If encoding throws, the buffer is
  /// left as it was.
  ///
  /// ```swift
  /// var buffer: [UInt8] = []
  /// for action in actions {
  ///   try encoder.encode(action, appendingTo: &buffer)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - value: The value to encode.
  ///   - buffer: The buffer to append the encoded bytes to.
  /// - Throws: The errors of ``encode(_:)``.
  public func encode<T: Encodable>(_ value: T, appendingTo buffer: inout [UInt8]) throws {
    if usesHandWrittenCode, let fast = T.self as? any CBOREncodable.Type {
      var writer = CBORWriter()
      withUnsafePointer(to: value) { fast._encode(at: $0, to: &writer) }
      writer.append(to: &buffer)
      return
    }
    try encodeWithContainers(value, appendingTo: &buffer)
  }

  /// Encodes through `Encodable`'s containers even when the value has a hand-written
  /// encoding (``CBOREncodable``).
  func encodeWithContainers<T: Encodable>(_ value: T, appendingTo buffer: inout [UInt8]) throws {
    try withUnsafeTemporaryAllocation(
      of: EncodingFrame.self, capacity: CBORDecoder.maximumNestingDepth
    ) { frames in
      let impl = CBOREncodingEngine(deterministic: deterministic, frames: frames)
      swap(&impl.bytes, &buffer)
      defer {
        impl.finish()
        swap(&impl.bytes, &buffer)
      }
      let start = impl.bytes.count
      do {
        try impl.encodeTopLevel(value)
      } catch {
        impl.bytes.removeSubrange(start...)
        throw error
      }
    }
  }
}
