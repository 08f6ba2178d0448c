import Foundation
import Retrace
import RetraceLog

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
      // Clamped as a Double: a time far outside the others (which a JSON Lines file may
      // hold) must not overflow the conversion.
      let scaled = position * Double(buckets)
      let bucket = scaled.isFinite ? Int(min(Double(buckets - 1), max(0, scaled))) : 0
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
