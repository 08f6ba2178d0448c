import Foundation
import Retrace
import RetraceDebugger
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
  static func session(at path: String, jump: Bool = true) throws -> [CounterState] {
    let recorder = try TraceRecorder(
      path: path, domain: counterDomain, sessionID: "jumps", startTime: 1_763_771_000)
    let store = Store(
      initialState: counterDomain.initialState, reducer: CounterReducer(),
      clock: .fixed(start: 1_763_771_000, interval: 1))
    store.attach(recorder)
    var states = [store.state]
    for step in 1...13 {
      store.send(.increment)
      if step == 10, jump {
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
    // Refused as shrink is: an operation the session does not allow (2), not an unknown
    // name or number (4); one line, naming the file and the first jump.
    let export = try workspace.run("export j.trace --format jsonl -o j.jsonl")
    #expect(export.exitCode == 2, "\(export)")
    #expect(
      export.stderr.hasPrefix("retrace: j.trace: sequence 10: JSON Lines cannot hold"),
      "\(export.stderr)")
    #expect(export.stderr.split(separator: "\n").count == 1)
    #expect(!FileManager.default.fileExists(atPath: workspace.path("j.jsonl")))
  }

  /// A change a jump made is never laid at the door of the action before it: `bisect` says
  /// the jump set the state where the invariant first fails, `diff` across it names it,
  /// and `log` shows it under the action it followed.
  @Test @MainActor func answersNameTheJumpThatSetTheState() throws {
    let workspace = try Workspace()
    _ = try Self.session(at: workspace.path("j.trace"))

    let bisect = try workspace.run("bisect j.trace --invariant non-negative --json").json()
    #expect(bisect["failsAtJump"] as? Bool == true)
    #expect(bisect["healsAtJump"] as? Bool == false)
    let text = try workspace.run("bisect j.trace --invariant non-negative --no-color")
    #expect(text.stdout.contains("(the time-travel jump after it set the state"), "\(text)")

    let diff = try workspace.run("diff j.trace --from 9 --to 11 --json").json()
    #expect(diff["jumpsAfter"] as? [Int] == [10])
    let diffText = try workspace.run("diff j.trace --from 9 --to 11 --no-color")
    #expect(diffText.stdout.contains("time-travel jumps after action 10 set the state"))
    let before = try workspace.run("diff j.trace --from 1 --to 9 --json").json()
    #expect(before["jumpsAfter"] as? [Int] == [])

    let log = try workspace.run("log j.trace --from 9 --to 11 --no-color")
    let lines = log.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 4, "\(log)")
    #expect(lines.count == 4 && lines[2].contains("↺ time-travel jump"), "\(log)")
    // `--json` stays one action per line.
    let json = try workspace.run("log j.trace --from 9 --to 11 --json")
    #expect(json.stdout.split(separator: "\n").count == 3)
  }

  /// A session whose last event is a jump, as when the developer moved the app and closed
  /// it: every action is covered, by the hash of the state before the jump.
  @Test @MainActor func aSessionEndingInAJumpIsVerifiedThroughTheJump() throws {
    let workspace = try Workspace()
    let recorder = try TraceRecorder(path: workspace.path("end.trace"), domain: counterDomain)
    let store = Store(initialState: counterDomain.initialState, reducer: CounterReducer())
    store.attach(recorder)
    for _ in 1...30 { store.send(.increment) }
    store.jump(to: CounterState(count: 3))
    try recorder.close()
    let json = try workspace.run("replay end.trace --verify --json").json()
    #expect(json["status"] as? String == "verified", "\(json)")
    #expect(json["uncoveredActions"] as? Int == 0)
    #expect(json["jumps"] as? Int == 1)
  }

  /// Actions before a jump that no hash covers are unchecked, even when a hash after the jump
  /// matches: it was replayed from the jump's state, not from theirs.
  @Test func actionsBeforeAJumpWithoutAHashAreUnverified() {
    var session = RecordedSession(
      domain: counterDomain, actions: Array(repeating: CounterAction.increment, count: 13))
    session.jumps = [Snapshot(sequence: 10, hash: 0, state: CounterState(count: -5))]
    session.checkpoints = [
      Checkpoint(sequence: 13, hash: (try? StateHash(of: CounterState(count: -2)))!.rawValue)
    ]
    let report = ReplayEngine(domain: counterDomain, session: session).verify()
    #expect(report.divergence == nil)
    #expect(report.checkpointsChecked == 1)
    #expect(report.uncoveredActions == 10)
    #expect(report.coveredThrough == 0)
    #expect(!report.isVerified)
  }

  /// Two sessions with the same actions, one of them moved by a jump, differ at the jump.
  @Test @MainActor func diffFindsAJumpInOneSessionOnly() throws {
    let workspace = try Workspace()
    _ = try Self.session(at: workspace.path("moved.trace"))
    _ = try Self.session(at: workspace.path("plain.trace"), jump: false)
    let diff = try workspace.run("diff moved.trace plain.trace --json")
    #expect(diff.exitCode == 1, "\(diff)")
    let json = try diff.json()
    #expect(json["firstDifference"] as? Int == 10)
    #expect(json["reason"] as? String == "jump")
    let same = try workspace.run("diff moved.trace moved.trace")
    #expect(same.exitCode == 0, "\(same)")
  }

  /// Hashes recorded by the engine at a jump's action are of the state before it, as a
  /// recorder's are, so the session they make verifies.
  @Test func checkpointsRecordedAtAJumpVerify() {
    var session = RecordedSession(
      domain: counterDomain, actions: Array(repeating: CounterAction.increment, count: 20))
    session.jumps = [Snapshot(sequence: 10, hash: 0, state: CounterState(count: -5))]
    let debugger = ReplayEngine(domain: counterDomain, session: session)
    let recorded = debugger.recordingCheckpoints(every: 5, snapshotEvery: 10)
    let report = ReplayEngine(domain: counterDomain, session: recorded).verify()
    #expect(report.divergence == nil, "\(String(describing: report.divergence))")
    #expect(report.isVerified)
    #expect(try! debugger.state(at: 20).count == 5)
  }
}
