import Foundation
import Retrace
import RetraceLog

/// A state as JSON, as `retrace state --json` prints it (keys sorted), with what the page
/// needs to highlight: the paths where two states differ.
struct StateJSON {
  /// The JSON text.
  let text: String
  /// The parsed value, to compare.
  let value: Any

  init<State: Encodable>(_ state: State) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = try encoder.encode(state)
    text = String(decoding: data, as: UTF8.self)
    value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
  }

  /// One place where two states differ.
  struct Change {
    /// The keys and indexes from the root to the value.
    var path: [JSONValue]
    /// `changed`, `added` (only in the new state) or `removed` (only in the old).
    var kind: String
    /// For a changed value that is not an object or array: the old value, as JSON.
    var old: String?

    var json: JSONValue {
      .object(
        [("path", .array(path)), ("kind", .string(kind))] + (old.map { [("old", .raw($0))] } ?? []))
    }
  }

  /// Where `other` differs from this state, deepest first found, at most `limit` places
  /// (a diff across a whole session can touch everything; the page needs only to mark them).
  func changes(to other: StateJSON, limit: Int = 2_000) -> [Change] {
    var changes: [Change] = []
    var path: [JSONValue] = []
    func compare(_ old: Any, _ new: Any) {
      guard changes.count < limit else { return }
      if let old = old as? [String: Any], let new = new as? [String: Any] {
        for key in Set(old.keys).union(new.keys).sorted() {
          path.append(.string(key))
          switch (old[key], new[key]) {
          case (let a?, let b?): compare(a, b)
          case (nil, _?): changes.append(Change(path: path, kind: "added"))
          case (_?, nil): changes.append(Change(path: path, kind: "removed"))
          case (nil, nil): break
          }
          path.removeLast()
        }
      } else if let old = old as? [Any], let new = new as? [Any] {
        for index in 0..<max(old.count, new.count) {
          path.append(.int(Int64(index)))
          if index >= old.count {
            changes.append(Change(path: path, kind: "added"))
          } else if index >= new.count {
            changes.append(Change(path: path, kind: "removed"))
          } else {
            compare(old[index], new[index])
          }
          path.removeLast()
        }
      } else if !Self.equal(old, new) {
        changes.append(Change(path: path, kind: "changed", old: Self.scalarText(old)))
      }
    }
    compare(value, other.value)
    return changes
  }

  /// A string, number, boolean or null as JSON text; `nil` for an object or array.
  private static func scalarText(_ value: Any) -> String? {
    if value is [String: Any] || value is [Any] { return nil }
    guard let data = try? JSONSerialization.data(withJSONObject: [value]) else { return nil }
    let text = String(decoding: data, as: UTF8.self)
    return String(text.dropFirst().dropLast())
  }

  private static func equal(_ a: Any, _ b: Any) -> Bool {
    switch (a, b) {
    case (is NSNull, is NSNull): return true
    case (let a as String, let b as String): return a == b
    case (let a as NSNumber, let b as NSNumber): return a == b
    default: return false
    }
  }
}

/// Each action's case and time, to count them per case over time for the swimlanes.
struct Lanes: Sendable {
  var names: [String] = []
  var cases: [UInt16] = []
  var times: [Double] = []
  var sequences: [UInt64] = []

  init<D: Domain>(session: RecordedSession<D>) {
    var index: [String: UInt16] = [:]
    cases.reserveCapacity(session.actions.count)
    times.reserveCapacity(session.actions.count)
    sequences.reserveCapacity(session.actions.count)
    for action in session.actions {
      let name = actionCaseName(of: action.action)
      let number: UInt16
      if let known = index[name] {
        number = known
      } else {
        number = UInt16(clamping: names.count)
        index[name] = number
        names.append(name)
      }
      cases.append(number)
      times.append(action.time)
      sequences.append(action.sequence)
    }
  }

  /// Counts per case in `buckets` equal spans of time, with the first sequence number of
  /// each case in each span (where a click on the lane jumps).
  func json(buckets requested: Int) -> JSONValue {
    let buckets = max(1, min(requested, 2_000))
    guard let start = times.first, let end = times.last else {
      return .object([
        ("buckets", .int(Int64(buckets))), ("start", .null), ("end", .null),
        ("lanes", .array([])),
      ])
    }
    let span = end - start
    var counts = [[Int]](repeating: [Int](repeating: 0, count: buckets), count: names.count)
    var firsts = [[UInt64?]](
      repeating: [UInt64?](repeating: nil, count: buckets), count: names.count)
    for index in cases.indices {
      // By time; a session recorded within one instant is spread by position instead.
      let position =
        span > 0
        ? (times[index] - start) / span : Double(index) / Double(max(1, cases.count - 1))
      let bucket = min(buckets - 1, max(0, Int(position * Double(buckets))))
      let lane = Int(cases[index])
      counts[lane][bucket] += 1
      if firsts[lane][bucket] == nil { firsts[lane][bucket] = sequences[index] }
    }
    return .object([
      ("buckets", .int(Int64(buckets))), ("start", .double(start)), ("end", .double(end)),
      (
        "lanes",
        .array(
          names.indices.map { lane in
            .object([
              ("case", .string(names[lane])),
              ("counts", .array(counts[lane].map { .int(Int64($0)) })),
              ("first", .array(firsts[lane].map { .optional($0) { .uint($0) } })),
            ])
          })
      ),
    ])
  }
}
