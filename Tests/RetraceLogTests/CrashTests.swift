import Foundation
import Retrace
import RetraceExamples
import Synchronization
import Testing

@testable import RetraceLog

/// Kills a recording process with SIGKILL at random moments and checks what each trace
/// kept: readable, a clean prefix, every action flushed, and every action whose `send` had
/// returned more than the documented window (10 ms) before the kill. One format after the
/// other: two recording processes at once on a busy machine stretch the window.
@Suite(.serialized) struct CrashTests {
  /// The documented window, 10 ms, times `RETRACE_TIMING_SCALE` when a sanitizer build
  /// (several times slower, scripts/dev/sanitize sets it) runs the test.
  static let window =
    0.010 * (Double(ProcessInfo.processInfo.environment["RETRACE_TIMING_SCALE"] ?? "") ?? 1)

  /// The child executable, built beside the test bundle.
  var childPath: String {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while directory.path != "/" {
      let candidate = directory.appendingPathComponent("retrace-crash-child").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      directory = directory.deletingLastPathComponent()
    }
    return ""
  }

  @Test(arguments: traceFormats)
  func killingARecordingProcessLosesNothingOlderThanTheWindow(format: UInt16) throws {
    let child = childPath
    try #require(!child.isEmpty, "retrace-crash-child was not built beside the tests")
    var random = SeededRandom(seed: 2026)
    for round in 0..<10 {
      let path = temporaryDirectory() + "/crash-\(round).trace"
      let process = Process()
      process.executableURL = URL(fileURLWithPath: child)
      process.arguments = [path]
      process.environment = ProcessInfo.processInfo.environment.merging([
        "RETRACE_CRASH_CHILD_FORMAT": "\(format)"
      ]) { $1 }
      let pipe = Pipe()
      process.standardOutput = pipe
      let reports = Mutex<[(time: Double, count: Int)]>([])
      let flushes = Mutex(0)
      let reader = Thread {
        var buffer = Data()
        let handle = pipe.fileHandleForReading
        while true {
          let data = handle.availableData
          if data.isEmpty { break }
          let now = Date().timeIntervalSince1970
          buffer.append(data)
          while let newline = buffer.firstIndex(of: 10) {
            let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex...newline)
            if let count = Int(line) { reports.withLock { $0.append((now, count)) } }
            if line.hasPrefix("flushed "), let count = Int(line.dropFirst(8)) {
              flushes.withLock { $0 = count }
            }
          }
        }
      }
      try process.run()
      reader.start()
      // Kill while it records: after its first report (a sanitizer build on a loaded
      // machine can take seconds to start), at a random moment.
      let started = Date()
      while reports.withLock({ $0.isEmpty }), Date().timeIntervalSince(started) < 60 {
        Thread.sleep(forTimeInterval: 0.005)
      }
      Thread.sleep(forTimeInterval: Double.random(in: 0..<0.6, using: &random))
      let killedAt = Date().timeIntervalSince1970
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      Thread.sleep(forTimeInterval: 0.05)
      let safe = reports.withLock { $0.last { $0.time < killedAt - Self.window }?.count } ?? 0
      // Killed before the writer wrote the header (a slow start on a busy machine): an
      // empty file, which is only right if no send had returned in time to be kept.
      let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
      if size == 0 {
        #expect(
          safe == 0,
          "round \(round): the trace is empty, but \(safe) actions were reported more than 10 ms before the kill"
        )
        continue
      }
      let trace = try TraceReader(path: path)
      #expect(trace.formatVersion == format)
      #expect(trace.integrity.status != .clean)
      let actions = try TraceSession(trace, domain: bankingDomain).actions().map(\.action)
      #expect(
        actions.count >= safe,
        "round \(round): \(actions.count) actions recovered, \(safe) reported more than 10 ms before the kill"
      )
      let flushed = flushes.withLock { $0 }
      #expect(
        actions.count >= flushed,
        "round \(round): \(actions.count) actions recovered, \(flushed) flushed")
      // A clean prefix: the same session replayed from its seed.
      let expected = bankingDomain.generate(count: actions.count, seed: 11).actions
      #expect(
        actions == expected, "round \(round): the recovered actions are not a prefix of the session"
      )
    }
  }
}
