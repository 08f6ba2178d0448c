import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

@testable import RetraceCLI

/// Domains as an app defines them: action cases derived from sample actions or checked at
/// startup, and a workload only when the app wants one.
@Suite struct DomainRegistryTests {
  enum Door: Codable, Sendable {
    case open(by: String)
    case close
    case lock(String)
  }

  static func doorDomain(actionCases: [String]? = nil, workload: Workload<Int, Door>? = nil)
    -> DomainDefinition<Int, Door>
  {
    let reducer = Reduce<Int, Door> { count, _ in
      count += 1
      return .none
    }
    if let actionCases {
      return DomainDefinition(
        name: "door", summary: "A door.", initialState: 0, reducer: reducer,
        actionCases: actionCases,
        workload: workload)
    }
    return DomainDefinition(
      name: "door", summary: "A door.", initialState: 0, reducer: reducer,
      sampleActions: [.open(by: "me"), .close, .lock("key"), .close], workload: workload)
  }

  @Test func sampleActionsGiveTheCaseNamesOnceEachInOrder() throws {
    #expect(Self.doorDomain().actionCases == ["open", "close", "lock"])
    try DomainRegistry([Self.doorDomain()]).check()
  }

  @Test func aHandWrittenListThatMissesACaseTheWorkloadMakesIsAnError() {
    let workload = Workload<Int, Door> { _, step, _ in step % 2 == 0 ? .close : .lock("k") }
    let domain = Self.doorDomain(actionCases: ["open", "close"], workload: workload)
    let error = #expect(throws: DebuggerError.self) { try DomainRegistry([domain]).check() }
    #expect(
      error?.message
        == "domain door: its workload makes action case 'lock', which its actionCases do not list (open, close)"
    )
    let twice = #expect(throws: DebuggerError.self) {
      try DomainRegistry([Self.doorDomain(actionCases: ["open", "open"])]).check()
    }
    #expect(twice?.message == "domain door lists action case 'open' twice")
    // The bundled domains pass.
    #expect(throws: Never.self) {
      try DomainRegistry(Examples.domains + [bankingWithFeesDomain]).check()
    }
  }

  @Test func aDomainWithoutAWorkloadCannotGenerateButWorksOtherwise() async throws {
    let directory = try Fixtures.temporaryDirectory()
    let path = directory.appendingPathComponent("d.trace").path
    let code = await RetraceCommand.run(
      name: "door-debugger", domains: [Self.doorDomain()],
      arguments: ["generate", "door", "--actions", "3", "-o", path])
    #expect(code == 4)
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(
      await RetraceCommand.run(
        name: "door-debugger", domains: [Self.doorDomain()], arguments: ["domains"]) == 0)
  }

  @Test func generatingWithoutAWorkloadNamesTheDomainNotTheOutputFile() async throws {
    let error = await CommandContext.$registry.withValue(DomainRegistry([Self.doorDomain()])) {
      () async -> (any Error)? in
      do {
        var command = try Generate.parse(["door", "--actions", "3", "-o", "door.trace"])
        try await command.run()
        return nil
      } catch {
        return error
      }
    }
    let debuggerError = try #require(error as? DebuggerError, "\(String(describing: error))")
    #expect(debuggerError.path == nil)
    #expect("\(debuggerError)" == "domain door has no workload, so it cannot generate sessions")
  }
}

/// A trace whose actions are not the named domain's says so in one line.
@Suite struct WrongDomainTests {
  @Test func anActionOfAnotherDomainNamesBothDomainsAndTheAction() throws {
    let workspace = try Workspace()
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent()
      .deletingLastPathComponent()
    let banking = Array(
      try Data(contentsOf: root.appendingPathComponent("traces/banking-v1.trace")))
    try Data(HostileTraceTests.renamingDomain(banking, to: "counter")).write(
      to: URL(fileURLWithPath: workspace.path("other.trace")))
    let result = try workspace.run("log other.trace")
    #expect(result.exitCode == 3)
    #expect(
      result.stderr
        == "retrace: other.trace: chunk 1, sequence 1: action 'addAccount' does not decode as CounterAction of domain 'counter' (the trace names domain 'counter', action schema 1): Invalid number of keys found, expected one.\n",
      "\(result)")
  }
}

/// `log` shows an action's associated values after its case name, unlabelled ones as
/// themselves.
@Suite struct LogPayloadTests {
  enum Form: Codable, Sendable {
    case setGender(String)
    case move(Int, Int)
    case rename(first: String)
    case submit
  }

  @Test func unlabelledValuesAreShownAsThemselves() throws {
    let writer = JSONLines.ActionWriter<Form>()
    #expect(try writer.payloadText(for: .setGender("M")) == #""M""#)
    #expect(try writer.payloadText(for: .move(1, 2)) == "[1,2]")
    #expect(try writer.payloadText(for: .rename(first: "Ada")) == #"{"first":"Ada"}"#)
    #expect(try writer.payloadText(for: .submit) == "")
    // --json stays what Swift's own JSONEncoder writes.
    #expect(try writer.json(for: .setGender("M")) == #"{"setGender":{"_0":"M"}}"#)
  }
}
