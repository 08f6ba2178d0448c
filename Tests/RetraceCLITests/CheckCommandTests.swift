import Foundation
import Retrace
import RetraceExamples
import RetraceLog
import Testing

/// `retrace check`: what a user sees, the exit codes, the JSON, and the files it writes.
@Suite struct CheckCommandTests {
  @Test func theRegistrationBugIsFoundWrittenAndReadByTheOtherCommands() throws {
    let workspace = try Workspace()
    let found = try workspace.run("check registration --output bug.trace")
    #expect(found.exitCode == 1, "\(found)")
    #expect(
      found.stdout.hasPrefix(
        "registered-only-when-valid fails after 7 actions (a shortest sequence):"))
    #expect(found.stdout.contains(#"  7  {"registrationSucceeded":{"userID":"U-ada"}}"#))
    #expect(found.stdout.contains("wrote bug.trace"))
    // The counterexample is a trace like any other: it verifies, and bisect finds the
    // violation after its last action.
    let verify = try workspace.run("replay bug.trace --verify")
    #expect(verify.exitCode == 0, "\(verify)")
    let bisect = try workspace.run("bisect bug.trace --invariant registered-only-when-valid --json")
    #expect(bisect.exitCode == 1)
    #expect(try bisect.json()["firstViolation"] as? Int == 7)
    let info = try workspace.run("info bug.trace --json")
    #expect(info.exitCode == 0, "\(info)")
    #expect(try info.json()["domain"] as? String == "registration")
  }

  @Test func aBoundWithNoViolationPassesAndSaysWhatItSearched() throws {
    let workspace = try Workspace()
    let passed = try workspace.run("check registration --depth 6 -o none.trace")
    #expect(passed.exitCode == 0, "\(passed)")
    #expect(
      passed.stdout.hasPrefix(
        "no invariant fails (registered-only-when-valid) in every state within 6 actions"))
    #expect(passed.stdout.contains("(nothing to write to none.trace)"))
    #expect(!FileManager.default.fileExists(atPath: workspace.path("none.trace")))

    let json = try workspace.run("check registration --depth 6 --jobs 2 --json").json()
    #expect(json["result"] as? String == "passed")
    #expect(json["search"] as? String == "breadth-first")
    #expect(json["depth"] as? Int == 6)
    #expect(json["completeDepth"] as? Int == 6)
    #expect(json["exhausted"] as? Bool == false)
    #expect(json["jobs"] as? Int == 2)
    // Registration declares that its state hashes every field.
    #expect(json["fingerprint"] as? String == "hashable")
    #expect((json["distinctStates"] as? Int ?? 0) > 100)
    #expect(json["counterexample"] == nil)
    #expect(json["invariants"] as? [String] == ["registered-only-when-valid"])
  }

  @Test func aSearchStoppedByMaxStatesIsNoPass() throws {
    let workspace = try Workspace()
    let stopped = try workspace.run("check registration --max-states 50")
    #expect(stopped.exitCode == 1, "\(stopped)")
    #expect(stopped.stdout.contains("the rest was not searched"))
    let json = try workspace.run("check registration --max-states 50 --json").json()
    #expect(json["result"] as? String == "incomplete")
    #expect(json["distinctStates"] as? Int == 50)
  }

  @Test func reachFindsAPathOrSaysNone() throws {
    let workspace = try Workspace()
    let reached = try workspace.run("check registration --reach registered --json")
    #expect(reached.exitCode == 0, "\(reached)")
    let json = try reached.json()
    #expect(json["result"] as? String == "reached")
    #expect(json["predicate"] as? String == "registered")
    let counterexample = try #require(json["counterexample"] as? [String: Any])
    #expect((counterexample["actions"] as? [Any])?.count == 6)

    let shallow = try workspace.run("check registration --reach registered --depth 5")
    #expect(shallow.exitCode == 1)
    #expect(
      shallow.stdout.hasPrefix(
        "registered holds in no state: searched every state within 5 actions"))
  }

  @Test func randomWalksShrinkWhatTheyFind() throws {
    let workspace = try Workspace()
    let result = try workspace.run(
      "check registration --random --runs 200 --length 40 --seed 3 --json -o walk.trace")
    #expect(result.exitCode == 1, "\(result)")
    let json = try result.json()
    #expect(json["result"] as? String == "violated")
    #expect(json["search"] as? String == "random")
    #expect(json["distinctStates"] == nil)
    let counterexample = try #require(json["counterexample"] as? [String: Any])
    let actions = try #require(counterexample["actions"] as? [Any])
    #expect(actions.count <= counterexample["walkLength"] as? Int ?? 0)
    #expect(actions.count >= 7)
    #expect(try workspace.run("replay walk.trace --verify").exitCode == 0)
  }

  @Test func badRequestsExitWithTheUsualCodes() throws {
    let workspace = try Workspace()
    let cases: [(String, Int32, String)] = [
      ("check registration --invariant nope", 4, "has no invariant nope"),
      ("check registration --reach nope", 4, "has no predicate nope"),
      ("check nosuchdomain", 4, "nosuchdomain"),
      ("check banking-with-fees", 4, "declares no exploration actions"),
      ("check registration --depth -1", 2, "--depth"),
      ("check registration --max-states 0", 2, "--max-states"),
      ("check registration --jobs 0", 2, "--jobs"),
      ("check registration --random --reach registered", 2, "--random"),
      ("check registration --random --depth 3", 2, "--random"),
      (
        "check registration --reach registered --invariant registered-only-when-valid", 2, "--reach"
      ),
      ("check registration --emit-test --json", 2, "--emit-test"),
      ("check registration -o x.jsonl", 2, "JSON Lines"),
      ("check registration --runs 3", 2, "--random"),
      ("check registration --random --jobs 2", 2, "--random"),
      ("check registration --domain-expression x", 2, "--emit-test"),
      ("check settings", 1, "no invariants: nothing to check"),
      ("check registration --random --length 0", 1, "nothing to check"),
    ]
    for (command, code, message) in cases {
      let result = try workspace.run(command)
      #expect(result.exitCode == code, "\(command): \(result)")
      #expect(result.stderr.contains(message), "\(command): \(result)")
      #expect(!result.stderr.contains("Fatal error"), "\(command)")
    }
    // The domain expression goes into the emitted test as it is: one line, not empty.
    for (expression, message) in [
      ("counterDomain\n}\n@Test func injected() {}\nfunc f() {", "one line of printable ASCII"),
      ("", "is empty"),
    ] {
      for command in ["check", "shrink"] {
        let arguments =
          command == "check"
          ? ["check", "registration", "--emit-test", "--domain-expression", expression]
          : [
            "shrink", "x.trace", "--invariant", "i", "-o", "y.trace", "--emit-test",
            "--domain-expression", expression,
          ]
        let result = try CLI.run(arguments, in: workspace.directory)
        #expect(result.exitCode == 2, "\(arguments): \(result)")
        #expect(result.stderr.contains(message), "\(arguments): \(result)")
        #expect(result.stdout.isEmpty)
      }
    }
  }

  @Test func emitTestOnAPassPrintsNothingToStdout() throws {
    // stdout is redirected into a Swift file: a pass must leave it empty.
    let workspace = try Workspace()
    let result = try workspace.run("check registration --depth 6 --emit-test")
    #expect(result.exitCode == 0, "\(result)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("no invariant fails"))
  }

  @Test func theEmittedTestIsTheOneCompiledHere() throws {
    // EmittedCheckTest.swift holds this very output, so the build proves it compiles and
    // the run proves it passes; this test proves it is still what the tool prints.
    let workspace = try Workspace()
    let emitted = try workspace.run("check registration --emit-test")
    #expect(emitted.exitCode == 1)
    #expect(emitted.stderr.contains("registered-only-when-valid fails after 7 actions"))
    let golden = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("EmittedCheckTest.swift"),
      encoding: .utf8)
    let body = try #require(golden.range(of: "// Generated by")).lowerBound
    #expect(emitted.stdout == String(golden[body...]))
  }
}
