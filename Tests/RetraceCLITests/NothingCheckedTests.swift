import Foundation
import Testing

/// A check that had no action to check has not passed: `bisect`, `replay --verify` and
/// `verify` of a session without actions say that nothing was checked and exit 1.
@Suite struct NothingCheckedTests {
  /// A JSON Lines session of the counter domain with no actions: its header alone.
  static let emptySession =
    #"{"format":"retrace-jsonl","version":1,"domain":"counter","actionSchemaVersion":1,"sessionID":"empty","startTime":1763771000,"producer":"Retrace 0.1.0","firstSequence":0}"#
    + "\n"

  @Test func bisectOfNoActionsIsNotAPass() throws {
    let workspace = try Workspace()
    try workspace.write(Self.emptySession, to: "empty.jsonl")
    let text = try workspace.run("bisect empty.jsonl --invariant non-negative")
    #expect(text.exitCode == 1, "\(text)")
    #expect(text.stdout.contains("nothing was checked"), "\(text)")
    #expect(!text.stdout.contains("holds after every one"), "\(text)")
    let json = try workspace.run("bisect empty.jsonl --invariant non-negative --json")
    #expect(json.exitCode == 1)
    let object = try json.json()
    #expect(object["nothingChecked"] as? Bool == true)
    #expect(object["firstViolation"] is NSNull)
    #expect(object["actions"] as? Int == 0)
    // Nor does `shrink` claim the invariant held after every action.
    let shrink = try workspace.run("shrink empty.jsonl --invariant non-negative -o s.jsonl")
    #expect(shrink.exitCode == 1, "\(shrink)")
    #expect(shrink.stderr.contains("the session holds no actions; nothing to shrink"), "\(shrink)")
  }

  @Test func verifyingNoActionsIsNotAPass() throws {
    let workspace = try Workspace()
    try workspace.write(Self.emptySession, to: "empty.jsonl")
    let replay = try workspace.run("replay empty.jsonl --verify")
    #expect(replay.exitCode == 1, "\(replay)")
    #expect(replay.stdout.contains("nothing was checked"), "\(replay)")
    let json = try workspace.run("replay empty.jsonl --verify --json").json()
    #expect(json["status"] as? String == "unverified")
    #expect(json["nothingChecked"] as? Bool == true)

    let verify = try workspace.run("verify empty.jsonl")
    #expect(verify.exitCode == 1, "\(verify)")
    #expect(verify.stdout.contains("nothing was checked"), "\(verify)")
    let verifyJSON = try workspace.run("verify empty.jsonl --json").json()
    #expect(verifyJSON["nothingChecked"] as? Bool == true)
  }

  @Test func aSessionWithActionsIsCheckedAsBefore() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 30 --seed 2 -o c.jsonl")
    let json = try workspace.run("bisect c.jsonl --invariant non-negative --json").json()
    #expect(json["nothingChecked"] as? Bool == false)
    #expect(try workspace.run("verify c.jsonl --json").json()["nothingChecked"] as? Bool == false)
    // JSON Lines hold no hashes, of the starting state either: none is said to match.
    let replay = try workspace.run("replay c.jsonl --verify")
    #expect(replay.exitCode == 1)
    #expect(
      replay.stdout.contains("(JSON Lines hold no state hashes); no action before them was checked")
    )
    #expect(!replay.stdout.contains("matched its hash"), "\(replay)")
  }
}
