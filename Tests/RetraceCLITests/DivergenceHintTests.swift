import Foundation
import Retrace
import RetraceExamples
import RetraceLog
import Testing

/// A divergence among several actions says how to name the exact one.
@Suite struct DivergenceHintTests {
  @Test func aDivergenceAmongSeveralActionsSaysHowToNarrowItDown() throws {
    let workspace = try Workspace()
    // Recorded by the fee-charging reducer under the name banking, replayed by today's
    // banking: diverged, with no recording reducer to replay beside it.
    var configuration = TraceRecorderConfiguration()
    configuration.reproducibleCheckpoints = true
    let recorder = try TraceRecorder<BankingState, BankingAction>(
      path: workspace.path("s.trace"), domain: "banking", startTime: 1_763_771_000,
      configuration: configuration)
    var state = bankingWithFeesDomain.initialState
    recorder.attached(sequence: 0, state: state)
    var random = SeededRandom(seed: 4)
    for step in 0..<300 {
      let action = bankingWithFeesDomain.workload!.next(state, step, &random)
      _ = bankingWithFeesDomain.reduce(into: &state, action: action)
      recorder.record(
        Transition(
          sequence: UInt64(step + 1), time: 1_763_771_000 + Double(step), action: action,
          stateBefore: nil, stateAfter: state))
    }
    recorder.checkpoint(state: state, after: 300)
    try recorder.close()
    #expect(
      try workspace.run("generate banking-with-fees --actions 300 --seed 4 -o fees.trace").exitCode
        == 0)
    let replay = try workspace.run("replay s.trace --verify")
    #expect(replay.exitCode == 1, "\(replay)")
    #expect(replay.stdout.hasPrefix("DIVERGED s.trace: the checkpoint at 16 does not match"))
    #expect(
      replay.stdout.contains(
        "to name the exact action among them: replay it side by side with the reducer that recorded it (--as NAME"
      ), "\(replay.stdout)")
    #expect(replay.stdout.contains("retrace bisect s.trace --invariant NAME"))
    // A debugger under another name (an app's own, RetraceCommand.main(domains:)) says its
    // own name in the commands it suggests.
    let renamed = workspace.directory.appendingPathComponent("cart-debugger")
    try FileManager.default.createSymbolicLink(
      at: renamed, withDestinationURL: try #require(CLI.binary))
    let own = try CLI.run(renamed, ["replay", "s.trace", "--verify"], in: workspace.directory)
    #expect(own.exitCode == 1, "\(own)")
    #expect(own.stdout.contains("registered in the same cart-debugger)"), "\(own.stdout)")
    #expect(own.stdout.contains("(cart-debugger bisect s.trace --invariant NAME)"), "\(own.stdout)")
    #expect(!own.stdout.contains("retrace"), "\(own.stdout)")
    let json = try workspace.run("replay s.trace --verify --json").json()
    let divergence = try #require(json["divergence"] as? [String: Any])
    #expect((divergence["hint"] as? String)?.hasPrefix("to name the exact action") == true)
    // Side by side, the exact action is named: no hint.
    let named = try workspace.run("replay fees.trace --verify --as banking")
    #expect(named.exitCode == 1)
    #expect(named.stdout.contains("the states first differ after action"))
    #expect(!named.stdout.contains("to name the exact action"))
    // The diffs show the domain's display formats, as `retrace diff` does.
    #expect(named.stdout.contains(" EUR)"), "\(named)")
  }
}
