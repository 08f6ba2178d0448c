import Retrace

/// The result of ``ReplayEngine/bench(repetitions:decode:progress:)``.
///
/// Times are medians over the repetitions. `Codable` with these property names as keys:
/// that is what `retrace bench --json` prints.
public struct BenchReport: Codable, Equatable, Sendable {
  /// How long one action case takes to reduce.
  public struct CaseTiming: Codable, Equatable, Sendable {
    /// The action case, such as `addTransaction`.
    public var name: String
    /// How many actions of this case the session holds.
    public var count: Int
    /// The median time to reduce one action of this case, in nanoseconds.
    public var p50Nanoseconds: Double
    /// The 99th percentile, in nanoseconds.
    public var p99Nanoseconds: Double
  }

  /// How many times the session was replayed (and decoded).
  public var repetitions: Int
  /// The number of actions in the session.
  public var actions: Int
  /// The median time to decode the whole session once, in seconds; `nil` when no decoder
  /// was given.
  public var decodeSeconds: Double?
  /// The median time to reduce every action once, in seconds.
  public var reduceSeconds: Double
  /// Decode time per action, in nanoseconds; `nil` when no decoder was given.
  public var decodeNanosecondsPerAction: Double?
  /// Reduce time per action, in nanoseconds.
  public var reduceNanosecondsPerAction: Double
  /// Actions reduced per second.
  public var actionsPerSecond: Double
  /// Decode and reduce time per action, in nanoseconds.
  public var nanosecondsPerAction: Double
  /// The process's peak resident memory, in bytes, when the system tells.
  public var peakMemoryBytes: Int?
  /// Per action case, in the order of the domain's `Domain.actionCases` (then any others).
  public var cases: [CaseTiming]
}

extension ReplayEngine {
  /// Benchmarks the domain's reducer on the session: decodes it (with `decode`) and replays
  /// it `repetitions` times, and reports decode and reduce time separately, per action
  /// overall and per action case.
  ///
  /// Whole replays are timed without a clock read per action, for the overall numbers; then
  /// every action is timed on its own (less the clock's own cost), for the per-case
  /// percentiles.
  ///
  /// ```swift
  /// let report = try debugger.bench(repetitions: 5) { _ = try loadSession() }
  /// print(report.reduceNanosecondsPerAction, report.cases.map(\.name))
  /// ```
  ///
  /// ```
  /// 272.4 ["addAccount", "addTransaction", "moveAccount", "navigation"]
  /// ```
  ///
  /// - Parameters:
  ///   - repetitions: How many times to decode and replay (at least 1).
  ///   - decode: Decodes the session from its file once; `nil` to time only the reducer.
  ///   - progress: Called after each repetition with the number done and the total.
  /// - Returns: The report.
  /// - Throws: Whatever `decode` throws.
  public func bench(
    repetitions: Int,
    decode: (() throws -> Void)? = nil,
    progress: ((_ done: Int, _ total: Int) -> Void)? = nil
  ) throws -> BenchReport {
    precondition(repetitions >= 1, "repetitions must be at least 1")
    let actions = session.actions
    let count = actions.count

    var decodeTimes: [UInt64] = []
    if let decode {
      for _ in 0..<repetitions {
        let start = monotonicNanoseconds()
        try decode()
        decodeTimes.append(monotonicNanoseconds() - start)
      }
    }

    let hasJumps = !jumpAfter.isEmpty
    // Whole replays, for the overall numbers.
    var reduceTimes: [UInt64] = []
    for repetition in 0..<repetitions {
      var state = startState
      let start = monotonicNanoseconds()
      for index in 0..<count {
        _ = domain.reduce(into: &state, action: actions[index].action)
        if hasJumps { applyJump(&state, after: actions[index].sequence) }
      }
      reduceTimes.append(monotonicNanoseconds() - start)
      blackHole(state)
      progress?(repetition + 1, repetitions * 2)
    }

    // Every action timed on its own, for the per-case percentiles.
    let (caseNames, caseOfAction) = caseIndices()
    var samples = [[UInt32]](repeating: [], count: caseNames.count)
    var caseCounts = [Int](repeating: 0, count: caseNames.count)
    for index in caseOfAction { caseCounts[index] += 1 }
    for index in samples.indices { samples[index].reserveCapacity(caseCounts[index] * repetitions) }
    let clockCost = clockOverhead()
    for repetition in 0..<repetitions {
      var state = startState
      for index in 0..<count {
        let start = monotonicNanoseconds()
        _ = domain.reduce(into: &state, action: actions[index].action)
        let elapsed = monotonicNanoseconds() - start
        if hasJumps { applyJump(&state, after: actions[index].sequence) }
        let net = elapsed > clockCost ? elapsed - clockCost : 0
        samples[caseOfAction[index]].append(UInt32(clamping: net))
      }
      blackHole(state)
      progress?(repetitions + repetition + 1, repetitions * 2)
    }

    let cases = caseNames.indices.compactMap { index -> BenchReport.CaseTiming? in
      guard caseCounts[index] > 0 else { return nil }
      let sorted = samples[index].sorted()
      return BenchReport.CaseTiming(
        name: caseNames[index], count: caseCounts[index],
        p50Nanoseconds: Double(percentile(sorted, 50)),
        p99Nanoseconds: Double(percentile(sorted, 99)))
    }
    let reduce = Double(median(reduceTimes))
    let decodeTime = decodeTimes.isEmpty ? nil : Double(median(decodeTimes))
    let perAction = { (nanoseconds: Double) in count == 0 ? 0 : nanoseconds / Double(count) }
    return BenchReport(
      repetitions: repetitions,
      actions: count,
      decodeSeconds: decodeTime.map { $0 / 1e9 },
      reduceSeconds: reduce / 1e9,
      decodeNanosecondsPerAction: decodeTime.map(perAction),
      reduceNanosecondsPerAction: perAction(reduce),
      actionsPerSecond: reduce == 0 ? 0 : Double(count) / (reduce / 1e9),
      nanosecondsPerAction: perAction(reduce + (decodeTime ?? 0)),
      peakMemoryBytes: peakMemoryBytes(),
      cases: cases)
  }

  /// The case names in the session (the domain's declared ones first) and, for each
  /// action, the index of its case among them.
  func caseIndices() -> (names: [String], caseOfAction: [Int]) {
    var names = domain.actionCases
    var indexOfName = Dictionary(
      names.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
    var caseOfAction: [Int] = []
    caseOfAction.reserveCapacity(session.actions.count)
    for action in session.actions {
      let name = actionCaseName(of: action.action)
      if let index = indexOfName[name] {
        caseOfAction.append(index)
      } else {
        indexOfName[name] = names.count
        caseOfAction.append(names.count)
        names.append(name)
      }
    }
    return (names, caseOfAction)
  }
}

/// The least time two consecutive clock reads take apart: the cost a per-action timing
/// adds to every sample.
private func clockOverhead() -> UInt64 {
  var least = UInt64.max
  for _ in 0..<1_000 {
    let start = monotonicNanoseconds()
    least = min(least, monotonicNanoseconds() - start)
  }
  return least
}

private func median(_ values: [UInt64]) -> UInt64 {
  percentile(values.sorted(), 50)
}

private func percentile<T: BinaryInteger>(_ sorted: [T], _ percent: Int) -> T {
  guard !sorted.isEmpty else { return 0 }
  return sorted[(sorted.count - 1) * percent / 100]
}

/// Keeps the optimizer from discarding a replay whose result nobody reads.
@inline(never)
private func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}
