/// Reads CBOR data items from memory: the reading half of the hand-written fast path
/// (``CBORDecodable``).
///
/// Every read checks the item's head and length against the bytes that remain and
/// checks text for valid UTF-8, so hostile input never traps and never makes the reader
/// allocate more than the input holds; ``skip()`` refuses items nested deeper than
/// ``CBORDecoder/maximumNestingDepth``. Each `read` method throws ``CBORError`` when the
/// item at the reader's position is not of the kind asked for; ``CBORDecoder`` then falls
/// back to `Decodable` (see ``CBORDecodable``). A reader is valid only inside the
/// ``CBORDecodable/init(from:)`` call it is passed to.
///
/// A hand-written decoder recurses as deep as its type nests. For a recursive type (an
/// `indirect enum`, a tree), whose nesting the input chooses, leave decoding to
/// `Decodable`, which limits it.
public struct CBORReader {
  @usableFromInline let input: CBORItemScanner
  /// The offset of the next item in the input.
  public var offset: Int { position }
  @usableFromInline var position: Int

  @inlinable
  init(_ bytes: UnsafeRawBufferPointer) {
    input = CBORItemScanner(bytes)
    position = 0
  }

  /// A reader of the data items in `bytes`, from its start, valid while `bytes` is: for
  /// package code that reads a message item by item instead of building a ``CBORValue``
  /// tree of it (the Studio's live link).
  package init(reading bytes: UnsafeRawBufferPointer) {
    self.init(bytes)
  }

  /// Reads a definite-length byte string and returns where its content lies in the input,
  /// without copying it.
  package mutating func readByteString() throws(CBORError) -> Range<Int> {
    let head = try input.head(at: position)
    guard head.major == 2, !head.isIndefinite else { throw mismatch("a byte string", head) }
    let end = try input.stringEnd(head, at: position)
    position = end
    return head.end..<end
  }

  /// Reads the head of a definite-length map and returns its number of entries.
  @_transparent
  public mutating func readMapHeader() throws(CBORError) -> Int {
    try readCount(major: 5, "a map")
  }

  /// Reads the head of a definite-length array and returns its number of items.
  @_transparent
  public mutating func readArrayHeader() throws(CBORError) -> Int {
    try readCount(major: 4, "an array")
  }

  @_transparent @usableFromInline
  mutating func readCount(major: UInt8, _ what: String) throws(CBORError) -> Int {
    let head = try input.head(at: position)
    guard head.major == major, !head.isIndefinite else { throw mismatch(what, head) }
    let count = try input.itemCount(head, at: position)
    position = head.end
    return count
  }

  /// Reads the head of an enum case the way `Codable` encodes one (``CBORWriter/writeCase(_:fields:)``):
  /// the case's name, and the number of labelled values that follow as key, value, …
  ///
  /// - Parameter what: What the value is, for the error (`"a route"`).
  @inlinable
  public mutating func readCase(_ what: String) throws(CBORError) -> (name: CBORKey, fields: Int) {
    guard try readMapHeader() == 1 else { throw invalidValue("\(what) is a map with one case") }
    let name = try readKey()
    return (name, try readMapHeader())
  }

  /// Reads a text string used as a map key, without copying it; compare it with string
  /// literals in a `switch` (`case "amount":`).
  @_transparent
  public mutating func readKey() throws(CBORError) -> CBORKey {
    let (start, end) = try readText()
    let key = UnsafeRawBufferPointer(rebasing: input.bytes[start..<end])
    if !CBORItemScanner.isASCII(key) { try CBORItemScanner.validateUTF8(key, at: start) }
    return CBORKey(bytes: key)
  }

  /// Reads a text string.
  @_transparent
  public mutating func read(_ type: String.Type) throws(CBORError) -> String {
    let (start, end) = try readText()
    let utf8 = UnsafeRawBufferPointer(rebasing: input.bytes[start..<end])
    if !CBORItemScanner.isASCII(utf8) { try CBORItemScanner.validateUTF8(utf8, at: start) }
    return String(decoding: utf8, as: UTF8.self)
  }

  @_transparent @usableFromInline
  mutating func readText() throws(CBORError) -> (Int, Int) {
    let head = try input.head(at: position)
    guard head.major == 3, !head.isIndefinite else { throw mismatch("a text string", head) }
    let end = try input.stringEnd(head, at: position)
    position = end
    return (head.end, end)
  }

