import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// What the commands answer for a session with time-travel jumps (`Store.jump(to:)`): the
/// states the app showed, never a false "verified", and a clear refusal where a command
/// cannot take jumps into account.
@Suite struct JumpCLITests {
  /// A counter session: 10 increments, then a jump to a count of -5 (a state the app never
  /// reached by its actions), then 3 increments; returns the states the app showed.
  @MainActor
  static func session(at path: String) throws -> [CounterState] {
    let recorder = try TraceRecorder(
      path: path, domain: counterDomain, sessionID: "jumps", startTime: 1_763_771_000)
    let store = Store(
      initialState: counterDomain.initialState, reducer: CounterReducer(),
      clock: .fixed(start: 1_763_771_000, interval: 1))
    store.attach(recorder)
    var states = [store.state]
    for step in 1...13 {
      store.send(.increment)
      if step == 10 {
        var jumped = store.state
        jumped.count = -5
        store.jump(to: jumped)
      }
      states.append(store.state)
    }
    try recorder.close()
    return states
  }

  @Test @MainActor func commandsFollowJumps() throws {
    let workspace = try Workspace()
    let states = try Self.session(at: workspace.path("j.trace"))
    #expect(states[10].count == -5 && states[13].count == -2)

    let verified = try workspace.run("replay j.trace --verify --json")
    #expect(verified.exitCode == 0, "\(verified)")
    let json = try verified.json()
    #expect(json["status"] as? String == "verified")
    #expect(json["jumps"] as? Int == 1)
    let text = try workspace.run("replay j.trace --verify")
    #expect(text.stdout.hasPrefix("verified j.trace: 13 actions and 1 time-travel jump against "))

    let state = try workspace.run("state j.trace --at 12 --json").json()
    #expect("\(state)".contains("-3"), "\(state)")
    let info = try workspace.run("info j.trace --json").json()
    #expect(info["jumps"] as? Int == 1)

    // The jumped-to count fails the invariant after action 10, where the jump came.
    let bisect = try workspace.run("bisect j.trace --invariant non-negative --json")
    #expect(bisect.exitCode == 1, "\(bisect)")
    #expect(try bisect.json()["firstViolation"] as? Int == 10)

    // Shrinking replays actions alone, and JSON Lines hold no jumps: both refuse.
    let shrink = try workspace.run("shrink j.trace --invariant non-negative -o s.trace")
    #expect(shrink.exitCode == 2, "\(shrink)")
    #expect(shrink.stderr.contains("time-travel jump"))
    let export = try workspace.run("export j.trace --format jsonl -o j.jsonl")
    #expect(export.exitCode != 0, "\(export)")
    #expect(export.stderr.contains("JSON Lines cannot hold"))
    #expect(!FileManager.default.fileExists(atPath: workspace.path("j.jsonl")))
  }
}
