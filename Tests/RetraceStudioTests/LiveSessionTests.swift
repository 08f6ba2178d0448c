import FlyingFox
import FlyingSocks
import Foundation
import Retrace
import RetraceCLI
import RetraceDebugger
import RetraceExamples
import RetraceLiveProtocol
import RetraceLog
import Testing

@testable import RetraceStudio

/// Live sessions end to end: `retrace-demo` (a store linked live with `LiveLink`) streams to a
/// Studio, which records, serves and moves it.
@Suite(.serialized)
struct LiveSessionTests {
  /// `retrace-demo`, built beside `retrace`.
  static let demoBinary: URL? = ServeCommandTests.binary.map {
    $0.deletingLastPathComponent().appendingPathComponent("retrace-demo")
  }

  /// A running `retrace-demo`, its stdout going to a file.
  final class Demo: Sendable {
    let process: Process
    let output: URL
    let errors: URL

    init(_ arguments: [String]) throws {
      let binary = try #require(LiveSessionTests.demoBinary, "retrace-demo is not built")
      output = FileManager.default.temporaryDirectory
        .appendingPathComponent("demo-\(UUID().uuidString).out")
      errors = output.appendingPathExtension("err")
      _ = FileManager.default.createFile(atPath: output.path, contents: nil)
      _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
      process = Process()
      process.executableURL = binary
      process.arguments = arguments
      process.standardOutput = try FileHandle(forWritingTo: output)
      process.standardError = try FileHandle(forWritingTo: errors)
      try process.run()
    }

    var lines: [String] {
      ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").map(
        String.init)
    }

