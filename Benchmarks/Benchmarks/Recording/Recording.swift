// W4: W2 (1,000 accounts, 1,000,000 addTransaction actions through `send`) with the trace
// recorder attached at its default settings, measured twice:
//
// - "send": only the sending loop, which is what the app's thread pays; the background
//   writer runs meanwhile, and catches up (`flush()`) after the measurement.
// - "until flushed": from the first `send` until `flush()` returns with every action in the
//   file or the journal, synced: the background writer's sustained throughput.
//
// W4r is the same with a redaction key (the banking domain's policy): the sending thread's
// work is W4's, and the writer pseudonymizes each action and state before writing it.
// W4re adds encryption to a public key: the writer also seals each journal record and chunk.
//
// The recorders are closed after the benchmark, in its teardown, not after each iteration:
// closing ends the writer thread, and a thread that ends while package-benchmark counts
// mallocs can crash the process (see `BenchmarkSettings.configuration`).
import Benchmark
import ExampleDomains
import Retrace
import RetraceBenchmarkSupport
import RetraceLog
import Synchronization

let benchmarks: @Sendable () -> Void = {
  let count = BenchmarkSettings.actions

  let variants: [(prefix: String, privacy: OpenRecorders.Privacy)] = [
    ("W4_banking_recording", .none), ("W4r_banking_redacted_recording", .redacted),
    ("W4re_banking_redacted_encrypted_recording", .redactedAndEncrypted),
  ]
  for (prefix, privacy) in variants {
    for untilFlushed in [false, true] {
      let name = prefix + (untilFlushed ? "_until_flushed" : "_send")
      let configuration = BenchmarkSettings.configuration(
        mallocs: .relative(10), maxIterations: 5, maxSeconds: 10)
      let open = OpenRecorders()
      Benchmark(name, configuration: configuration) { benchmark, actions in
        do {
          try onMainActor(benchmark) { benchmark in
            let store = Store(initialState: Workloads.bankingState(), reducer: BankingReducer())
            let recorder = try open.recorder(named: prefix, privacy: privacy)
            store.attach(recorder)
            benchmark.startMeasurement()
            for action in actions {
              store.send(action)
            }
            if !untilFlushed { benchmark.stopMeasurement() }
            try recorder.flush()
            if untilFlushed { benchmark.stopMeasurement() }
            if recorder.droppedActionCount > 0 {
              benchmark.error("the recorder dropped \(recorder.droppedActionCount) actions")
            }
          }
        } catch {
          benchmark.error("recording failed: \(error)")
        }
      } setup: {
        Workloads.transactionActions(count: count)
      } teardown: {
        try open.closeAll()
      }
    }
  }
}

/// The recorders a benchmark opened, to be closed in its teardown.
final class OpenRecorders: Sendable {
  private let recorders = Mutex<
    [(path: String, recorder: TraceRecorder<BankingState, BankingAction>)]
  >([])

  /// What a recorder keeps private: nothing, personal data (a redaction key), or that and
  /// everything (a redaction key and a public key to encrypt to).
  enum Privacy {
    case none
    case redacted
    case redactedAndEncrypted
  }

  /// A recorder for a new trace in the run's scratch directory, with the keys `privacy`
  /// calls for.
  func recorder(named name: String, privacy: Privacy = .none) throws -> TraceRecorder<
    BankingState, BankingAction
  > {
    try recorders.withLock { recorders in
      let path = TraceFixture.scratchPath("\(name)-\(recorders.count)")
      var configuration = TraceRecorderConfiguration()
      if privacy != .none { configuration.redactionKey = .random() }
      if privacy == .redactedAndEncrypted {
        configuration.encryptionKey = TracePrivateKey.generate().publicKey
      }
      let recorder = try TraceRecorder<BankingState, BankingAction>(
        path: path, domain: bankingDomain, configuration: configuration)
      recorders.append((path, recorder))
      return recorder
    }
  }

  /// Closes every recorder and removes its trace.
  func closeAll() throws {
    let all = recorders.withLock { recorders in
      defer { recorders.removeAll() }
      return recorders
    }
    for (path, recorder) in all {
      try recorder.close()
      TraceFixture.remove(path)
    }
  }
}
