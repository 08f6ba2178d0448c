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
// W4l is W2 with a live link (`RetraceLive`) attached instead, connected to a local sink that
// accepts the WebSocket and only reads (`LiveSink`): "send" is what the app's thread pays,
// and "until sent" runs until the link has written every action to the socket (its
// sender's sustained throughput). The link's queue holds 1,048,576 actions, as the trace
// recorder's does at its defaults (`maxPendingActions`), where the link's default of 65,536
// overflows in a burst of a million on a busy machine; a run in which it drops an action is
// an error, since dropping is cheaper than sending.
//
// The recorders are closed after the benchmark, in its teardown, not after each iteration:
// closing ends the writer thread, and a thread that ends while package-benchmark counts
// mallocs can crash the process (see `BenchmarkSettings.configuration`).
import Benchmark
import Foundation
import Retrace
import RetraceBenchmarkSupport
import RetraceExamples
import RetraceLive
import RetraceLog
import Synchronization

let benchmarks: @Sendable () -> Void = {
  let count = BenchmarkSettings.actions

  for untilSent in [false, true] {
    let name = "W4l_banking_live_link" + (untilSent ? "_until_sent" : "_send")
    let configuration = BenchmarkSettings.configuration(
      mallocs: nil, maxIterations: 5, maxSeconds: 10)
    let sink = try! LiveSink()
    Benchmark(name, configuration: configuration) { benchmark, actions in
      do {
        try onMainActor(benchmark) { benchmark in
          let store = Store(initialState: Workloads.bankingState(), reducer: BankingReducer())
          var configuration = LiveLinkConfiguration()
          configuration.maxQueuedActions = 1 << 20
          let link = try LiveLink(
            domain: bankingDomain, studio: sink.address, configuration: configuration)
          store.attach(link)
          // The first hello goes out with the state at attach, without the main actor.
          try waitFor("the link to connect") {
            if case .connected = link.status { return true }
            return false
          }
          benchmark.startMeasurement()
          for action in actions {
            store.send(action)
          }
          if !untilSent { benchmark.stopMeasurement() }
          try waitFor("every action sent") {
            link.sentActionCount + link.droppedActionCount == actions.count
          }
          if untilSent { benchmark.stopMeasurement() }
          if link.droppedActionCount > 0 {
            benchmark.error("the link dropped \(link.droppedActionCount) actions")
          }
          store.detach(link)
        }
      } catch {
        benchmark.error("live link failed: \(error)")
      }
    } setup: {
      Workloads.transactionActions(count: count)
    }
  }

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

/// Spins until `condition` holds; throws after a minute.
func waitFor(_ what: String, _ condition: () -> Bool) throws {
  let end = ContinuousClock.now + .seconds(60)
  while !condition() {
    guard ContinuousClock.now < end else { throw SinkError("timed out waiting for \(what)") }
    usleep(200)
  }
}
