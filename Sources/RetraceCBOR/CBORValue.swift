/// A CBOR data item (RFC 8949) as a tree, readable without knowing the Swift type it
/// was encoded from.
///
/// The debugger uses it to show recorded actions as JSON (``jsonText``) or in CBOR
/// diagnostic notation (``description``), and apps use it to write upcasters: functions
/// that rewrite an old encoded action into the current shape before it is decoded.
///
/// ```swift
/// // An old trace has {"deposit": {"cents": 500}}; today's case is
/// // addTransaction(amount:) and the key is "amount".
/// var value = try CBORValue(decoding: recordedBytes)
/// if value.caseName == "deposit", var payload = value.casePayload {
///   payload["amount"] = payload["cents"]
///   payload.removeValue(forKey: "cents")
///   value = ["addTransaction": payload]
/// }
/// let action = try value.decode(as: Action.self)
/// ```
///
/// Maps keep their entries in order, as ``Pair``s. Equality is structural; floats compare
/// by bit pattern, so `-0.0` and `0.0` are different items and a NaN equals the same NaN.
/// Encoding is always in preferred serialization (shortest heads and floats, definite
/// lengths); whether an item was read from an indefinite-length encoding is not kept.
public enum CBORValue: Sendable {
  /// An unsigned integer (major type 0).
  case unsigned(UInt64)
  /// A negative integer (major type 1) with the value `-1 - n`, which reaches down to
  /// -2^64.
  case negative(UInt64)
  /// A byte string (major type 2).
  case byteString([UInt8])
  /// A text string (major type 3).
  case textString(String)
  /// An array (major type 4).
  case array([CBORValue])
  /// A map (major type 5), with its entries in order.
  case map([Pair])
  /// A tagged item (major type 6): the tag number and the tag content.
  indirect case tagged(UInt64, CBORValue)
  /// A simple value (major type 7) other than `false`, `true`, `null` and `undefined`:
  /// 0…19 or 32…255.
  case simple(UInt8)
  /// `false` or `true` (simple values 20 and 21).
  case boolean(Bool)
  /// `null` (simple value 22).
  case null
  /// `undefined` (simple value 23).
  case undefined
  /// A half-, single- or double-precision float, held as a `Double` (which holds them all
  /// exactly).
  case float(Double)

  /// One entry of a ``CBORValue/map(_:)``.
  ///
  /// ```swift
  /// let entry = CBORValue.Pair("amount", 100)
  /// ```
  public struct Pair: Hashable, Sendable {
    /// The entry's key; usually a text string.
    public var key: CBORValue
    /// The entry's value.
    public var value: CBORValue

    /// Creates a map entry.
    ///
    /// - Parameters:
    ///   - key: The entry's key.
    ///   - value: The entry's value.
    public init(_ key: CBORValue, _ value: CBORValue) {
      self.key = key
      self.value = value
    }
  }
}

// MARK: - Decoding and encoding

extension CBORValue {
  /// Reads the single data item that `bytes` holds.
  ///
  /// ```swift
  /// let value = try CBORValue(decoding: [0x83, 0x01, 0x02, 0x03])
  /// print(value)   // [1, 2, 3]
  /// ```
  ///
  /// - Parameter bytes: Exactly one encoded data item.
  /// - Throws: ``CBORError`` if the bytes are not one well-formed item, if text is not
  ///   valid UTF-8, or if items nest deeper than ``CBORDecoder/maximumNestingDepth``.
  public init(decoding bytes: [UInt8]) throws(CBORError) {
    let result = bytes.withUnsafeBytes { raw in
      Result { () throws(CBORError) in try CBORValue(decoding: raw) }
    }
    self = try result.get()
  }

  /// Reads the single data item that `bytes` holds.
  ///
  /// ```swift
  /// let value = try chunk.withUnsafeBytes { try CBORValue(decoding: $0) }
  /// ```
  ///
  /// - Parameter bytes: Exactly one encoded data item.
  /// - Throws: The errors of ``init(decoding:)-([UInt8])``.
  public init(decoding bytes: UnsafeRawBufferPointer) throws(CBORError) {
    let parser = CBORValueParser(reader: CBORItemScanner(bytes))
    let (value, end) = try parser.parse(at: 0, depth: 0)
    guard end == bytes.count else {
      throw CBORError(
        .trailingBytes, "\(bytes.count - end) bytes follow the data item", offset: end)
    }
    self = value
  }

  /// Encodes a value with ``CBOREncoder`` and reads the result as a tree.
  ///
  /// ```swift
  /// let value = try CBORValue(encoding: Action.move(from: 1, to: 2))
  /// print(value.caseName!)   // move
  /// ```
  ///
  /// - Parameters:
  ///   - value: The value to encode.
  ///   - deterministic: Whether to sort map keys (see ``CBOREncoder/init(deterministic:usesHandWrittenCode:)``).
  /// - Throws: The errors of ``CBOREncoder/encode(_:)``.
  public init<T: Encodable>(encoding value: T, deterministic: Bool = false) throws {
    self = try CBORValue(decoding: CBOREncoder(deterministic: deterministic).encode(value))
  }

