import Foundation
import Retrace
import RetraceLog

/// Each action's case and time, to count them per case over time for the swimlanes.
struct CaseTimeline: Sendable {
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
  /// each case in each span (where a click on the lane jumps): over the actions whose
  /// sequence numbers are in `span` (a zoomed timeline), or all of them.
  func answer(buckets requested: Int, span sequenceSpan: ClosedRange<UInt64>? = nil)
    -> LanesAnswer
  {
    let buckets = max(1, min(requested, 2_000))
    let chosen = sequenceSpan.map { indices(in: $0) } ?? cases.indices
    guard let start = chosen.first.map({ times[$0] }), let end = chosen.last.map({ times[$0] })
    else {
      return LanesAnswer(buckets: buckets, start: nil, end: nil, lanes: [])
    }
    let span = end - start
    var counts = [[Int]](repeating: [Int](repeating: 0, count: buckets), count: names.count)
    var firsts = [[UInt64?]](
      repeating: [UInt64?](repeating: nil, count: buckets), count: names.count)
    for index in chosen {
      // By time; a session recorded within one instant is spread by position instead.
      let position =
        span > 0
        ? (times[index] - start) / span
        : Double(index - chosen.lowerBound) / Double(max(1, chosen.count - 1))
      // Clamped as a Double: a time far outside the others (which a JSON Lines file may
      // hold) must not overflow the conversion.
      let scaled = position * Double(buckets)
      let bucket = scaled.isFinite ? Int(min(Double(buckets - 1), max(0, scaled))) : 0
      let lane = Int(cases[index])
      counts[lane][bucket] += 1
      if firsts[lane][bucket] == nil { firsts[lane][bucket] = sequences[index] }
    }
    return LanesAnswer(
      buckets: buckets, start: start, end: end, from: sequences[chosen.lowerBound],
      to: sequences[chosen.upperBound - 1],
      lanes: names.indices.map {
        LanesAnswer.Lane(case: names[$0], counts: counts[$0], first: firsts[$0])
      })
  }

  /// The positions of the actions whose sequence numbers are in `span`: the sequence numbers
  /// rise, so two binary searches find them.
  private func indices(in span: ClosedRange<UInt64>) -> Range<Int> {
    func firstIndex(notBelow bound: UInt64) -> Int {
      var low = 0
      var high = sequences.count
      while low < high {
        let middle = (low + high) / 2
        if sequences[middle] < bound { low = middle + 1 } else { high = middle }
      }
      return low
    }
    let lower = firstIndex(notBelow: span.lowerBound)
    let upper =
      span.upperBound == .max ? sequences.count : firstIndex(notBelow: span.upperBound + 1)
    return lower..<max(lower, upper)
  }
}
