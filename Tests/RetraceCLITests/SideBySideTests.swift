import Foundation
import Retrace
import RetraceCLI
import RetraceLog
import RetraceTestSupport
import Testing

/// A change whose effect is undone before the next hash passes the hashes; replayed side by
/// side with the recording's reducer (`--as`), every state is compared and it is found.
@Suite struct SideBySideTests {
  enum Tap: Codable, Sendable { case tap, reset }

  /// Counts taps until a reset; the changed reducer counts the third tap twice.
  static func domain(name: String, transientBug: Bool) -> DomainDefinition<Int, Tap> {
    DomainDefinition(
      name: name, summary: "Taps.", initialState: 0,
      reducer: Reduce<Int, Tap> { count, action in
        switch action {
        case .tap: count += transientBug && count == 2 ? 2 : 1
        case .reset: count = 0
        }
        return .none
      },
      sampleActions: [.tap, .reset])
  }

  @Test func aChangeUndoneBeforeTheNextHashIsFoundSideBySide() async throws {
    let directory = try Fixtures.temporaryDirectory()
    let path = directory.appendingPathComponent("taps.trace").path
    let recording = Self.domain(name: "taps", transientBug: false)
    let changed = Self.domain(name: "taps-changed", transientBug: true)
    var configuration = TraceRecorderConfiguration()
    configuration.reproducibleCheckpoints = true
    let recorder = try TraceRecorder(path: path, domain: recording, configuration: configuration)
    var state = 0
    recorder.attached(sequence: 0, state: state)
    // After action 3 the changed reducer counts 4 where the recording's counted 3; the
    // reset at 4 makes both 0 again, long before the hash at 16.
    let actions: [Tap] = [.tap, .tap, .tap, .reset] + Array(repeating: .reset, count: 16)
    for (index, action) in actions.enumerated() {
      _ = recording.reduce(into: &state, action: action)
      recorder.record(
        Transition(
          sequence: UInt64(index + 1), time: Double(index), action: action, stateBefore: nil,
          stateAfter: state))
    }
    recorder.checkpoint(state: state, after: UInt64(actions.count))
    try recorder.close()
    let domains: [any Domain] = [recording, changed]
    // The hashes alone: the changed reducer, under the trace's name, reproduces every one.
    #expect(
      await RetraceCommand.run(
        name: "taps", domains: [Self.domain(name: "taps", transientBug: true)],
        arguments: ["replay", path, "--verify"]) == 0)
    // Side by side with the recording's reducer: diverged, at action 3.
    #expect(
      await RetraceCommand.run(
        name: "taps", domains: domains,
        arguments: ["replay", path, "--verify", "--as", "taps-changed"]) == 1)
    // The recording's reducer against itself: verified.
    #expect(
      await RetraceCommand.run(
        name: "taps", domains: domains, arguments: ["replay", path, "--verify", "--as", "taps"])
        == 0)
  }
}
