import Foundation
import RetraceTestSupport
import Testing

/// The package's root directory, from this file's path.
private let packageRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs one of the package's scripts with the built `retrace` as `RETRACE`, so that the
/// script does not build it again.
private func runScript(_ name: String, _ arguments: [String] = []) async throws -> CLIResult {
  let binary = try #require(CLI.binary, "no retrace executable found; build it with `swift build`")
  return try await CLI.runOnOwnThread(
    packageRoot.appendingPathComponent("scripts").appendingPathComponent(name), arguments,
    in: try Fixtures.temporaryDirectory(), environment: ["RETRACE": binary.path])
}

/// The sample traces in traces/: reproducible from their commands, verified by today's
/// reducers, and with the answers traces/README.md documents.
@Suite struct SampleTraceTests {
  @Test func theCommittedTracesMatchTheirCommandsVerifyAndHaveTheDocumentedAnswers() async throws {
    let result = try await runScript("dev/regenerate-traces", ["--check"])
    #expect(
      result.exitCode == 0,
      "a sample trace or its answers drifted; run scripts/dev/regenerate-traces, review git diff traces/, and commit the traces\n\(result)"
    )
  }

  @Test func theBundledTracesVerifyTogether() throws {
    let traces = packageRoot.appendingPathComponent("traces")
    let result = try CLI.run(
      ["replay", traces.path, "--verify", "--json"], in: try Fixtures.temporaryDirectory())
    #expect(result.exitCode == 0, "\(result)")
    let json = try result.json()
    #expect(json["verified"] as? Int == 11)
    #expect(json["diverged"] as? Int == 0)
  }

  @Test func generateWritesAnOlderActionSchemaThatReadsThroughTheUpcaster() throws {
    let workspace = try Workspace()
    let v1 = try workspace.run(
      "generate banking --actions 200 --seed 3 --action-schema 1 -o v1.trace")
    #expect(v1.exitCode == 0, "\(v1)")
    #expect(v1.stderr == "wrote 200 banking actions in action schema 1 to v1.trace\n")
    #expect(try workspace.run("info v1.trace --json").json()["actionSchemaVersion"] as? Int == 1)
    #expect(try workspace.run("replay v1.trace --verify").exitCode == 0)
    // Read through the upcaster, the session is the one generated in today's schema.
    #expect(try workspace.run("generate banking --actions 200 --seed 3 -o v2.trace").exitCode == 0)
    #expect(try workspace.run("diff v1.trace v2.trace").exitCode == 0)

    let unknown = try workspace.run("generate banking --actions 10 --action-schema 9 -o v9.trace")
    #expect(unknown.exitCode == 4)
    #expect(
      unknown.stderr
        == "retrace: v9.trace: domain banking cannot write action schema version 9 (its current version is 2)\n"
    )
    #expect(
      try workspace.run("generate counter --actions 10 --action-schema 0 -o c.trace").exitCode == 2)
    #expect(
      try workspace.run("generate banking --actions 10 --action-schema 1 -o c.jsonl").exitCode == 2)
  }

  @Test func replayAsAChangedReducerReportsTheDivergence() throws {
    let workspace = try Workspace()
    #expect(try workspace.run("generate banking --actions 1200 --seed 4 -o s.trace").exitCode == 0)
    #expect(try workspace.run("replay s.trace --verify --as banking").exitCode == 0)
    let changed = try workspace.run("replay s.trace --verify --as banking-with-fees")
    #expect(changed.exitCode == 1, "\(changed)")
    // The first checkpoint after the first payment, a few actions in.
    #expect(
      changed.stdout.hasPrefix(
        "DIVERGED s.trace (replayed as banking-with-fees): the checkpoint at 16 does not match"))
    let json = try workspace.run("replay s.trace --verify --as banking-with-fees --json").json()
    #expect(json["status"] as? String == "diverged")
    #expect(json["domain"] as? String == "banking-with-fees")
    #expect(try workspace.run("replay s.trace --verify --as bakery").exitCode == 4)
    // A domain of other types cannot stand in.
    let counter = try workspace.run("replay s.trace --verify --as counter")
    #expect(counter.exitCode == 4)
    #expect(
      counter.stderr
        == "retrace: s.trace: domain 'counter' cannot replay a trace of domain 'banking': their state or action types differ\n"
    )
  }
}

/// docs/TUTORIAL.md cannot drift from the code: every command in it is run.
@Suite struct TutorialTests {
  @Test func everyCommandOfTheTutorialDoesWhatItSays() async throws {
    let result = try await runScript("ci/check-tutorial")
    #expect(result.exitCode == 0, "\(result)")
  }
}
