/// A type that writes its own CBOR, bypassing `Encodable`'s containers.
///
/// `Codable` is how Retrace encodes every action and state, and it always works. Its cost
/// is the generic machinery between a value and the bytes, most of it spent before the
/// first byte is written (docs/CODEC.md §8 measures it). A type on
/// a hot path (an app's action, its large state) can conform to ``CBOREncodable`` and
/// ``CBORDecodable`` as well, and ``CBOREncoder``, ``CBORDecoder``, ``StateHash`` and the
/// trace recorder and reader then use the hand-written code instead, with no other change.
///
/// The contract: ``encode(to:)`` writes exactly the bytes that
/// `CBOREncoder(deterministic: true)` writes for the type's `Encodable` conformance, that
/// is, the map entries of every struct and enum case sorted by their encoded keys
/// (shorter keys first, then bytewise; see `docs/CODEC.md`). That keeps state hashes equal
/// whichever path computed them. Write a property test that compares the two encodings on
/// random values, as Retrace's own examples do.
///
/// ```swift
/// struct Transaction: Codable, CBOREncodable, CBORDecodable {
///   var amount: Int
///   var date: Double
///
///   func encode(to writer: inout CBORWriter) {
///     writer.writeMapHeader(count: 2)
///     writer.writeKey("date"); writer.write(date)        // "date" sorts before "amount":
///     writer.writeKey("amount"); writer.write(amount)    // shorter keys first
///   }
///
///   init(from reader: inout CBORReader) throws(CBORError) {
///     var amount: Int?, date: Double?
///     for _ in 0..<(try reader.readMapHeader()) {
///       switch try reader.readKey() {
///       case "amount": amount = try reader.read(Int.self)
///       case "date": date = try reader.read(Double.self)
///       default: try reader.skip()
///       }
///     }
///     guard let amount, let date else { throw reader.missingKey("amount or date") }
///     self.init(amount: amount, date: date)
///   }
/// }
/// ```
public protocol CBOREncodable: Encodable {
  /// Writes the value as one CBOR data item, exactly as `CBOREncoder(deterministic: true)`
  /// encodes its `Encodable` conformance.
  ///
  /// - Parameter writer: The writer to append the item to.
  func encode(to writer: inout CBORWriter)

  /// Encodes the `Self` at `pointer`. Not API: ``CBOREncoder`` calls it on a type it knows
  /// only as `Encodable`; the default implementation is the only one.
  static func _encode(at pointer: UnsafeRawPointer, to writer: inout CBORWriter)
}

extension CBOREncodable {
  /// Encodes the `Self` at `pointer` (the default, compiled for each conforming type).
  @inlinable
  public static func _encode(at pointer: UnsafeRawPointer, to writer: inout CBORWriter) {
    pointer.assumingMemoryBound(to: Self.self).pointee.encode(to: &writer)
  }
}

/// A type that reads its own CBOR, bypassing `Decodable`'s containers.
///
/// ``CBORDecoder`` tries ``init(from:)`` first; if it throws, for any reason, the decoder
/// decodes the same bytes again through the type's `Decodable` conformance, which either
/// accepts them (the hand-written code may leave unusual but valid input, such as
/// indefinite lengths or integers where a float is expected, to `Decodable`) or throws
/// the error with its full coding path. So a hand-written decoder only has to be right
/// about the values it accepts; it must accept map entries in any order and skip unknown
/// keys, as synthesized `Decodable` does. See ``CBOREncodable`` for an example.
public protocol CBORDecodable: Decodable {
  /// Reads the value from the data item at the reader's position and moves past it.
  ///
  /// - Parameter reader: The reader, positioned at the item.
  /// - Throws: ``CBORError`` when the item is not what the type expects.
  init(from reader: inout CBORReader) throws(CBORError)

  /// Decodes a `Self` into the uninitialized memory at `pointer`. Not API: ``CBORDecoder``
  /// calls it on a type it knows only as `Decodable`; the default implementation is the
  /// only one.
  static func _decode(into pointer: UnsafeMutableRawPointer, from reader: inout CBORReader)
    throws(CBORError)
}

extension CBORDecodable {
  /// Decodes a `Self` into `pointer` (the default, compiled for each conforming type).
  @inlinable
  public static func _decode(into pointer: UnsafeMutableRawPointer, from reader: inout CBORReader)
    throws(CBORError)
  {
    pointer.initializeMemory(as: Self.self, to: try Self(from: &reader))
  }
}

/// A type that both writes and reads its own CBOR: ``CBOREncodable`` and ``CBORDecodable``.
public typealias CBORCodable = CBOREncodable & CBORDecodable

/// `Action`'s hand-written encoding as a closure, if it has one (`CBOREncodable`): what the
/// trace recorder and the live link encode actions with on the sending thread.
package func handWrittenEncoding<Action: Sendable>(of type: Action.Type) -> (
  @Sendable (Action, inout CBORWriter) -> Void
)? {
  guard let encodable = type as? any (CBOREncodable & Sendable).Type else { return nil }
  func encoding<T: CBOREncodable & Sendable>(_: T.Type) -> Any {
    { (value: T, writer: inout CBORWriter) in value.encode(to: &writer) }
      as @Sendable (T, inout CBORWriter) -> Void
  }
  return encoding(encodable) as? @Sendable (Action, inout CBORWriter) -> Void
}
