import Foundation
import Retrace
import RetraceExamples
import Synchronization

@testable import RetraceLog

/// A fresh temporary directory for one test, removed when the test process exits.
func temporaryDirectory(_ name: String = #function) -> String {
  let safe = name.filter { $0.isLetter || $0.isNumber }
  let path = NSTemporaryDirectory() + "retrace-tests-\(safe)-\(UUID().uuidString.prefix(8))"
  try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  removeAtExit(path)
  return path
}

/// The temporary directories of this target's tests, removed when the process exits.
private let temporaryPaths = Mutex<[String]?>(nil)

private func removeAtExit(_ path: String) {
  let first = temporaryPaths.withLock { paths in
    defer { paths = (paths ?? []) + [path] }
    return paths == nil
  }
  if first {
    atexit {
      for path in temporaryPaths.withLock({ $0 ?? [] }) {
        try? FileManager.default.removeItem(atPath: path)
      }
    }
  }
}

/// A configuration with tiny chunks, so that a few thousand actions cross many chunk
/// boundaries, snapshots and checkpoints.
/// Small chunks, dense checkpoints and snapshots; `reproducible` puts them at the same
/// sequence numbers whatever the timing (`TraceRecorderConfiguration.reproducibleCheckpoints`);
/// in trace format `format`.
func smallChunks(
  checkpoints: Int = 50, snapshots: Int = 500, reproducible: Bool = false,
  format: UInt16 = TraceFormat.version
) -> TraceRecorderConfiguration {
  var configuration = TraceRecorderConfiguration()
  configuration.formatVersion = format
  configuration.reproducibleCheckpoints = reproducible
  configuration.chunkSize = 2_048
  configuration.checkpointInterval = checkpoints
  configuration.snapshotInterval = snapshots
  configuration.maxSnapshotShare = 1
  return configuration
}

/// Records `count` workload actions of `domain` through a real store and recorder, and
/// returns the actions and the final state. The recorder is closed unless `close` is false
/// (then it is flushed and returned still open, as a crashed session would leave it).
@MainActor
func record<D: Domain>(
  _ domain: D, count: Int, seed: UInt64 = 1, to path: String,
  configuration: TraceRecorderConfiguration = TraceRecorderConfiguration(), close: Bool = true
) throws -> (actions: [D.Action], state: D.State, recorder: TraceRecorder<D.State, D.Action>) {
  let store = Store(
    initialState: domain.initialState, reducer: Reduce { domain.reduce(into: &$0, action: $1) },
    clock: .fixed(start: 1_763_771_000, interval: 0.25))
  let recorder = try TraceRecorder(
    path: path, domain: domain, sessionID: "test-session", startTime: 1_763_771_000,
    configuration: configuration)
  store.attach(recorder)
  var random = SeededRandom(seed: seed)
  var actions: [D.Action] = []
  for step in 0..<count {
    let action = domain.workload!.next(store.state, step, &random)
    actions.append(action)
    store.send(action)
  }
  if close { try recorder.close() } else { try recorder.flush() }
  return (actions, store.state, recorder)
}

/// Like ``record(_:count:seed:to:configuration:close:)``, without a store: the actions go
/// straight through the reducer and the recorder, so it runs on any thread.
func recordWithoutStore<D: Domain>(
  _ domain: D, count: Int, seed: UInt64 = 1, to path: String,
  configuration: TraceRecorderConfiguration = TraceRecorderConfiguration(), close: Bool = true
) throws -> (actions: [D.Action], state: D.State, recorder: TraceRecorder<D.State, D.Action>) {
  let recorder = try TraceRecorder(
    path: path, domain: domain, sessionID: "test-session", startTime: 1_763_771_000,
    configuration: configuration)
  return try feed(recorder, domain, count: count, seed: seed, close: close)
}

/// Feeds `recorder` `count` workload actions of `domain` from `start` on, a quarter second
/// apart, without a store; then checkpoints, and closes it unless `close` is false (then it
/// is flushed).
func feed<D: Domain>(
  _ recorder: TraceRecorder<D.State, D.Action>, _ domain: D, count: Int, seed: UInt64,
  start: Double = 1_763_771_000, close: Bool
) throws -> (actions: [D.Action], state: D.State, recorder: TraceRecorder<D.State, D.Action>) {
  var state = domain.initialState
  recorder.attached(sequence: 0, state: state)
  var random = SeededRandom(seed: seed)
  var actions: [D.Action] = []
  for step in 0..<count {
    let action = domain.workload!.next(state, step, &random)
    _ = domain.reduce(into: &state, action: action)
    actions.append(action)
    recorder.record(
      Transition(
        sequence: UInt64(step + 1), time: start + Double(step + 1) * 0.25, action: action,
        stateBefore: nil, stateAfter: state))
  }
  recorder.checkpoint(state: state, after: UInt64(count))
  if close { try recorder.close() } else { try recorder.flush() }
  return (actions, state, recorder)
}

/// Every action of a trace, decoded for `domain`.
func readActions<D: Domain>(_ domain: D, _ reader: TraceReader) throws -> [D.Action] {
  try TraceSession(reader, domain: domain).actions().map(\.action)
}

/// The trace formats a recorder writes: the damage tests run on each.
let traceFormats: [UInt16] = Array(1...TraceFormat.version)

func bytes(of path: String) -> [UInt8] {
  Array(FileManager.default.contents(atPath: path) ?? Data())
}

/// Runs a command and returns its exit status and standard output.
func run(_ command: String, _ arguments: [String]) throws -> (
  status: Int32, output: String, error: String
) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [command] + arguments
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  let output = out.fileHandleForReading.readDataToEndOfFile()
  let error = err.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (
    process.terminationStatus, String(decoding: output, as: UTF8.self),
    String(decoding: error, as: UTF8.self)
  )
}

func commandExists(_ name: String) -> Bool {
  (try? run("sh", ["-c", "command -v \(name)"]))?.status == 0
}
