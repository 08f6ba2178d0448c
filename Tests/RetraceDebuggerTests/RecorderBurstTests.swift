import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceLog
import RetraceTestSupport
import Testing

/// An app that sends a burst of actions, goes idle, then crashes: the burst is covered by a
/// hash once the writer has caught up, not left unchecked for want of a later send.
@Suite struct RecorderBurstTests {
  @Test @MainActor func aBurstThenIdleIsHashedBeforeACrash() async throws {
    let path = try Fixtures.temporaryDirectory().appendingPathComponent("burst.trace").path
    let recorder = try TraceRecorder(path: path, domain: counterDomain)
    let store = Store(
      initialState: counterDomain.initialState,
      reducer: Reduce { counterDomain.reduce(into: &$0, action: $1) })
    store.attach(recorder)
    for index in 0..<200 { store.send(index % 3 == 2 ? .decrement : .increment) }
    // Idle, as an app between two taps: the main actor is free. The trace is read as a
    // crash would leave it (the recorder is still open: its journal holds the tail).
    var report: VerificationReport?
    for _ in 0..<100 {
      try await Task.sleep(for: .milliseconds(50))
      let session = try DomainTrace(TraceReader(path: path), domain: counterDomain).session()
      guard session.actions.count == 200 else { continue }
      report = Debugger(domain: counterDomain, session: session).verify()
      if report?.uncoveredActions == 0 { break }
    }
    #expect(report?.isVerified == true, "\(String(describing: report))")
    #expect(report?.uncoveredActions == 0)
    try recorder.close()
  }
}
