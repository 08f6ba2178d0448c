import Foundation
import RetraceDebugger
import RetraceLog

/// The places in a whole state whose key or value contains a text, ignoring case: what the
/// page's search box finds, including in the parts of long arrays a preview leaves out.
///
/// The state is walked by ``StateWalker``, an `Encoder` that writes nothing: every key and
/// every value is looked at once, and the walk stops at the `limit`-th match.
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
    let search = SearchVisitor(query: query.lowercased(), limit: limit)
    complete = try StateWalker.walk(state, with: search)
    paths = search.paths
  }
}

/// The search's visitor: the text, and the matches so far.
private final class SearchVisitor: StateVisitor {
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

  /// Notes `path` if `text` contains the query, past the limit stopping the walk instead.
  private func check(_ text: String, at path: () -> [PathStep]) -> (
    matched: Bool, decision: WalkDecision
  ) {
    guard matches(text) else { return (false, .proceed) }
    guard paths.count < limit else { return (true, .stop) }
    paths.append(path())
    return (true, .proceed)
  }

  /// A key that matches gives the path of its value.
  func key(_ key: String, at path: @autoclosure () -> [PathStep]) -> WalkDecision {
    check(key, at: path).decision
  }

  /// A leaf's key, then its text as the page shows it (a string as itself, anything else as
  /// its JSON) when the key did not match: both have the leaf's path.
  func leaf(_ value: JSONValue, key: String?, at path: @autoclosure () -> [PathStep])
    -> WalkDecision
  {
    if let key {
      let (matched, decision) = check(key, at: path)
      if matched { return decision }
    }
    switch value {
    case .string(let string): return check(string, at: path).decision
    case .bool, .null: return literalsCanMatch ? check(value.text, at: path).decision : .proceed
    default: return numbersCanMatch ? check(value.text, at: path).decision : .proceed
    }
  }
}
