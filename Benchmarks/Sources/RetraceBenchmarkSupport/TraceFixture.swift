import Foundation
import Retrace
import RetraceExamples
import RetraceLog

/// Recording sessions through the real ``TraceRecorder``, and the banking trace that the
/// replay and seek workloads (W5, W6) read.
public enum TraceFixture {
  /// Records `actions` of `domain` from its initial state into a new trace at `path`, the
  /// way `retrace generate` does: each action is reduced, then handed to the recorder, with
  /// times one second apart and a fixed session id, so that the same actions give the same
  /// file byte for byte.
  ///
  /// - Returns: The size of the trace file in bytes.
  @discardableResult
  public static func record<D: Domain>(
    _ actions: [D.Action], of domain: D, to path: String,
    configuration: TraceRecorderConfiguration = TraceRecorderConfiguration()
  ) throws -> Int {
    var configuration = configuration
    // Every checkpoint and snapshot that falls due is written, as in an app, whose writer is
    // never behind at human rates of actions (a burst from this loop would make it skip
    // some): the file's layout and size do not depend on the machine's load.
    configuration.reproducibleCheckpoints = true
    // Nothing may be dropped: the loop waits for the writer every `batch` actions.
    let batch = 1 << 18
    configuration.maxPendingActions = max(configuration.maxPendingActions, batch * 2)
    let recorder = try TraceRecorder<D.State, D.Action>(
      path: path, domain: domain, sessionID: "benchmark", startTime: Workloads.startDate,
      configuration: configuration)
    var state = domain.initialState
    recorder.attached(sequence: 0, state: state)
    for (index, action) in actions.enumerated() {
      _ = domain.reduce(into: &state, action: action)
      recorder.record(
        Transition(
          sequence: UInt64(index + 1), time: Workloads.startDate + Double(index), action: action, stateBefore: nil,
          stateAfter: state))
      if index % batch == batch - 1 { try recorder.flush() }
    }
    try recorder.close()
    precondition(recorder.droppedActionCount == 0, "the recorder dropped actions")
    return try fileSize(path)
  }

  /// The seed of the banking session that W5 and W6 read.
  public static let bankingSeed: UInt64 = 7

  /// The path of a banking trace of ``BenchmarkSettings/actions`` realistic actions (the
  /// example domain's own workload: accounts, payments, salaries, navigation), recorded at
  /// the default settings.
  ///
  /// Each benchmark runs in a process of its own; the trace is made by the first one that
  /// needs it in a run of the suite and reused by the others, and made anew by the next run
  /// (the format may have changed in between).
  public static func bankingTrace() throws -> String {
    let directory = runDirectory()
    let path = "\(directory)/banking-\(BenchmarkSettings.actions).trace"
    if FileManager.default.fileExists(atPath: path) { return path }
    let actions = bankingDomain.generate(count: BenchmarkSettings.actions, seed: bankingSeed).actions
    let partial = path + ".\(getpid()).partial"
    try record(actions, of: bankingDomain, to: partial)
    try? FileManager.default.removeItem(atPath: partial + ".journal")
    guard rename(partial, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    return path
  }

  /// The key of ``encryptedBankingTrace()``: made once per process; the benchmark only
  /// needs to read what it wrote.
  public static let encryptionKey = TracePrivateKey.generate()

  /// ``bankingTrace()``'s session, encrypted to ``encryptionKey`` (W5e), recorded once per
  /// process of the suite.
  public static func encryptedBankingTrace() throws -> String {
    let path = "\(runDirectory())/banking-encrypted-\(BenchmarkSettings.actions)-\(getpid()).trace"
    if FileManager.default.fileExists(atPath: path) { return path }
    let actions = bankingDomain.generate(count: BenchmarkSettings.actions, seed: bankingSeed).actions
    var configuration = TraceRecorderConfiguration()
    configuration.encryptionKey = encryptionKey.publicKey
    try record(actions, of: bankingDomain, to: path, configuration: configuration)
    try? FileManager.default.removeItem(atPath: path + ".journal")
    return path
  }

  /// A scratch directory for this run of the suite: named after the benchmark tool's process,
  /// which starts every benchmark's process. Directories of earlier runs are removed.
  public static func runDirectory() -> String {
    let base = NSTemporaryDirectory() + "retrace-benchmarks"
    let parent = getppid()
    let directory = "\(base)/run-\(parent)"
    let manager = FileManager.default
    if !manager.fileExists(atPath: directory) {
      for entry in (try? manager.contentsOfDirectory(atPath: base)) ?? [] {
        if let pid = Int32(entry.dropFirst(4)), entry.hasPrefix("run-"), kill(pid, 0) != 0 {
          try? manager.removeItem(atPath: "\(base)/\(entry)")
        }
      }
      try? manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    return directory
  }

  /// A fresh path in ``runDirectory()`` for a trace that a benchmark writes and removes.
  public static func scratchPath(_ name: String) -> String {
    "\(runDirectory())/\(name)-\(getpid()).trace"
  }

  /// Removes a trace and its journal.
  public static func remove(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.removeItem(atPath: path + ".journal")
  }

  /// The size of the file at `path` in bytes.
  public static func fileSize(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.size] as? NSNumber)?.intValue ?? 0
  }
}