  /// Reads an integer that fits in `Int`.
  @_transparent
  public mutating func read(_ type: Int.Type) throws(CBORError) -> Int {
    let head = try input.head(at: position)
    switch head.major {
    case 0 where head.argument <= UInt64(Int.max):
      position = head.end
      return Int(head.argument)
    case 1 where head.argument <= UInt64(Int.max):
      position = head.end
      return -1 - Int(head.argument)
    default:
      throw mismatch("an integer that fits in Int", head)
    }
  }

  /// Reads an unsigned integer.
  public mutating func read(_ type: UInt64.Type) throws(CBORError) -> UInt64 {
    let head = try input.head(at: position)
    guard head.major == 0 else { throw mismatch("an unsigned integer", head) }
    position = head.end
    return head.argument
  }

  /// Reads a half, single or double precision float.
  @_transparent
  public mutating func read(_ type: Double.Type) throws(CBORError) -> Double {
    let head = try input.head(at: position)
    guard head.major == 7 else { throw mismatch("a float", head) }
    let value: Double
    switch head.info {
    case 27: value = Double(bitPattern: head.argument)
    case 26: value = Double(Float(bitPattern: UInt32(truncatingIfNeeded: head.argument)))
    case 25: value = CBORItemScanner.double(fromHalf: UInt16(truncatingIfNeeded: head.argument))
    default: throw mismatch("a float", head)
    }
    position = head.end
    return value
  }

  /// Reads `true` or `false`.
  @_transparent
  public mutating func read(_ type: Bool.Type) throws(CBORError) -> Bool {
    let head = try input.head(at: position)
    guard head.major == 7, head.info == 20 || head.info == 21 else {
      throw mismatch("a boolean", head)
    }
    position = head.end
    return head.info == 21
  }

  /// Reads a value that has a hand-written decoding.
  @inlinable
  public mutating func read<T: CBORDecodable>(_ type: T.Type) throws(CBORError) -> T {
    try T(from: &self)
  }

  /// Reads null if it is next, and returns whether it was.
  public mutating func readNull() throws(CBORError) -> Bool {
    let head = try input.head(at: position)
    guard head.major == 7, head.info == 22 else { return false }
    position = head.end
    return true
  }

  /// Reads a value through its `Decodable` conformance: the escape hatch for parts of a
  /// hand-written type that are not on a hot path.
  public mutating func decode<T: Decodable>(_ type: T.Type) throws(CBORError) -> T {
    let start = position
    try skip()
    do {
      return try CBORDecoder().decodeWithContainers(
        type, from: UnsafeRawBufferPointer(rebasing: input.bytes[start..<position]))
    } catch {
      throw CBORError(.typeMismatch, "cannot decode \(T.self): \(error)", offset: start)
    }
  }

  /// Moves past the next item, whatever it is, such as the value of an unknown key.
  public mutating func skip() throws(CBORError) {
    position = try input.skipItem(at: position, depth: 0, validating: true)
  }

  /// The error to throw when a required map key was not found.
  ///
  /// - Parameter key: The missing key.
  public func missingKey(_ key: String) -> CBORError {
    CBORError(.typeMismatch, "the map before this offset has no key \"\(key)\"", offset: position)
  }

  /// The error to throw when an item is well-formed but not a value of the type, such as
  /// an enum case name the type does not have.
  ///
  /// - Parameter message: What is wrong.
  public func invalidValue(_ message: String) -> CBORError {
    CBORError(.typeMismatch, message, offset: position)
  }

  @usableFromInline
  func mismatch(_ expected: String, _ head: CBORHead) -> CBORError {
    CBORError(
      .typeMismatch, "expected \(expected), found major type \(head.major)", offset: position)
  }
}

/// A map key read by ``CBORReader/readKey()``: the bytes of a text string, valid while
/// the reader is.
///
/// ```swift
/// switch try reader.readKey() {
/// case "amount": amount = try reader.read(Int.self)
/// default: try reader.skip()
/// }
/// ```
public struct CBORKey: CustomStringConvertible {
  @usableFromInline let bytes: UnsafeRawBufferPointer

  @inlinable
  init(bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  /// The key as a string.
  public var description: String { String(decoding: bytes, as: UTF8.self) }

  /// Whether `key` holds the UTF-8 bytes of `pattern`; lets a `switch` match string
  /// literals.
  @_transparent
  public static func ~= (pattern: StaticString, key: CBORKey) -> Bool {
    guard pattern.hasPointerRepresentation, pattern.utf8CodeUnitCount == key.bytes.count else {
      return false
    }
    return CBORItemScanner.bytesEqual(
      UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount),
      key.bytes.assumingMemoryBound(to: UInt8.self))
  }
}
