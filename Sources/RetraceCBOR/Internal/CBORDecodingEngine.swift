#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Where a container sits in the coding path: `depth` steps of the decoder's path stack,
/// then possibly one step (`last`) that is not on the stack.
///
/// Keeping the last step out of the stack means that the common shapes (a struct of
/// scalars, an enum case with a payload) decode without touching the stack at all.
struct DecodingPath {
  var depth: Int
  var last: CodingPathComponent?
}

/// Where a key lookup last succeeded in a map: the map's first entry, and the index and
/// offset of the entry found.
struct MapCursor {
  var map = -1
  var index = 0
  var offset = 0
}

/// The decoder behind ``CBORDecoder``: one per top-level call, walking input that
/// ``CBORItemScanner/skipItem(at:depth:validating:)`` has already checked to be well-formed.
///
/// It is also the single-value container of the value being decoded, whose position is
/// `offset`. Containers look values up by scanning the bytes; nothing is copied into an
/// intermediate tree.
///
/// The mutable stored properties opt out of dynamic exclusivity checking: a decoder lives
/// for one top-level call on one thread, and no access to them is held across a call that
/// could reach them again.
///
/// The input and the cursors are memory that the top-level call owns; when the call ends,
/// ``finish()`` points the decoder (and any decoder it handed out) at empty memory, so
/// that a container kept beyond the call finds nothing to read instead of freed memory.
final class CBORDecodingEngine: Decoder, SingleValueDecodingContainer {
  @exclusivity(unchecked) private(set) var reader: CBORItemScanner
  /// The offset of the value being decoded.
  @exclusivity(unchecked) var offset: Int
  /// How many steps of `path` lead to the value being decoded.
  @exclusivity(unchecked) var pathDepth: Int
  /// The coding path stack; entries past a container's depth may be stale.
  @exclusivity(unchecked) var path: [CodingPathComponent]
  /// The entry where the last key lookup in a map succeeded, per nesting level; memory
  /// that the top-level call owns (on its stack), so that decoding allocates no array
  /// for it.
  @exclusivity(unchecked) private(set) var cursors: UnsafeMutableBufferPointer<MapCursor>
  /// Decoders handed out by `superDecoder()`, which ``finish()`` must reach too.
  private var superDecoders: [CBORDecodingEngine] = []

  init(
    reader: CBORItemScanner, offset: Int, path: [CodingPathComponent],
    cursors: UnsafeMutableBufferPointer<MapCursor>
  ) {
    self.reader = reader
    self.offset = offset
    self.path = path
    self.pathDepth = path.count
    self.cursors = cursors
  }

  /// Ends the use of the caller's memory by this decoder and those it handed out.
  func finish() {
    reader = CBORItemScanner(UnsafeRawBufferPointer(start: nil, count: 0))
    cursors = UnsafeMutableBufferPointer(start: nil, count: 0)
    if !superDecoders.isEmpty {
      for decoder in superDecoders { decoder.finish() }
    }
  }

  /// A decoder for the value at `offset`, for `superDecoder()`.
  func superDecoder(at offset: Int, path: [CodingPathComponent]) -> CBORDecodingEngine {
    let decoder = CBORDecodingEngine(reader: reader, offset: offset, path: path, cursors: cursors)
    superDecoders.append(decoder)
    return decoder
  }

  /// How many map nesting levels get a lookup cursor; deeper maps are scanned from
  /// their first entry.
  static let cursorLevels = 16

