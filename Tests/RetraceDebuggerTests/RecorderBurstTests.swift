import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceLog
import RetraceTestSupport
import Testing

/// An app that sends actions, goes idle, then crashes: every action is covered by a hash
/// once the writer has caught up, not left unchecked for want of a later send; in the
/// clear and redacted, after a burst and after a few actions.
@Suite struct RecorderBurstTests {
  @Test(arguments: [(200, false), (200, true), (10, false), (10, true)])
  @MainActor func actionsThenIdleAreHashedBeforeACrash(count: Int, redacted: Bool) async throws {
    let path = try Fixtures.temporaryDirectory().appendingPathComponent("burst.trace").path
    var configuration = TraceRecorderConfiguration()
    if redacted {
      configuration.redactionKey = RedactionKey(bytes: Array(repeating: 3, count: 32))
    }
    let recorder = try TraceRecorder(
      path: path, domain: bankingDomain, configuration: configuration)
    let store = Store(
      initialState: bankingDomain.initialState,
      reducer: Reduce { bankingDomain.reduce(into: &$0, action: $1) })
    store.attach(recorder)
    let (actions, _) = bankingDomain.generate(count: count, seed: 8)
    for action in actions { store.send(action) }
    // Idle, as an app between two taps: the main actor is free. The trace is read as a
    // crash would leave it (the recorder is still open: its journal holds the tail).
    var report: VerificationReport?
    for _ in 0..<100 {
      try await Task.sleep(for: .milliseconds(50))
      let session = try TraceSession(TraceReader(path: path), domain: bankingDomain).session()
      guard session.actions.count == count else { continue }
      report = ReplayEngine(domain: bankingDomain, session: session).verify()
      if report?.uncoveredActions == 0 { break }
    }
    #expect(report?.isVerified == true, "\(String(describing: report))")
    #expect(report?.uncoveredActions == 0)
    try recorder.close()
  }
}
