/// An error found while reading CBOR bytes.
///
/// ``CBORValue/init(decoding:)-([UInt8])`` throws it directly. ``CBORDecoder`` throws
/// Swift's `DecodingError` instead, as `Codable` callers expect, and attaches a
/// `CBORError` as the context's `underlyingError`, so that the byte offset can be read
/// programmatically as well as from the `debugDescription`.
///
/// ```swift
/// do {
///   _ = try CBORValue(decoding: [0x62, 0x61])   // a 2-byte text string with 1 byte
/// } catch let error as CBORError {
///   print(error)   // CBOR error (lengthTooLarge) at byte offset 1: ...
/// }
/// ```
public struct CBORError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What kind of problem was found.
  ///
  /// The codes distinguish damage (``truncated``, ``lengthTooLarge``), input that is not
  /// well-formed CBOR (``invalidHeader``, ``invalidUTF8``, ``trailingBytes``), limits
  /// (``nestingTooDeep``) and well-formed input that does not fit the requested type
  /// (``typeMismatch``, ``valueOutOfRange``).
  ///
  /// A struct over a private enum, not an enum, so that a new code is not a breaking change:
  /// compare with `==`, or switch with a `default`.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Wrapped: String, Hashable, Sendable {
      case truncated
      case invalidHeader
      case lengthTooLarge
      case nestingTooDeep
      case invalidUTF8
      case trailingBytes
      case typeMismatch
      case valueOutOfRange
    }

    private let wrapped: Wrapped
    private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// The code's name, such as `truncated`.
    public var description: String { wrapped.rawValue }

    /// The input ends where a header or a byte of an item is expected.
    public static var truncated: Code { Code(.truncated) }
    /// The initial byte is not well-formed: reserved additional information (28–30),
    /// an indefinite length on a major type that has none, a stray "break" (0xff),
    /// a chunk of an indefinite-length string of the wrong type, or a two-byte simple
    /// value below 32.
    public static var invalidHeader: Code { Code(.invalidHeader) }
    /// A length or count claims more bytes than remain in the input.
    public static var lengthTooLarge: Code { Code(.lengthTooLarge) }
    /// Arrays, maps and tags are nested deeper than the decoder allows
    /// (``CBORDecoder/maximumNestingDepth``).
    public static var nestingTooDeep: Code { Code(.nestingTooDeep) }
    /// A text string is not valid UTF-8.
    public static var invalidUTF8: Code { Code(.invalidUTF8) }
    /// Bytes remain after the single top-level data item.
    public static var trailingBytes: Code { Code(.trailingBytes) }
    /// A well-formed item has a different major type than the one requested.
    public static var typeMismatch: Code { Code(.typeMismatch) }
    /// A number does not fit the requested type exactly (e.g. 300 into `UInt8`).
    public static var valueOutOfRange: Code { Code(.valueOutOfRange) }

    /// The code's name.
    @available(*, deprecated, renamed: "description")
    public var rawValue: String { description }

    /// The code named `rawValue`, if there is one.
    ///
    /// - Parameter rawValue: A code's name, such as `truncated`.
    @available(*, deprecated, message: "compare with the static codes, such as .truncated")
    public init?(rawValue: String) {
      guard let wrapped = Wrapped(rawValue: rawValue) else { return nil }
      self.init(wrapped)
    }
  }

  /// What kind of problem was found.
  public var code: Code
  /// A human-readable explanation.
  public var message: String
  /// The byte offset in the input where the problem was found.
  public var offset: Int

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: What kind of problem was found.
  ///   - message: A human-readable explanation.
  ///   - offset: The byte offset in the input where the problem was found.
  public init(_ code: Code, _ message: String, offset: Int) {
    self.code = code
    self.message = message
    self.offset = offset
  }

  /// `CBOR error (<code>) at byte offset <offset>: <message>`.
  public var description: String {
    "CBOR error (\(code)) at byte offset \(offset): \(message)"
  }
}