    /// What the demo wrote to its standard error, for a failure's message.
    var errorText: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    deinit {
      if process.isRunning { process.terminate() }
      try? FileManager.default.removeItem(at: output)
      try? FileManager.default.removeItem(at: errors)
    }
  }

  /// A fresh directory to record in.
  static func directory() throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("retrace-live-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// A Studio on a free port serving no file, recording live sessions in `directory`.
  static func studio(_ directory: String, domains: [any Domain] = Examples.domains) async throws
    -> StudioHarness
  {
    let server = StudioServer(
      catalog: SessionCatalog(sessions: []), address: ListenAddress("127.0.0.1")!, port: 0,
      token: StudioHarness.token, recordDirectory: directory, registry: DomainRegistry(domains),
      flows: [])
    let url = try await server.start()
    let port = try #require(URLComponents(string: url)?.port)
    return StudioHarness(server: server, port: UInt16(port))
  }

  /// The address the demo is given.
  static func address(_ studio: StudioHarness) -> String {
    "http://127.0.0.1:\(studio.port)/?token=\(StudioHarness.token)"
  }

  /// The live sessions the Studio lists.
  static func liveSessions(_ studio: StudioHarness) async throws -> [[String: Any]] {
    let list = try await studio.get("/api/sessions").json() as? [[String: Any]] ?? []
    return list.filter { $0["live"] as? Bool == true }
  }

  /// Waits until `condition` holds, checking every 20 ms; fails after `timeout`, long for
  /// the reason `eventually` in RetraceLiveTests gives (other suites can hold Swift
  /// concurrency's two threads for half a minute on a 2-core machine).
  static func eventually(
    _ what: String, timeout: Duration = .seconds(90), detail: () -> String = { "" },
    _ condition: () async throws -> Bool
  ) async throws {
    let end = ContinuousClock.now + timeout
    while try await !condition() {
      guard ContinuousClock.now < end else {
        Issue.record("timed out waiting: \(what)\(detail())")
        throw CancellationError()
      }
      try await Task.sleep(for: .milliseconds(20))
    }
  }

  /// The state hash after `sequence` in the trace at `path`.
  static func hash(after sequence: UInt64, in path: String) throws -> String {
    let source = try SessionFile.open(path, key: nil).source(as: bankingDomain)
    return try StateHash(of: source.state(at: sequence)).description
  }

  @Test func aDemoIsRecordedServedAndMoved() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let studio = try await Self.studio(directory)
    let appTrace = directory + "/app.trace"
    // The demo stays connected until the Studio has sent no command for 30 s: room for the
    // requests and the two replays before the first jump on a machine whose cores the rest
    // of the suite shares (10 s was outrun).
    let demo = try Demo([
      "banking", "--live", Self.address(studio), "--rate", "0", "--actions", "1000",
      "--exit-after-idle", "30", "--seed", "7", "--trace", appTrace,
    ])
    var session: [String: Any] = [:]
    let detail = {
      "; the Studio lists \(session); the demo \(demo.process.isRunning ? "runs" : "exited")"
        + ", wrote \(demo.lines.suffix(5)) and \(demo.errorText.suffix(2_000))"
    }
    // A minute: the rest of the suite runs beside it on the same cores.
    try await Self.eventually("1,000 actions in the Studio", timeout: .seconds(60), detail: detail)
    {
      session = try await Self.liveSessions(studio).first ?? [:]
      return session["actions"] as? Int == 1_000
    }
    #expect(session["connected"] as? Bool == true)
    #expect(session["diverged"] as? Bool == false)
    #expect(session["domain"] as? String == "banking")
    let id = try #require(session["id"] as? String)
    let copy = try #require(session["recordedTo"] as? String)
    #expect(copy.hasPrefix(directory))

    // The whole API answers on the live session.
    let state = try await studio.get("/api/sessions/\(id)/state", ["at": "500"])
    #expect(state.status == 200)
    let actions = try await studio.get("/api/sessions/\(id)/actions", ["from": "990"])
    #expect((try actions.json() as? [String: Any])?["last"] as? Int == 1_000)

    // Bad commands.
    #expect(
      try await studio.get("/api/sessions/\(id)/jump", ["to": "abc"], method: .POST).status == 400)
    #expect(
      try await studio.get("/api/sessions/\(id)/jump", ["to": "5000"], method: .POST).status == 400)
    #expect(
      try await studio.get("/api/sessions/nope/jump", ["to": "1"], method: .POST).status == 404)
    #expect(
      try await studio.get("/api/sessions/\(id)/jump", ["to": "1"], token: .none, method: .POST)
        .status == 401)

    // Move the app to 500, then resume: the demo prints the hashes of the states it moved to.
    // (Taken before the jumps, which the recording keeps: the state after 1,000 and its
    // jumps is another.)
    let at500 = try Self.hash(after: 500, in: copy)
    let at1000 = try Self.hash(after: 1_000, in: copy)
    let jump = try await studio.get("/api/sessions/\(id)/jump", ["to": "500"], method: .POST)
    #expect(jump.status == 200)
    #expect((try jump.json() as? [String: Any])?["sent"] as? Bool == true)
    try await Self.eventually("the demo's jump") { demo.lines.contains { $0.hasPrefix("jumped") } }
    #expect(demo.lines.contains("jumped after 1000 to state \(at500)"), "\(demo.lines)")
    let resume = try await studio.get("/api/sessions/\(id)/jump", ["to": "last"], method: .POST)
    #expect((try resume.json() as? [String: Any])?["to"] as? Int == 1_000)
    try await Self.eventually("the demo's resume") {
      demo.lines.filter { $0.hasPrefix("jumped") }.count == 2
    }
    #expect(demo.lines.contains("jumped after 1000 to state \(at1000)"), "\(demo.lines)")

    // The demo exits; the segment is no longer connected, and a command is refused.
    try await Self.eventually("the demo's end", timeout: .seconds(60)) { !demo.process.isRunning }
    #expect(demo.process.terminationStatus == 0)
    try await Self.eventually("the segment disconnected") {
      try await Self.liveSessions(studio).first?["connected"] as? Bool == false
    }
    #expect(
      try await studio.get("/api/sessions/\(id)/jump", ["to": "1"], method: .POST).status == 409)
    await studio.stop()

    // The Studio's copy is the app's own trace, action for action, and verifies.
    let ours = try SessionFile.open(copy, key: nil).load(as: bankingDomain)
    let theirs = try SessionFile.open(appTrace, key: nil).load(as: bankingDomain)
    #expect(ours.actions.count == 1_000)
    #expect(ours.actions.count == theirs.actions.count)
    let encoder = CBOREncoder()
    for (mine, app) in zip(ours.actions, theirs.actions) {
      guard
        // Times are kept as offsets from each trace's start, which differ by the moments
        // the recorder and the link were attached: equal to well under a microsecond.
        mine.sequence == app.sequence, abs(mine.time - app.time) < 1e-6,
        try encoder.encode(mine.action) == encoder.encode(app.action)
      else {
        Issue.record(
          "action \(app.sequence) differs: \(mine.sequence) \(mine.time) \(mine.action), app \(app.sequence) \(app.time) \(app.action); starts \(ours.info.startTime) \(theirs.info.startTime)"
        )
        break
      }
    }
    // Both recorded the jumps, to the same states.
    #expect(!ours.jumps.isEmpty)
    #expect(ours.jumps.map(\.sequence) == theirs.jumps.map(\.sequence))
    #expect(ours.jumps.map(\.state) == theirs.jumps.map(\.state))
    let verify = try ServeCommandTests().run(["replay", copy, "--verify"])
    #expect(verify.status == 0, "\(verify.stderr)")
  }

  /// An action typed in the Studio is sent to the app, whose store reduces and records it:
  /// it comes back as the session's next action. The session lists where the app was moved
  /// and which action's state it shows.
  @Test func aDispatchedActionIsRecordedAndJumpsAreMarked() async throws {
    let studio = try await StudioHarness.live()
    defer { studio.end() }
    let demo = try Demo([
      "banking", "--live", Self.address(studio), "--rate", "0", "--actions", "200",
      "--exit-after-idle", "10", "--seed", "3",
    ])
    var session: [String: Any] = [:]
    try await Self.eventually("200 actions in the Studio") {
      session = try await Self.liveSessions(studio).first ?? [:]
      return session["actions"] as? Int == 200
    }
    let id = try #require(session["id"] as? String)
    #expect(session["commands"] as? [String] == ["dispatch", "jump"])
    #expect(session["appAt"] as? Int == 200)
    #expect((session["jumps"] as? [Any])?.isEmpty == true)

    // Action 1 as the actions endpoint shows it, sent back: it becomes action 201.
    func actionJSON(_ sequence: Int) async throws -> String {
      let page = try await studio.get(
        "/api/sessions/\(id)/actions", ["from": "\(sequence)", "to": "\(sequence)"])
      let rows = try #require((try page.json() as? [String: Any])?["actions"] as? [[String: Any]])
      let action = try #require(rows.first?["action"])
      return String(
        decoding: try JSONSerialization.data(withJSONObject: action, options: [.sortedKeys]),
        as: UTF8.self)
    }
    let sent = try await actionJSON(1)
    let dispatch = try await studio.get(
      "/api/sessions/\(id)/dispatch", method: .POST, body: Data(sent.utf8))
    #expect(dispatch.status == 200, "\(String(decoding: dispatch.body, as: UTF8.self))")
    #expect((try dispatch.json() as? [String: Any])?["sent"] as? Bool == true)
    try await Self.eventually("action 201") {
      try await Self.liveSessions(studio).first?["actions"] as? Int == 201
    }
    #expect(try await actionJSON(201) == sent)

    // Bad actions are refused with the problem, and nothing is sent.
    let notJSON = try await studio.get(
      "/api/sessions/\(id)/dispatch", method: .POST, body: Data("{\"deposit\"".utf8))
    #expect(notJSON.status == 400)
    #expect(try notJSON.error()?.hasPrefix("the action is not JSON") == true)
    let unknown = try await studio.get(
      "/api/sessions/\(id)/dispatch", method: .POST, body: Data("{\"fly\":{}}".utf8))
    #expect(unknown.status == 400)
    #expect(try unknown.error()?.hasPrefix("the action is not a banking action") == true)
    let empty = try await studio.get("/api/sessions/\(id)/dispatch", method: .POST)
    #expect(empty.status == 400)

    // Move the app to 100, then resume: each jump is listed, and where the app is.
    _ = try await studio.get("/api/sessions/\(id)/jump", ["to": "100"], method: .POST)
    try await Self.eventually("the jump listed") {
      session = try await Self.liveSessions(studio).first ?? [:]
      return (session["jumps"] as? [Any])?.count == 1
    }
    let jump = try #require((session["jumps"] as? [[String: Any]])?.first)
    #expect(jump["after"] as? Int == 201)
    #expect(jump["to"] as? Int == 100)
    #expect(session["appAt"] as? Int == 100)
    _ = try await studio.get("/api/sessions/\(id)/jump", ["to": "last"], method: .POST)
    try await Self.eventually("the resume listed") {
      session = try await Self.liveSessions(studio).first ?? [:]
      return (session["jumps"] as? [Any])?.count == 2
    }
    #expect((session["jumps"] as? [[String: Any]])?.last?["to"] as? Int == 201)
    #expect(session["appAt"] as? Int == 201)
    // An action after a jump: the app is at its last action again.
    _ = try await studio.get("/api/sessions/\(id)/jump", ["to": "50"], method: .POST)
    try await Self.eventually("the third jump") {
      (try await Self.liveSessions(studio).first?["jumps"] as? [Any])?.count == 3
    }
    _ = try await studio.get(
      "/api/sessions/\(id)/dispatch", method: .POST, body: Data(sent.utf8))
    try await Self.eventually("action 202") {
      session = try await Self.liveSessions(studio).first ?? [:]
      return session["actions"] as? Int == 202
    }
    #expect(session["appAt"] as? Int == 202)
    demo.process.terminate()
  }

  /// A `hello` without `commands` is an older link's: it takes `jump` only, and the Studio
  /// sends it no `dispatch`.
  @Test func anOlderAppsHelloTakesJumpOnly() throws {
    let hello = CBORValue.map([
      .init("type", "hello"), .init("protocol", .unsigned(1)), .init("domain", "counter"),
      .init("actionSchemaVersion", .unsigned(1)), .init("sessionID", "s"),
      .init("sequence", .unsigned(0)), .init("state", .byteString([0xa0])),
    ])
    guard case .hello(let old) = try AppMessage(decoding: Data(hello.encoded())) else {
      Issue.record("not a hello")
      return
    }
    #expect(old.commands == ["jump"])
    guard case .map(var pairs) = hello else { return }
    pairs.append(.init("commands", .array(["jump", "dispatch"])))
    guard case .hello(let new) = try AppMessage(decoding: Data(CBORValue.map(pairs).encoded()))
    else {
      Issue.record("not a hello")
      return
    }
    #expect(new.commands == ["jump", "dispatch"])
  }

  /// An app whose link predates `dispatch` (its hello lists no commands) is sent none: the
  /// command answers 409 and says why.
  @Test func anOlderAppIsSentNoDispatch() async throws {
    let studio = try await StudioHarness.live()
    defer { studio.end() }
    let link = try await studio.connectApp("old")
    defer { link.close() }
    var session: [String: Any] = [:]
    try await Self.eventually("the session listed") {
      session = try await Self.liveSessions(studio).first ?? [:]
      return session["connected"] as? Bool == true
    }
    #expect(session["commands"] as? [String] == ["jump"])
    let id = try #require(session["id"] as? String)
    let response = try await studio.get(
      "/api/sessions/\(id)/dispatch", method: .POST,
      body: Data("{\"moveAccount\":{\"from\":0,\"to\":1}}".utf8))
    #expect(response.status == 409)
    #expect(try response.error()?.contains("does not take dispatch") == true)
  }

  @Test func aFileSessionTakesNoDispatch() async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let response = try await studio.get(
      "/api/sessions/counter/dispatch", method: .POST, body: Data("{\"increment\":{}}".utf8))
    #expect(response.status == 404)
    #expect(try response.error()?.contains("not a live session") == true)
  }

  @Test func aFileSessionHasNoAppToMove() async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let response = try await studio.get("/api/sessions/counter/jump", ["to": "1"], method: .POST)
    #expect(response.status == 404)
    #expect(try response.error()?.contains("not a live session") == true)
    #expect(try await studio.get("/api/sessions/counter/state", method: .POST).status == 405)
    #expect(try await studio.get("/api/live", token: .none).status == 401)
  }

  @Test func anUnknownDomainIsRefusedWithAnError() async throws {
    let studio = try await StudioHarness.live(domains: [counterDomain])
    defer { studio.end() }
    let demo = try Demo(["banking", "--live", Self.address(studio), "--rate", "50"])
    try await Self.eventually("the refusal") {
      demo.lines.contains { $0.contains("does not know the domain 'banking'") }
    }
    #expect(demo.lines.contains { $0.contains("RetraceCommand.main(domains:)") })
    demo.process.terminate()
    #expect(try await Self.liveSessions(studio).isEmpty)
  }

  /// A Studio whose banking reducer is not the app's (it charges fees) finds the app's
  /// checkpoints differ from its replay: the session is diverged, never clean.
  @Test func aCheckpointThatDiffersMarksTheSessionDiverged() async throws {
    let studio = try await StudioHarness.live(domains: [LiveCheckTests.otherBanking])
    defer { studio.end() }
    let demo = try Demo([
      "banking", "--live", Self.address(studio), "--rate", "2000", "--actions", "1000",
      "--exit-after-idle", "2",
    ])
    var session: [String: Any] = [:]
    try await Self.eventually("a diverged session") {
      session = try await Self.liveSessions(studio).first ?? [:]
      return session["diverged"] as? Bool == true
    }
    let integrity = try #require(session["integrity"] as? [String: Any])
    #expect(integrity["status"] as? String == "diverged")
    #expect((integrity["problem"] as? String)?.contains("the Studio's replay") == true)
    demo.process.terminate()
  }

  /// Killing the Studio never stops the app; a Studio started again on the same port gets
  /// a new hello, and the stream goes on there.
  @Test func aRestartedStudioGetsTheStreamAgain() async throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let command = ServeCommandTests()
    let first = try command.serve(["serve", "--port", "0", "--record-dir", directory])
    let url = first.line.replacingOccurrences(of: "Retrace Studio: ", with: "")
    let port = try #require(URLComponents(string: url)?.port)
    let token = try #require(URLComponents(string: url)?.queryItems?.first?.value)
    let demo = try Demo([
      "banking", "--live", url, "--rate", "100", "--actions", "400", "--exit-after-idle", "0.2",
    ])
    let client = StudioHarness.client(port: UInt16(port), token: token)
    try await Self.eventually("50 actions in the first Studio") {
      let list = try? await client("/api/sessions")
      return (list?.first?["actions"] as? Int ?? 0) >= 50
    }
    kill(first.process.processIdentifier, SIGKILL)
    first.process.waitUntilExit()
    #expect(demo.process.isRunning)
    let second = try command.serve([
      "serve", "--port", "\(port)", "--token", token, "--record-dir", directory,
    ])
    defer { second.process.terminate() }
    var session: [String: Any] = [:]
    try await Self.eventually("the rest of the stream in the second Studio") {
      session = (try? await client("/api/sessions"))?.first ?? [:]
      return session["lastSequence"] as? Int == 400
    }
    #expect((session["firstSequence"] as? Int ?? 0) > 50)
    try await Self.eventually("the demo's end") { !demo.process.isRunning }
    #expect(demo.process.terminationStatus == 0)
    #expect(demo.lines.filter { $0.hasPrefix("connected") }.count >= 2, "\(demo.lines)")
  }
}

extension StudioHarness {
  /// A client of the Studio at `port` with `token`: the JSON array a GET answers.
  static func client(port: UInt16, token: String)
    -> @Sendable (String) async throws -> [[String:
    Any]]
  {
    { path in
      let request = HTTPRequest(
        method: .GET, version: .http11, path: path, query: [],
        headers: [.host: "127.0.0.1:\(port)", .authorization: "Bearer \(token)"],
        body: HTTPBodySequence(data: Data()))
      let response = try await StudioHarness.send(request, port: port)
      let body = try await response.bodyData
      return try JSONSerialization.jsonObject(with: body) as? [[String: Any]] ?? []
    }
  }
}
