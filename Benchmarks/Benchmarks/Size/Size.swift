// Size: bytes per action on disk for each example domain, recording 1,000,000 actions of
// the domain's own realistic workload through the real recorder, at the default settings
// (zstd level 3) and at levels 1 and 19. The wall clock is the time to record and close.
//
// Mallocs are not counted here: closing a recorder ends its writer thread, and a thread that
// ends while package-benchmark counts mallocs can crash the process (see
// `BenchmarkSettings.configuration`).
import Benchmark
import Retrace
import RetraceBenchmarkSupport
import RetraceExamples
import RetraceLog

let benchmarks: @Sendable () -> Void = {
  let count = BenchmarkSettings.actions
  let defaultLevel = TraceRecorderConfiguration().compressionLevel

  for domain in Examples.domains {
    for level in [defaultLevel, 1, 19] {
      sizeBenchmark(domain, level: level, isDefault: level == defaultLevel, count: count)
    }
  }
}

func sizeBenchmark<D: Domain>(_ domain: D, level: Int, isDefault: Bool, count: Int) {
  // No spaces: package-benchmark writes thresholds files with underscores for spaces but reads
  // them by the name as it is.
  let name = "Size_\(domain.name)_level_\(level)\(isDefault ? "_default" : "")"
  let configuration = BenchmarkSettings.configuration(
    scaled: true, mallocs: nil, maxIterations: 1, maxSeconds: 1,
    extraMetrics: [traceBytesPerThousandActions: BenchmarkThresholds(relative: [.p90: 2.0])])
  Benchmark(name, configuration: configuration) { benchmark, actions in
    var settings = TraceRecorderConfiguration()
    settings.compressionLevel = level
    let path = TraceFixture.scratchPath("size-\(domain.name)-\(level)")
    defer { TraceFixture.remove(path) }
    do {
      benchmark.startMeasurement()
      let bytes = try TraceFixture.record(actions, of: domain, to: path, configuration: settings)
      benchmark.stopMeasurement()
      benchmark.measurement(traceBytesPerThousandActions, bytes * 1_000 / actions.count)
    } catch {
      benchmark.error("recording failed: \(error)")
    }
  } setup: {
    domain.generate(count: count, seed: 5).actions
  }
}
