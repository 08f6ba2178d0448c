import Foundation
import RetraceLog

/// The places in a whole state whose key or value contains a text, ignoring case: what the
/// page's search box finds, including in the parts of long arrays a preview leaves out.
///
/// The state is walked by an `Encoder` that writes nothing: every key and every value is
/// looked at once, and the walk stops at the `limit`-th match.
///
/// ```swift
/// let search = try StateSearch(state, query: "spotify", limit: 1_000)
/// print(search.paths.first ?? [])  // [.key("accounts"), .index(0), .key("transactions"), …]
/// ```
struct StateSearch {
  /// The paths of the matches, in the order of the state's encoding: a key that contains
  /// the text gives the path of its value; a value that does (a string, a number, `true`,
  /// `false` or `null`, as the page shows it) gives its own.
  private(set) var paths: [[PathStep]] = []
  /// Whether every match is in ``paths``: `false` when the walk stopped at the limit.
  private(set) var complete = true

  /// Searches `state` for `query`, up to `limit` matches.
  init<State: Encodable>(_ state: State, query: String, limit: Int) throws {
    let walk = SearchWalk(query: query.lowercased(), limit: limit)
    do {
      try walk.visit(state, at: [])
    } catch is SearchWalk.Enough {
      complete = false
    }
    paths = walk.paths
  }
}

/// The walk's state: the text, and the matches so far.
private final class SearchWalk {
  /// Thrown to stop the walk at the limit.
  struct Enough: Error {}

  let query: String
  /// The query's bytes, when it is ASCII: compared without making a lowercased copy of
  /// every string.
  let asciiQuery: [UInt8]?
  /// Whether the query can be in a number's JSON (digits, a sign, a point, an exponent) or
  /// in `true`, `false` or `null`: when not, those are not written out to be looked at.
  let numbersCanMatch: Bool
  let literalsCanMatch: Bool
  let limit: Int
  var paths: [[PathStep]] = []

  init(query: String, limit: Int) {
    self.query = query
    self.limit = limit
    asciiQuery = query.utf8.allSatisfy { $0 < 128 } ? Array(query.utf8) : nil
    numbersCanMatch = query.allSatisfy { "0123456789-+.e".contains($0) }
    literalsCanMatch = ["true", "false", "null"].contains { $0.contains(query) }
  }

  /// Whether `text` contains the query, ignoring case.
  func matches(_ text: String) -> Bool {
    guard let needle = asciiQuery else { return text.lowercased().contains(query) }
    if needle.isEmpty { return true }
    var text = text
    return text.withUTF8 { haystack in
      guard haystack.count >= needle.count else { return false }
      let first = needle[0]
      for start in 0...(haystack.count - needle.count) {
        guard Self.lower(haystack[start]) == first else { continue }
        var offset = 1
        while offset < needle.count, Self.lower(haystack[start + offset]) == needle[offset] {
          offset += 1
        }
        if offset == needle.count { return true }
      }
      return false
    }
  }

  /// An ASCII letter's lowercase; any other byte as it is.
  private static func lower(_ byte: UInt8) -> UInt8 {
    byte >= 65 && byte <= 90 ? byte + 32 : byte
  }

  /// Notes `path` if `text` contains the query, and says whether it did.
  @discardableResult
  func check(_ text: String, at path: @autoclosure () -> [PathStep]) throws -> Bool {
    guard matches(text) else { return false }
    guard paths.count < limit else { throw Enough() }
    paths.append(path())
    return true
  }

  func visit<T: Encodable>(_ value: T, at path: [PathStep]) throws {
    // Foundation's types that JSONEncoder writes its own way, as the preview shows them.
    if let data = value as? Data {
      try check(data.base64EncodedString(), at: path)
    } else if let url = value as? URL {
      try check(url.absoluteString, at: path)
    } else {
      try value.encode(to: SearchEncoder(walk: self, path: path))
    }
  }

  /// A leaf's text as the page shows it: a string as itself, anything else as its JSON.
  func leaf(_ value: JSONValue, at path: @autoclosure () -> [PathStep]) throws {
    switch value {
    case .string(let string): try check(string, at: path())
    case .bool, .null: if literalsCanMatch { try check(value.text, at: path()) }
    default: if numbersCanMatch { try check(value.text, at: path()) }
    }
  }
}

