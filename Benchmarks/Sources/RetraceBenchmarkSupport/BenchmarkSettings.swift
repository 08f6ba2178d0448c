import Benchmark
import Dispatch
import Foundation

/// How big one run of the suite is: the full run that the results table comes from, or the
/// smoke pass that CI runs so that the suite cannot rot.
///
/// `RETRACE_BENCH_SMOKE=1` in the environment selects the smoke pass: every workload runs
/// once, on 1,000 actions instead of 1,000,000.
public enum BenchmarkSettings {
  /// Whether this is the smoke pass.
  public static let isSmoke: Bool = {
    let value = ProcessInfo.processInfo.environment["RETRACE_BENCH_SMOKE"] ?? ""
    return !value.isEmpty && value != "0"
  }()

  /// `RETRACE_BENCH_ITERATIONS=N` caps every workload at N iterations with no warm-up: enough
  /// for the stable metrics (`scripts/bench/bench-thresholds`), which do not vary between
  /// iterations, in a fraction of the time.
  public static let iterationLimit: Int? = {
    ProcessInfo.processInfo.environment["RETRACE_BENCH_ITERATIONS"].flatMap { Int($0) }.map {
      max($0, 1)
    }
  }()

  /// The actions in one iteration of a workload: 1,000,000 (1,000 in the smoke pass).
  public static var actions: Int { Int(scalingFactor.rawValue) }

  /// Results are reported per action: one iteration does ``actions`` of them.
  public static var scalingFactor: BenchmarkScalingFactor { isSmoke ? .kilo : .mega }

  /// The accounts of the banking workloads (W2, W4).
  public static let accounts = 1_000

  /// The transactions each account already holds in the "grown state" variant of W2.
  public static var transactionsPerGrownAccount: Int { isSmoke ? 10 : 1_000 }

  /// The configuration of a workload: wall clock, throughput, instructions and malloc
  /// counts. Instructions need hardware performance counters, which some virtual machines do
  /// not expose; package-benchmark then leaves them out.
  ///
  /// Thresholds cover only the metrics that do not vary from run to run: instructions
  /// (within 5%) and malloc counts (``MallocTolerance``). Wall clock goes into the table only.
  ///
  /// A workload during which a thread ends (closing a ``TraceRecorder`` ends its writer
  /// thread) must not count mallocs: package-benchmark's malloc interposer (1.6.1) frees a
  /// thread's counter block in its thread-exit destructor but keeps using it for the
  /// thread's remaining allocations, which corrupts the heap and crashes the benchmark now
  /// and then.
  ///
  /// - Parameters:
  ///   - scaled: Whether one iteration does ``actions`` actions (most workloads) or one
  ///     operation.
  ///   - mallocs: How much the malloc count per iteration may move before it is a regression;
  ///     `nil` to not count mallocs.
  ///   - maxIterations: The most iterations in a full run.
  ///   - extraMetrics: Custom metrics the workload reports, with their thresholds.
  public static func configuration(
    scaled: Bool = true,
    mallocs: MallocTolerance?,
    maxIterations: Int = 10,
    maxSeconds: Int = 4,
    extraMetrics: [BenchmarkMetric: BenchmarkThresholds] = [:]
  ) -> Benchmark.Configuration {
    var thresholds: [BenchmarkMetric: BenchmarkThresholds] = [
      .instructions: BenchmarkThresholds(relative: [.p90: 5.0])
    ]
    var metrics: [BenchmarkMetric] = [.wallClock, .throughput, .instructions]
    if let mallocs {
      thresholds[.mallocCountTotal] = mallocs.thresholds
      metrics.append(.mallocCountTotal)
    }
    thresholds.merge(extraMetrics) { _, new in new }
    return Benchmark.Configuration(
      metrics: metrics + extraMetrics.keys.sorted { $0.description < $1.description },
      timeUnits: .nanoseconds,
      warmupIterations: isSmoke || iterationLimit != nil ? 0 : 1,
      scalingFactor: scaled ? scalingFactor : .one,
      maxDuration: .seconds(isSmoke ? 1 : maxSeconds),
      maxIterations: isSmoke ? 1 : min(maxIterations, iterationLimit ?? .max),
      thresholds: thresholds
    )
  }
}

/// How much a workload's malloc count per iteration may move between runs.
///
/// A workload that should not allocate per action gets an absolute allowance (a relative
/// one means nothing around zero); one that allocates in proportion to its actions gets a
/// relative one.
public enum MallocTolerance: Sendable {
  /// At most this many more (or fewer) mallocs per iteration.
  case absolute(Int)
  /// At most this many percent more (or fewer).
  case relative(Double)

  var thresholds: BenchmarkThresholds {
    switch self {
    case .absolute(let count): BenchmarkThresholds(absolute: [.p90: count])
    case .relative(let percent): BenchmarkThresholds(relative: [.p90: percent])
    }
  }
}

/// Bytes of trace file per 1,000 actions: the size workloads' custom metric (package-benchmark
/// metrics are integers, so per action would lose the decimals).
public let traceBytesPerThousandActions = BenchmarkMetric.custom(
  "traceBytesPer1000Actions", polarity: .prefersSmaller, useScalingFactor: false)

/// Runs `body` on the main actor, where a `Store` lives, with the benchmark to measure, from
/// whatever thread the benchmark runner calls the benchmark on.
///
/// ```swift
/// Benchmark("W1 counter send") { benchmark, actions in
///   onMainActor(benchmark) { benchmark in
///     let store = Store(initialState: CounterState(), reducer: CounterReducer())
///     benchmark.startMeasurement()
///     for action in actions { store.send(action) }
///     benchmark.stopMeasurement()
///   }
/// } setup: { Workloads.counterActions(count: BenchmarkSettings.actions) }
/// ```
public func onMainActor<T: Sendable>(
  _ benchmark: Benchmark, _ body: @MainActor (Benchmark) throws -> T
) rethrows -> T {
  // `Benchmark` is not Sendable. Handing it to the main thread is safe: the runner's thread
  // waits in `DispatchQueue.main.sync` until `body` returns, so the two threads never use
  // it at the same time.
  nonisolated(unsafe) let benchmark = benchmark
  if Thread.isMainThread {
    return try MainActor.assumeIsolated { try body(benchmark) }
  }
  return try DispatchQueue.main.sync {
    try MainActor.assumeIsolated { try body(benchmark) }
  }
}

/// A task executor on Dispatch's global concurrent queue, for benchmarks whose work runs in
/// several tasks at once.
///
/// package-benchmark runs an async benchmark in a task and blocks the thread that called it
/// until the task ends, and that thread is one of the cooperative pool's, which has one
/// thread a core: on a 2-core machine the benchmark's tasks get one thread between them, and
/// `jobs: 2` runs no faster than `jobs: 1`. Child tasks inherit a task executor preference, so
/// `withTaskExecutorPreference(DispatchTaskExecutor.shared) { ... }` gives them threads of
/// their own, as an app's or the `retrace` command's tasks have.
public final class DispatchTaskExecutor: TaskExecutor {
  /// The one executor.
  public static let shared = DispatchTaskExecutor()

  private init() {}

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    DispatchQueue.global().async { job.runSynchronously(on: executor) }
  }
}