  /// Decodes a Swift value from this item with ``CBORDecoder``.
  ///
  /// ```swift
  /// let value: CBORValue = ["move": ["from": 1, "to": 2]]
  /// let action = try value.decode(as: Action.self)   // Action.move(from: 1, to: 2)
  /// ```
  ///
  /// - Parameter type: The type to decode.
  /// - Returns: The decoded value.
  /// - Throws: The errors of ``CBORDecoder/decode(_:from:)-(_,[UInt8])``.
  public func decode<T: Decodable>(as type: T.Type) throws -> T {
    try CBORDecoder().decode(type, from: encoded())
  }

  /// The item's encoding in preferred serialization: shortest heads and floats, definite
  /// lengths, map entries in stored order.
  ///
  /// ```swift
  /// CBORValue.array([1, 2, 3]).encoded()   // [0x83, 0x01, 0x02, 0x03]
  /// ```
  ///
  /// A ``simple(_:)`` value must not be 24…31, which CBOR reserves; `simple(20)` to
  /// `simple(23)` encode as `false`, `true`, `null` and `undefined`.
  public func encoded() -> [UInt8] {
    var bytes: [UInt8] = []
    append(to: &bytes)
    return bytes
  }

  private func append(to bytes: inout [UInt8]) {
    switch self {
    case .unsigned(let value):
      CBORPrimitiveWriter.appendHead(0, value, to: &bytes)
    case .negative(let value):
      CBORPrimitiveWriter.appendHead(1, value, to: &bytes)
    case .byteString(let value):
      CBORPrimitiveWriter.appendHead(2, UInt64(value.count), to: &bytes)
      bytes.append(contentsOf: value)
    case .textString(let value):
      CBORPrimitiveWriter.appendText(value, to: &bytes)
    case .array(let items):
      CBORPrimitiveWriter.appendHead(4, UInt64(items.count), to: &bytes)
      for item in items { item.append(to: &bytes) }
    case .map(let pairs):
      CBORPrimitiveWriter.appendHead(5, UInt64(pairs.count), to: &bytes)
      for pair in pairs {
        pair.key.append(to: &bytes)
        pair.value.append(to: &bytes)
      }
    case .tagged(let tag, let content):
      CBORPrimitiveWriter.appendHead(6, tag, to: &bytes)
      content.append(to: &bytes)
    case .simple(let value):
      precondition(!(24...31).contains(value), "simple values 24...31 are reserved (RFC 8949 §3.3)")
      CBORPrimitiveWriter.appendHead(7, UInt64(value), to: &bytes)
    case .boolean(let value):
      bytes.append(value ? 0xf5 : 0xf4)
    case .null:
      bytes.append(0xf6)
    case .undefined:
      bytes.append(0xf7)
    case .float(let value):
      CBORPrimitiveWriter.appendFloat(value, to: &bytes)
    }
  }
}

// MARK: - Equality

extension CBORValue: Hashable {
  /// Structural equality; floats compare by bit pattern.
  public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
    switch (lhs, rhs) {
    case (.unsigned(let a), .unsigned(let b)): return a == b
    case (.negative(let a), .negative(let b)): return a == b
    case (.byteString(let a), .byteString(let b)): return a == b
    case (.textString(let a), .textString(let b)): return a == b
    case (.array(let a), .array(let b)): return a == b
    case (.map(let a), .map(let b)): return a == b
    case (.tagged(let tagA, let a), .tagged(let tagB, let b)): return tagA == tagB && a == b
    case (.simple(let a), .simple(let b)): return a == b
    case (.boolean(let a), .boolean(let b)): return a == b
    case (.null, .null), (.undefined, .undefined): return true
    case (.float(let a), .float(let b)): return a.bitPattern == b.bitPattern
    default: return false
    }
  }

  /// Hashes the item consistently with ``==(_:_:)``.
  public func hash(into hasher: inout Hasher) {
    switch self {
    case .unsigned(let value):
      hasher.combine(0 as UInt8)
      hasher.combine(value)
    case .negative(let value):
      hasher.combine(1 as UInt8)
      hasher.combine(value)
    case .byteString(let value):
      hasher.combine(2 as UInt8)
      hasher.combine(value)
    case .textString(let value):
      hasher.combine(3 as UInt8)
      hasher.combine(value)
    case .array(let value):
      hasher.combine(4 as UInt8)
      hasher.combine(value)
    case .map(let value):
      hasher.combine(5 as UInt8)
      hasher.combine(value)
    case .tagged(let tag, let value):
      hasher.combine(6 as UInt8)
      hasher.combine(tag)
      hasher.combine(value)
    case .simple(let value):
      hasher.combine(7 as UInt8)
      hasher.combine(value)
    case .boolean(let value):
      hasher.combine(8 as UInt8)
      hasher.combine(value)
    case .null: hasher.combine(9 as UInt8)
    case .undefined: hasher.combine(10 as UInt8)
    case .float(let value):
      hasher.combine(11 as UInt8)
      hasher.combine(value.bitPattern)
    }
  }
}