private struct SearchEncoder: Encoder {
  let walk: SearchWalk
  let path: [PathStep]
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(SearchKeyedContainer(walk: walk, path: path))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    SearchUnkeyedContainer(walk: walk, path: path)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SearchSingleContainer(walk: walk, path: path)
  }
}

private struct SearchKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let walk: SearchWalk
  let path: [PathStep]
  var codingPath: [any CodingKey] { [] }

  /// Checks the key, then the value `visit` looks at.
  private func member(_ key: Key, _ visit: ([PathStep]) throws -> Void) throws {
    let child = path + [.key(key.stringValue)]
    try walk.check(key.stringValue, at: child)
    try visit(child)
  }

  /// Checks the key, then the value if the key did not match (its path is the same).
  private func leaf(_ value: JSONValue, _ key: Key) throws {
    guard try !walk.check(key.stringValue, at: path + [.key(key.stringValue)]) else { return }
    try walk.leaf(value, at: path + [.key(key.stringValue)])
  }

  mutating func encodeNil(forKey key: Key) throws { try leaf(.null, key) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { try leaf(.bool(value), key) }
  mutating func encode(_ value: String, forKey key: Key) throws { try leaf(.string(value), key) }
  mutating func encode(_ value: Double, forKey key: Key) throws { try leaf(.double(value), key) }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    try leaf(.double(Double(value)), key)
  }
  mutating func encode(_ value: Int, forKey key: Key) throws { try leaf(.int(Int64(value)), key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { try leaf(.int(Int64(value)), key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    try leaf(.int(Int64(value)), key)
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    try leaf(.int(Int64(value)), key)
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws { try leaf(.int(value), key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    try leaf(.uint(UInt64(value)), key)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    try leaf(.uint(UInt64(value)), key)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    try leaf(.uint(UInt64(value)), key)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    try leaf(.uint(UInt64(value)), key)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try leaf(.uint(value), key) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try member(key) { try walk.visit(value, at: $0) }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    // A key met here cannot stop the walk (this cannot throw); the next value does.
    let child = path + [.key(key.stringValue)]
    _ = try? walk.check(key.stringValue, at: child)
    return KeyedEncodingContainer(SearchKeyedContainer<NestedKey>(walk: walk, path: child))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let child = path + [.key(key.stringValue)]
    _ = try? walk.check(key.stringValue, at: child)
    return SearchUnkeyedContainer(walk: walk, path: child)
  }

  mutating func superEncoder() -> any Encoder { SearchEncoder(walk: walk, path: path) }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    SearchEncoder(walk: walk, path: path + [.key(key.stringValue)])
  }
}

private struct SearchUnkeyedContainer: UnkeyedEncodingContainer, LeafEncodingContainer {
  let walk: SearchWalk
  let path: [PathStep]
  var codingPath: [any CodingKey] { [] }
  private(set) var count = 0

  init(walk: SearchWalk, path: [PathStep]) {
    self.walk = walk
    self.path = path
  }

  /// The next item's path.
  private mutating func next() -> [PathStep] {
    defer { count += 1 }
    return path + [.index(count)]
  }

  mutating func encodeLeaf(_ value: JSONValue) throws {
    let index = count
    count += 1
    try walk.leaf(value, at: path + [.index(index)])
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    try walk.visit(value, at: next())
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    KeyedEncodingContainer(SearchKeyedContainer<NestedKey>(walk: walk, path: next()))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    SearchUnkeyedContainer(walk: walk, path: next())
  }

  mutating func superEncoder() -> any Encoder { SearchEncoder(walk: walk, path: next()) }
}

private struct SearchSingleContainer: SingleValueEncodingContainer, LeafEncodingContainer {
  let walk: SearchWalk
  let path: [PathStep]
  var codingPath: [any CodingKey] { [] }

  func encodeLeaf(_ value: JSONValue) throws { try walk.leaf(value, at: path) }

  mutating func encode<T: Encodable>(_ value: T) throws {
    try walk.visit(value, at: path)
  }
}
