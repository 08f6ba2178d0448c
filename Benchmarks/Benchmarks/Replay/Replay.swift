// W5 and W6 on a banking trace of 1,000,000 realistic actions (the example domain's own
// workload), recorded at the default settings through the real recorder when the suite
// starts (see `TraceFixture.bankingTrace()`).
//
// - W5 replay: open the file, decode every action and reduce it, from the starting
//   snapshot; then decoding alone, and reducing alone (actions decoded beforehand). W5e:
//   the same session encrypted, read with its key.
// - W6 seek: the state at 100 random sequence numbers with `TraceSession.state(at:)`, which
//   replays from the nearest snapshot before each one; the reader is opened once. Opening
//   it (reading the file and checking every chunk) is measured on its own.
// - W8 diff: `stateDiff` of the states before and after the last 1,000 actions (what `retrace
//   diff --from 999000 --to 1000000` and a debugger step show): 8 accounts of up to 120,000
//   transactions, each changed at its end.
import Benchmark
import Retrace
import RetraceBenchmarkSupport
import RetraceDebugger
import RetraceExamples
import RetraceLog

let benchmarks: @Sendable () -> Void = {
  let count = BenchmarkSettings.actions

  Benchmark(
    "W5_replay_decode_and_reduce",
    configuration: BenchmarkSettings.configuration(
      mallocs: .relative(10), maxIterations: 5, maxSeconds: 10,
      extraMetrics: [traceBytesPerThousandActions: BenchmarkThresholds(relative: [.p90: 2.0])])
  ) { benchmark, path in
    do {
      benchmark.startMeasurement()
      let trace = try TraceSession(TraceReader(path: path), domain: bankingDomain)
      var state = try trace.initialState()
      try trace.forEachAction { action in
        _ = bankingDomain.reduce(into: &state, action: action.action)
        return true
      }
      benchmark.stopMeasurement()
      blackHole(state)
      benchmark.measurement(
        traceBytesPerThousandActions, try TraceFixture.fileSize(path) * 1_000 / count)
    } catch {
      benchmark.error("replay failed: \(error)")
    }
  } setup: {
    try TraceFixture.bankingTrace()
  }

  Benchmark(
    "W5e_replay_encrypted_decode_and_reduce",
    configuration: BenchmarkSettings.configuration(
      mallocs: .relative(10), maxIterations: 5, maxSeconds: 10)
  ) { benchmark, path in
    do {
      benchmark.startMeasurement()
      let trace = try TraceSession(
        TraceReader(path: path, key: TraceFixture.encryptionKey), domain: bankingDomain)
      var state = try trace.initialState()
      var actions = 0
      try trace.forEachAction { action in
        _ = bankingDomain.reduce(into: &state, action: action.action)
        actions += 1
        return true
      }
      benchmark.stopMeasurement()
      blackHole(state)
      if actions != count { benchmark.error("replayed \(actions) actions, expected \(count)") }
    } catch {
      benchmark.error("replay failed: \(error)")
    }
  } setup: {
    try TraceFixture.encryptedBankingTrace()
  }

  Benchmark(
    "W5_replay_decode_only",
    configuration: BenchmarkSettings.configuration(
      mallocs: .relative(10), maxIterations: 5, maxSeconds: 10)
  ) { benchmark, path in
    do {
      benchmark.startMeasurement()
      let trace = try TraceSession(TraceReader(path: path), domain: bankingDomain)
      var actions = 0
      try trace.forEachAction { action in
        blackHole(action)
        actions += 1
        return true
      }
      benchmark.stopMeasurement()
      if actions != count { benchmark.error("decoded \(actions) actions, expected \(count)") }
    } catch {
      benchmark.error("decoding failed: \(error)")
    }
  } setup: {
    try TraceFixture.bankingTrace()
  }

  Benchmark(
    "W5_replay_reduce_only",
    configuration: BenchmarkSettings.configuration(
      mallocs: .relative(10), maxIterations: 5, maxSeconds: 10)
  ) { (benchmark: Benchmark, session: DecodedSession) in
    var state = session.initialState
    benchmark.startMeasurement()
    for action in session.actions {
      _ = bankingDomain.reduce(into: &state, action: action)
    }
    benchmark.stopMeasurement()
    blackHole(state)
  } setup: {
    let trace = try TraceSession(
      TraceReader(path: try TraceFixture.bankingTrace()), domain: bankingDomain)
    return DecodedSession(
      initialState: try trace.initialState(), actions: try trace.actions().map(\.action))
  }

  Benchmark(
    "W6_open_trace",
    configuration: BenchmarkSettings.configuration(
      scaled: false, mallocs: .absolute(100), maxIterations: 20)
  ) { benchmark, path in
    do {
      benchmark.startMeasurement()
      let reader = try TraceReader(path: path)
      benchmark.stopMeasurement()
      blackHole(reader.actionCount)
    } catch {
      benchmark.error("opening failed: \(error)")
    }
  } setup: {
    try TraceFixture.bankingTrace()
  }

  // One iteration is 100 seeks; the table divides by 100.
  Benchmark(
    "W6_seek_100_states",
    configuration: BenchmarkSettings.configuration(
      scaled: false, mallocs: .relative(10), maxIterations: 3, maxSeconds: 30)
  ) { (benchmark: Benchmark, fixture: SeekFixture) in
    do {
      benchmark.startMeasurement()
      for sequence in fixture.sequences {
        blackHole(try fixture.trace.state(at: sequence))
      }
      benchmark.stopMeasurement()
    } catch {
      benchmark.error("seeking failed: \(error)")
    }
  } setup: {
    let trace = try TraceSession(
      TraceReader(path: try TraceFixture.bankingTrace()), domain: bankingDomain)
    var random = SeededRandom(seed: 11)
    let sequences = (0..<100).map { _ in UInt64.random(in: 1...UInt64(count), using: &random) }
    return SeekFixture(trace: trace, sequences: sequences)
  }

  Benchmark(
    "W8_state_diff",
    configuration: BenchmarkSettings.configuration(
      scaled: false, mallocs: .relative(10), maxIterations: 20)
  ) { (benchmark: Benchmark, states: (old: BankingState, new: BankingState)) in
    benchmark.startMeasurement()
    let diff = stateDiff(states.old, states.new)
    benchmark.stopMeasurement()
    if diff == nil { benchmark.error("the states are equal") }
    blackHole(diff)
  } setup: {
    let trace = try TraceSession(
      TraceReader(path: try TraceFixture.bankingTrace()), domain: bankingDomain)
    let last = UInt64(count)
    return (try trace.state(at: last - min(1_000, last)), try trace.state(at: last))
  }
}

/// A session decoded before the measurement, for reducing alone.
struct DecodedSession {
  var initialState: BankingState
  var actions: [BankingAction]
}

/// An opened trace and the sequence numbers to seek to.
struct SeekFixture {
  var trace: TraceSession<DomainDefinition<BankingState, BankingAction>>
  var sequences: [UInt64]
}