  var codingPath: [any CodingKey] { codingPath(DecodingPath(depth: pathDepth, last: nil)) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  // MARK: - Coding paths

  func components(_ path: DecodingPath, appending component: CodingPathComponent? = nil)
    -> [CodingPathComponent]
  {
    var result = Array(self.path.prefix(max(0, path.depth)))
    if let last = path.last { result.append(last) }
    if let component { result.append(component) }
    return result
  }

  func codingPath(_ path: DecodingPath, appending component: CodingPathComponent? = nil)
    -> [any CodingKey]
  {
    components(path, appending: component).map(\.codingKey)
  }

  /// Makes `path` (and `component`, if any) the top of the stack; returns the new depth.
  @inline(__always)
  func enter(_ path: DecodingPath, _ component: CodingPathComponent?) -> Int {
    if path.last == nil && component == nil { return path.depth }
    if self.path.count > path.depth { self.path.removeSubrange(path.depth...) }
    if let last = path.last { self.path.append(last) }
    if let component { self.path.append(component) }
    return self.path.count
  }

  /// The path of a container nested under `component` in a container at `path`.
  @inline(__always)
  func child(of path: DecodingPath, _ component: CodingPathComponent) -> DecodingPath {
    DecodingPath(depth: enter(path, nil), last: component)
  }

  // MARK: - Errors

  func corrupted(_ error: CBORError, _ path: DecodingPath, _ component: CodingPathComponent?)
    -> DecodingError
  {
    .dataCorrupted(
      .init(
        codingPath: codingPath(path, appending: component), debugDescription: error.description,
        underlyingError: error))
  }

  func typeMismatch(
    _ type: Any.Type, expected: String, found head: CBORHead, at offset: Int,
    _ path: DecodingPath, _ component: CodingPathComponent?
  ) -> DecodingError {
    let found = CBORItemScanner.typeName(head)
    let message = "Expected \(expected) but found \(found) at byte offset \(offset)."
    let context = DecodingError.Context(
      codingPath: codingPath(path, appending: component), debugDescription: message,
      underlyingError: CBORError(
        .typeMismatch, "expected \(expected), found \(found)", offset: offset))
    if head.major == 7 && (head.info == 22 || head.info == 23) {
      return .valueNotFound(type, context)
    }
    return .typeMismatch(type, context)
  }

  func outOfRange(
    _ type: Any.Type, _ description: String, at offset: Int,
    _ path: DecodingPath, _ component: CodingPathComponent?
  ) -> DecodingError {
    let message = "The number \(description) at byte offset \(offset) does not fit in \(type)."
    return .dataCorrupted(
      .init(
        codingPath: codingPath(path, appending: component), debugDescription: message,
        underlyingError: CBORError(
          .valueOutOfRange, "\(description) does not fit in \(type)", offset: offset)))
  }

  // MARK: - Reading items

  /// The head of the item at `offset`, past any tags (tags are ignored by `Decodable`).
  @inline(__always)
  func valueHead(at offset: Int, _ path: DecodingPath, _ component: CodingPathComponent?) throws
    -> CBORHead
  {
    do {
      var head = try reader.head(at: offset)
      while head.major == 6 {
        head = try reader.head(at: head.end)
      }
      return head
    } catch {
      throw corrupted(error, path, component)
    }
  }

  /// The offset just past the item at `offset`.
  @inline(__always)
  func end(ofItemAt offset: Int, _ path: DecodingPath, _ component: CodingPathComponent?) throws
    -> Int
  {
    do {
      return try reader.skipItem(at: offset, depth: 0, validating: false)
    } catch {
      throw corrupted(error, path, component)
    }
  }

  func isNil(at offset: Int, _ path: DecodingPath, _ component: CodingPathComponent?) throws
    -> Bool
  {
    let head = try valueHead(at: offset, path, component)
    return head.major == 7 && (head.info == 22 || head.info == 23)
  }

  func decodeBool(at offset: Int, _ path: DecodingPath, _ component: CodingPathComponent?) throws
    -> Bool
  {
    let head = try valueHead(at: offset, path, component)
    guard head.major == 7 && (head.info == 20 || head.info == 21) else {
      throw typeMismatch(Bool.self, expected: "a boolean", found: head, at: offset, path, component)
    }
    return head.info == 21
  }

  @inline(__always)
  func decodeInteger<I: FixedWidthInteger>(
    _ type: I.Type, at offset: Int, _ path: DecodingPath, _ component: CodingPathComponent?
  ) throws -> I {
    let head = try valueHead(at: offset, path, component)
    switch head.major {
    case 0:
      if let value = I(exactly: head.argument) { return value }
      throw outOfRange(I.self, "\(head.argument)", at: offset, path, component)
    case 1:
      // -1 - n is ~n in two's complement, and in range whenever n is.
      if I.isSigned, let value = I(exactly: head.argument) { return ~value }
      throw outOfRange(I.self, Self.negativeDescription(head.argument), at: offset, path, component)
    default:
      throw typeMismatch(I.self, expected: "an integer", found: head, at: offset, path, component)
    }
  }

  static func negativeDescription(_ argument: UInt64) -> String {
    argument == .max ? "-18446744073709551616" : "-\(argument + 1)"
  }

  func decodeDouble(at offset: Int, _ path: DecodingPath, _ component: CodingPathComponent?)
    throws -> Double
  {
    let head = try valueHead(at: offset, path, component)
    switch head.major {
    case 0:
      if let value = Double(exactly: head.argument) { return value }
      throw outOfRange(Double.self, "\(head.argument)", at: offset, path, component)
    case 1:
      if head.argument == .max { return -0x1p64 }
      if let value = Double(exactly: head.argument + 1) { return -value }
      throw outOfRange(
        Double.self, Self.negativeDescription(head.argument), at: offset, path, component)
    case 7:
      if let value = CBORItemScanner.double(from: head) { return value }
      fallthrough
    default:
      throw typeMismatch(
        Double.self, expected: "a number", found: head, at: offset, path, component)
    }
  }

  func decodeFloat(at offset: Int, _ path: DecodingPath, _ component: CodingPathComponent?) throws
    -> Float
  {
    let value: Double
    do {
      value = try decodeDouble(at: offset, path, component)
    } catch DecodingError.typeMismatch(_, let context) {
      throw DecodingError.typeMismatch(Float.self, context)
    }
    if value.isNaN { return .nan }
    if let float = Float(exactly: value) { return float }
    throw outOfRange(Float.self, "\(value)", at: offset, path, component)
  }

  func decodeString(at offset: Int, _ path: DecodingPath, _ component: CodingPathComponent?)
    throws -> String
  {
    let head = try valueHead(at: offset, path, component)
    guard head.major == 3 else {
      throw typeMismatch(
        String.self, expected: "a text string", found: head, at: offset, path, component)
    }
    // The input was checked for valid UTF-8 before decoding began.
    do {
      if !head.isIndefinite {
        return String(decoding: try content(of: head, at: offset), as: UTF8.self)
      }
      var result = ""
      try forEachChunk(of: head) { chunk, chunkOffset throws(CBORError) in
        result += String(decoding: try content(of: chunk, at: chunkOffset), as: UTF8.self)
      }
      return result
    } catch {
      throw corrupted(error, path, component)
    }
  }

  func decodeData(at offset: Int, _ path: DecodingPath, _ component: CodingPathComponent?) throws
    -> Data
  {
    let head = try valueHead(at: offset, path, component)
    guard head.major == 2 else {
      throw typeMismatch(
        Data.self, expected: "a byte string", found: head, at: offset, path, component)
    }
    do {
      if !head.isIndefinite {
        return Data(UnsafeRawBufferPointer(try content(of: head, at: offset)))
      }
      var result = Data()
      try forEachChunk(of: head) { chunk, chunkOffset throws(CBORError) in
        result.append(try content(of: chunk, at: chunkOffset))
      }
      return result
    } catch {
      throw corrupted(error, path, component)
    }
  }

  /// The content bytes of a definite-length string.
  @inline(__always)
  func content(of head: CBORHead, at offset: Int) throws(CBORError) -> UnsafeBufferPointer<UInt8> {
    let end = try reader.stringEnd(head, at: offset)
    let content = UnsafeRawBufferPointer(rebasing: reader.bytes[head.end..<end])
    return UnsafeBufferPointer(
      start: content.baseAddress?.assumingMemoryBound(to: UInt8.self), count: content.count)
  }

  /// Calls `body` with the head and offset of each chunk of an indefinite-length string.
  func forEachChunk(
    of head: CBORHead, _ body: (CBORHead, Int) throws(CBORError) -> Void
  ) throws(CBORError) {
    var position = head.end
    while try !reader.isBreak(at: position) {
      let chunk = try reader.head(at: position)
      try body(chunk, position)
      position = try reader.stringEnd(chunk, at: position)
    }
  }

  /// Decodes a value of any type from the item at `offset`.
  func decodeValue<T: Decodable>(
    _ type: T.Type, at offset: Int, _ path: DecodingPath, _ component: CodingPathComponent?
  ) throws -> T {
    if T.self == Data.self {
      return try decodeData(at: offset, path, component) as! T
    }
    let depth = enter(path, component)
    let saved = (self.offset, pathDepth)
    self.offset = offset
    pathDepth = depth
    defer { (self.offset, pathDepth) = saved }
    return try T(from: self)
  }

  // MARK: - Maps

  /// The offset of the value stored under the text key `name` in the map whose entries
  /// start at `start` (`count` entries, or -1 for an indefinite-length map).
  ///
  /// Maps in records are small, so scanning beats building an index. The scan starts at
  /// the entry found last in the same map (remembered per nesting level in `cursors`)
  /// and wraps around, so that looking keys up in map order, as synthesized `Decodable`
  /// code and `Dictionary` do, costs one step per key rather than a scan of the whole map.
  /// With a duplicate key, the lookup returns whichever entry the scan meets first, which
  /// depends on the previous lookup.
  func valueOffset(
    forKey name: String, entries start: Int, count: Int, level: Int
  ) throws(CBORError) -> Int? {
    var index = 0
    var position = start
    if level < cursors.count, cursors[level].map == start {
      index = cursors[level].index
      position = cursors[level].offset
    }
    let firstIndex = index
    var wrapped = false
    while true {
      let atEnd = count < 0 ? try reader.isBreak(at: position) : index >= count
      if atEnd || (wrapped && index >= firstIndex) {
        if wrapped || firstIndex == 0 { return nil }
        wrapped = true
        index = 0
        position = start
        continue
      }
      let (matches, keyEnd) = try matchKey(name, at: position)
      if matches {
        if level < cursors.count {
          cursors[level] = MapCursor(map: start, index: index, offset: position)
        }
        return keyEnd
      }
      position = try reader.skipItem(at: keyEnd, depth: 0, validating: false)
      index &+= 1
    }
  }

  /// Whether the map key at `offset` is the text `name`, and where the key ends.
  private func matchKey(_ name: String, at offset: Int) throws(CBORError) -> (
    matches: Bool, end: Int
  ) {
    var head = try reader.head(at: offset)
    while head.major == 6 {
      head = try reader.head(at: head.end)
    }
    guard head.major == 3 else {
      return (false, try reader.skipItem(at: offset, depth: 0, validating: false))
    }
    let utf8 = name.utf8
    if !head.isIndefinite {
      let stored = try content(of: head, at: offset)
      let end = head.end &+ stored.count
      guard stored.count == utf8.count else { return (false, end) }
      let matches = utf8.withContiguousStorageIfAvailable { CBORItemScanner.bytesEqual($0, stored) }
      return (matches ?? stored.elementsEqual(utf8), end)
    }
    var key: [UInt8] = []
    try forEachChunk(of: head) { chunk, chunkOffset throws(CBORError) in
      key.append(contentsOf: try content(of: chunk, at: chunkOffset))
    }
    return (key.elementsEqual(utf8), try reader.skipItem(at: offset, depth: 0, validating: false))
  }

  /// The text keys of a map, in order, made into `Key`s (keys that `Key` does not know
  /// are left out).
  func textKeys<Key: CodingKey>(_ type: Key.Type, entries start: Int, count: Int) throws(CBORError)
    -> [Key]
  {
    var keys: [Key] = []
    var position = start
    var index = 0
    while count < 0 ? try !reader.isBreak(at: position) : index < count {
      var head = try reader.head(at: position)
      while head.major == 6 {
        head = try reader.head(at: head.end)
      }
      if head.major == 3 {
        var text = ""
        if !head.isIndefinite {
          let content = try content(of: head, at: position)
          text = String(decoding: content, as: UTF8.self)
          position = head.end &+ content.count
        } else {
          try forEachChunk(of: head) { chunk, chunkOffset throws(CBORError) in
            text += String(decoding: try content(of: chunk, at: chunkOffset), as: UTF8.self)
          }
          position = try reader.skipItem(at: position, depth: 0, validating: false)
        }
        if let key = Key(stringValue: text) {
          // An enum case is a one-entry map; an array literal is cheaper than an append
          // in this unspecialized generic code.
          if count == 1 { return [key] }
          keys.append(key)
        }
      } else {
        position = try reader.skipItem(at: position, depth: 0, validating: false)
      }
      index &+= 1
      // The last value of a definite-length map need not be walked.
      if count < 0 || index < count {
        position = try reader.skipItem(at: position, depth: 0, validating: false)
      }
    }
    return keys
  }

  // MARK: - Containers

  func keyedContainer<Key: CodingKey>(
    _ type: Key.Type, at offset: Int, _ path: DecodingPath
  ) throws -> KeyedDecodingContainer<Key> {
    let head = try valueHead(at: offset, path, nil)
    guard head.major == 5 else {
      throw typeMismatch([String: Any].self, expected: "a map", found: head, at: offset, path, nil)
    }
    let count = head.isIndefinite ? -1 : Int(truncatingIfNeeded: head.argument)
    return KeyedDecodingContainer(
      CBORKeyedDecodingContainer<Key>(
        impl: self, offset: offset, start: head.end, count: count, path: path))
  }

  func unkeyedContainer(at offset: Int, _ path: DecodingPath) throws
    -> any UnkeyedDecodingContainer
  {
    let head = try valueHead(at: offset, path, nil)
    guard head.major == 4 else {
      throw typeMismatch([Any].self, expected: "an array", found: head, at: offset, path, nil)
    }
    let count = head.isIndefinite ? nil : Int(truncatingIfNeeded: head.argument)
    return CBORUnkeyedDecodingContainer(impl: self, count: count, position: head.end, path: path)
  }

  // MARK: - Decoder

  private var ownPath: DecodingPath { DecodingPath(depth: pathDepth, last: nil) }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    try keyedContainer(type, at: offset, ownPath)
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try unkeyedContainer(at: offset, ownPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  // MARK: - SingleValueDecodingContainer

  func decodeNil() -> Bool { (try? isNil(at: offset, ownPath, nil)) ?? false }
  func decode(_ type: Bool.Type) throws -> Bool { try decodeBool(at: offset, ownPath, nil) }
  func decode(_ type: String.Type) throws -> String { try decodeString(at: offset, ownPath, nil) }
  func decode(_ type: Double.Type) throws -> Double { try decodeDouble(at: offset, ownPath, nil) }
  func decode(_ type: Float.Type) throws -> Float { try decodeFloat(at: offset, ownPath, nil) }
  func decode(_ type: Int.Type) throws -> Int { try decodeInteger(type, at: offset, ownPath, nil) }
  func decode(_ type: Int8.Type) throws -> Int8 {
    try decodeInteger(type, at: offset, ownPath, nil)
  }
  func decode(_ type: Int16.Type) throws -> Int16 {
    try decodeInteger(type, at: offset, ownPath, nil)
  }
  func decode(_ type: Int32.Type) throws -> Int32 {
    try decodeInteger(type, at: offset, ownPath, nil)
  }
  func decode(_ type: Int64.Type) throws -> Int64 {
    try decodeInteger(type, at: offset, ownPath, nil)
  }
  func decode(_ type: UInt.Type) throws -> UInt {
    try decodeInteger(type, at: offset, ownPath, nil)
  }
  func decode(_ type: UInt8.Type) throws -> UInt8 {
    try decodeInteger(type, at: offset, ownPath, nil)
  }
  func decode(_ type: UInt16.Type) throws -> UInt16 {
    try decodeInteger(type, at: offset, ownPath, nil)
  }
  func decode(_ type: UInt32.Type) throws -> UInt32 {
    try decodeInteger(type, at: offset, ownPath, nil)
  }
  func decode(_ type: UInt64.Type) throws -> UInt64 {
    try decodeInteger(type, at: offset, ownPath, nil)
  }
  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try decodeValue(type, at: offset, ownPath, nil)
  }
}
