import FlyingFox
import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceLog
import RetraceTestSupport
import Testing

@testable import RetraceStudio

@Suite struct StudioAPITests {
  @Test func theAPIRefusesARequestWithoutTheToken() async throws {
    let studio = try await StudioHarness.start(["banking-overdraft.trace"])
    defer { Task { await studio.stop() } }
    for placement in [StudioHarness.TokenPlacement.none, .wrong] {
      let response = try await studio.get("/api/sessions", token: placement)
      #expect(response.status == 401)
      #expect(try response.error()?.contains("token") == true)
    }
    #expect(try await studio.get("/api/sessions", token: .header).status == 200)
    #expect(try await studio.get("/api/sessions", token: .query).status == 200)
    // The page itself holds no data: it loads without the token, which its address carries.
    let page = try await studio.get("/", token: .none)
    #expect(page.status == 200)
    #expect(String(decoding: page.body, as: UTF8.self).contains("Retrace Studio"))
    #expect(
      page.headers[HTTPHeader("Content-Security-Policy")]?.contains("default-src 'self'") == true)
  }

  @Test func aRequestForAnotherHostIsRefused() async throws {
    let studio = try await StudioHarness.start(["banking-overdraft.trace"])
    defer { Task { await studio.stop() } }
    // DNS rebinding: the browser sends the attacker's name with the right address and port.
    for host in ["evil.example:\(studio.port)", "127.0.0.1", "127.0.0.1:1", ""] {
      let api = try await studio.get("/api/sessions", host: host)
      #expect(api.status == 403, "Host: \(host)")
      #expect(try api.error()?.contains("Host") == true)
      #expect(try await studio.get("/", token: .none, host: host).status == 403)
    }
    #expect(try await studio.get("/api/sessions", host: "localhost:\(studio.port)").status == 200)
  }

  @Test func sessionsAreListedWithTheirFacts() async throws {
    let studio = try await StudioHarness.start(["banking-overdraft.trace", "counter.trace"])
    defer { Task { await studio.stop() } }
    let sessions = try #require(try await studio.get("/api/sessions").json() as? [[String: Any]])
    #expect(sessions.map { $0["id"] as? String } == ["banking-overdraft", "counter"])
    #expect(sessions.map { $0["domain"] as? String } == ["banking", "counter"])
    #expect(sessions.map { $0["actions"] as? Int } == [2000, 300])
    #expect(
      (sessions[0]["file"] as? String)?.hasSuffix("traces/banking-overdraft.trace") == true)
    #expect((sessions[0]["integrity"] as? [String: Any])?["status"] as? String == "clean")
    let detail = try #require(
      try await studio.get("/api/sessions/banking-overdraft").json() as? [String: Any])
    let invariants = (detail["invariants"] as? [[String: Any]])?.compactMap {
      $0["name"] as? String
    }
    #expect(invariants?.contains("non-negative-balance") == true)
    #expect(detail["navigation"] as? Bool == false)
  }

  @Test func bisectFindsTheOverdraftAsTheEngineDoes() async throws {
    let studio = try await StudioHarness.start(["banking-overdraft.trace"])
    defer { Task { await studio.stop() } }
    let response = try await studio.get(
      "/api/sessions/banking-overdraft/bisect", ["invariant": "non-negative-balance"])
    let body = try #require(try response.json() as? [String: Any])
    let reader = try TraceReader(path: StudioHarness.trace("banking-overdraft.trace"))
    let session = try TraceSession(reader, domain: bankingDomain).session()
    let expected = try ReplayEngine(domain: bankingDomain, session: session)
      .bisect(invariant: "non-negative-balance")
    #expect(body["invariant"] as? String == "non-negative-balance")
    #expect((body["firstViolation"] as? NSNumber)?.uint64Value == expected.firstViolation)
    #expect((body["healedAt"] as? NSNumber)?.uint64Value == expected.healedAt)
    #expect(body["firstViolation"] as? Int == 1069)
    #expect(body["actions"] as? Int == 2000)
    let stretches = try #require(body["violations"] as? [[String: Any]])
    let expectedStretches = try ReplayEngine(domain: bankingDomain, session: session)
      .violations(invariant: "non-negative-balance")
    #expect(stretches.count == expectedStretches.count)
    #expect(stretches.first?["fails"] as? Int == 1069)
    #expect(stretches.first?["healedAt"] as? Int == 1128)
    #expect(
      stretches.map { ($0["fails"] as? NSNumber)?.uint64Value }
        == expectedStretches.map(\.fails))
  }

  @Test func theStateAtTheFirstFailureShowsTheBalanceGoingNegative() async throws {
    let studio = try await StudioHarness.start(["banking-overdraft.trace"])
    defer { Task { await studio.stop() } }
    let body = try #require(
      try await studio.get("/api/sessions/banking-overdraft/state", ["at": "1069"]).json()
        as? [String: Any])
    #expect(body["seq"] as? Int == 1069)
    let state = try #require(body["state"] as? [String: Any])
    let account = try #require((state["accounts"] as? [[String: Any]])?.first)
    #expect(account["balance"] as? Int == -1728)
    let changed = try #require(body["changed"] as? [[String: Any]])
    let balance = try #require(
      changed.first {
        ($0["path"] as? [Any]).map { "\($0)" } == "\(["accounts", 0, "balance"] as [Any])"
      })
    #expect(balance["kind"] as? String == "changed")
    #expect(balance["old"] as? Int == 971)
    let action = try #require(body["action"] as? [String: Any])
    #expect(action["case"] as? String == "addTransaction")

    let before = try #require(
      try await studio.get("/api/sessions/banking-overdraft/state", ["at": "1068"]).json()
        as? [String: Any])
    let accountBefore = ((before["state"] as? [String: Any])?["accounts"] as? [[String: Any]])?
      .first
    #expect(accountBefore?["balance"] as? Int == 971)

    let diff = try #require(
      try await studio.get("/api/sessions/banking-overdraft/diff", ["from": "1068", "to": "1069"])
        .json() as? [String: Any])
    #expect(diff["changed"] as? Bool == true)
    let text = try #require(diff["diff"] as? String)
    #expect(text.contains("971") && text.contains("-1728"))
    // With the domain's display formats, as `retrace diff` writes it.
    #expect(
      text.contains("balance: 971 (9.71 EUR)") && text.contains("-1728 (-17.28 EUR)"), "\(text)")
  }

  @Test func skippingAnActionReplaysTheSessionWithoutIt() async throws {
    let studio = try await StudioHarness.start(["banking-overdraft.trace"])
    defer { Task { await studio.stop() } }
    // Without the payment at 1069, the balance stays where it was.
    let body = try #require(
      try await studio.get("/api/sessions/banking-overdraft/state", ["at": "1069", "skip": "1069"])
        .json() as? [String: Any])
    #expect(body["seq"] as? Int == 1069)
    #expect(body["skipped"] as? [Int] == [1069])
    let account = try #require(
      ((body["state"] as? [String: Any])?["accounts"] as? [[String: Any]])?.first)
    #expect(account["balance"] as? Int == 971)
    // What differs from the recorded state there: the balance, recorded -1728.
    let changed = try #require(body["changed"] as? [[String: Any]])
    let balance = try #require(
      changed.first {
        ($0["path"] as? [Any]).map { "\($0)" } == "\(["accounts", 0, "balance"] as [Any])"
      })
    #expect(balance["old"] as? Int == -1728)
    // Skipping an action after the point, or none, leaves the recorded state.
    let later = try #require(
      try await studio.get("/api/sessions/banking-overdraft/state", ["at": "1068", "skip": "1069"])
        .json() as? [String: Any])
    #expect((later["changed"] as? [Any])?.isEmpty == true)
    // A list that is not one is refused, and the server goes on.
    let bad = try await studio.get(
      "/api/sessions/banking-overdraft/state", ["at": "1069", "skip": "1,x"])
    #expect(bad.status == 400)
  }

  @Test func actionsHaveTheShapeOfLogJSON() async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let body = try #require(
      try await studio.get("/api/sessions/counter/actions", ["from": "185", "to": "188"]).json()
        as? [String: Any])
    let actions = try #require(body["actions"] as? [[String: Any]])
    // What `retrace log --json` prints for the same range, line by line.
    let reader = try TraceReader(path: StudioHarness.trace("counter.trace"))
    let session = try TraceSession(reader, domain: counterDomain).session()
    let writer = JSONLines.ActionWriter<CounterAction>()
    let lines = try session.actions[184...187].map {
      try JSONSerialization.jsonObject(with: Data(try writer.line(for: $0).utf8)) as! [String: Any]
    }
    #expect(actions.count == 4)
    for (served, logged) in zip(actions, lines) {
      var served = served
      #expect(served.removeValue(forKey: "case") as? String != nil)
      // The counter's actions are a second apart.
      #expect(served.removeValue(forKey: "sincePrevious") as? Double == 1)
      let label = served.removeValue(forKey: "label") as? String
      #expect(label == "increment" || label == "decrement", "\(String(describing: label))")
      #expect(NSDictionary(dictionary: served) == NSDictionary(dictionary: logged))
    }
    let typed = try #require(
      try await studio.get("/api/sessions/counter/actions", ["type": "decrement", "limit": "5"])
        .json() as? [String: Any])
    let decrements = try #require(typed["actions"] as? [[String: Any]])
    #expect(decrements.count == 5)
    #expect(decrements.allSatisfy { $0["case"] as? String == "decrement" })
    #expect(typed["next"] is NSNumber)
  }

  /// `text` keeps the actions whose label or JSON contains it, ignoring case, with the case
  /// filter too, in pages that go on from `next`.
  @Test func actionsAreFilteredByText() async throws {
    let studio = try await StudioHarness.start(["banking-overdraft.trace"])
    defer { Task { await studio.stop() } }
    let path = "/api/sessions/banking-overdraft/actions"
    let all = try #require(
      try await studio.get(path, ["limit": "10000"]).json() as? [String: Any])
    let actions = try #require(all["actions"] as? [[String: Any]])
    func text(_ action: [String: Any]) throws -> String {
      let json = try JSONSerialization.data(withJSONObject: action["action"] ?? NSNull())
      return ((action["label"] as? String ?? "") + String(decoding: json, as: UTF8.self))
        .lowercased()
    }
    for needle in ["Spotify", "rent", "-1199"] {
      let expected = try actions.filter { try text($0).contains(needle.lowercased()) }
        .compactMap { $0["seq"] as? Int }
      #expect(!expected.isEmpty, "\(needle)")
      let served = try #require(
        try await studio.get(path, ["text": needle, "limit": "10000"]).json() as? [String: Any])
      #expect((served["actions"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == expected)
      #expect(served["next"] is NSNull)
    }
    // A page of three, then the rest from `next`, with the case filter.
    let rent = try actions.filter {
      let mentions = try text($0).contains("rent")
      return $0["case"] as? String == "addTransaction" && mentions
    }.compactMap { $0["seq"] as? Int }
    let first = try #require(
      try await studio.get(path, ["text": "RENT", "type": "addTransaction", "limit": "3"]).json()
        as? [String: Any])
    #expect(
      (first["actions"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int }
        == Array(rent.prefix(3)))
    let next = try #require(first["next"] as? Int)
    #expect(next == rent[3])
    let rest = try #require(
      try await studio.get(
        path, ["text": "rent", "type": "addTransaction", "from": "\(next)", "limit": "10000"]
      ).json() as? [String: Any])
    #expect(
      (rest["actions"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int }
        == Array(rent.dropFirst(3)))
    #expect(rest["from"] as? Int == next)
    let none = try #require(
      try await studio.get(path, ["text": "no action says this"]).json() as? [String: Any])
    #expect((none["actions"] as? [Any])?.isEmpty == true)
  }

  /// Each action listed says how long after the session's previous one it came, the first of
  /// a page too (`null` for the session's first).
  @Test func actionsSayTheTimeSinceThePreviousAction() async throws {
    let studio = try await StudioHarness.start(["banking-overdraft.trace"])
    defer { Task { await studio.stop() } }
    let path = "/api/sessions/banking-overdraft/actions"
    let start = try #require(
      try await studio.get(path, ["from": "1", "to": "3"]).json() as? [String: Any])
    let first = try #require(start["actions"] as? [[String: Any]])
    #expect(first.map { $0["seq"] as? Int } == [1, 2, 3])
    #expect(first[0]["sincePrevious"] is NSNull)
    #expect(first.dropFirst().allSatisfy { $0["sincePrevious"] as? Double == 1 })
    #expect(start["from"] as? Int == 1)
    let page = try #require(
      try await studio.get(path, ["from": "1069", "to": "1070"]).json() as? [String: Any])
    #expect(page["from"] as? Int == 1069)
    let actions = try #require(page["actions"] as? [[String: Any]])
    #expect(actions.map { $0["seq"] as? Int } == [1069, 1070])
    #expect(actions.map { $0["sincePrevious"] as? Double } == [1, 1])
  }

  /// The swimlanes of a zoomed timeline count only the actions in its span.
  @Test func lanesCountTheActionsOfASpan() async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let lanes = try #require(
      try await studio.get(
        "/api/sessions/counter/lanes", ["buckets": "10", "from": "101", "to": "150"]
      ).json() as? [String: Any])
    let counts = (lanes["lanes"] as? [[String: Any]])?.flatMap { $0["counts"] as? [Int] ?? [] }
    #expect(counts?.reduce(0, +) == 50)
    #expect(lanes["from"] as? Int == 101)
    #expect(lanes["to"] as? Int == 150)
    let firsts = (lanes["lanes"] as? [[String: Any]])?.flatMap { $0["first"] as? [Any] ?? [] }
      .compactMap { $0 as? Int }
    #expect(firsts?.allSatisfy { (101...150).contains($0) } == true)
    let bad = try await studio.get(
      "/api/sessions/counter/lanes", ["from": "150", "to": "101"])
    #expect(bad.status == 400)
  }

  @Test func badRequestsGetAJSONErrorAndTheServerGoesOn() async throws {
    let studio = try await StudioHarness.start(["banking-overdraft.trace"])
    defer { Task { await studio.stop() } }
    let cases: [(String, [String: String], Int, String)] = [
      ("/api/sessions/nope", [:], 404, "no session 'nope'"),
      ("/api/sessions/nope/state", ["at": "1"], 404, "no session"),
      ("/api/sessions/banking-overdraft/state", ["at": "2001"], 404, "out of range 0...2000"),
      ("/api/sessions/banking-overdraft/state", ["at": "-1"], 400, "sequence number"),
      ("/api/sessions/banking-overdraft/state", ["at": "abc"], 400, "sequence number"),
      ("/api/sessions/banking-overdraft/diff", ["from": "0", "to": "99999"], 404, "out of range"),
      ("/api/sessions/banking-overdraft/bisect", ["invariant": "nope"], 404, "known: "),
      ("/api/sessions/banking-overdraft/bisect", [:], 400, "missing parameter 'invariant'"),
      ("/api/sessions/banking-overdraft/actions", ["type": "nope"], 404, "unknown action case"),
      ("/api/sessions/banking-overdraft/actions", ["limit": "0"], 400, "'limit'"),
      (
        "/api/sessions/banking-overdraft/actions", ["from": "200", "to": "100"], 404,
        "the range starts at 200, after its end 100"
      ),
      ("/api/sessions/banking-overdraft/flows", [:], 404, "no navigation flow"),
      ("/api/sessions/banking-overdraft/nope", [:], 404, "no such endpoint"),
      ("/api/nope", [:], 404, "no such endpoint"),
      ("/nope.js", [:], 404, "no such page"),
    ]
    for (path, query, status, message) in cases {
      let response = try await studio.get(path, query)
      #expect(response.status == status, "\(path) \(query)")
      #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
      let error = try response.error() ?? ""
      #expect(error.contains(message), "\(path): \(error)")
    }
    #expect(try await studio.get("/api/sessions").status == 200)
    // Only GET: a HEAD would run the endpoint. Its 405 comes without a body, as HTTP says,
    // so the next answer on the connection is read from its first byte.
    let client = try await RequestLimitsTests.RawClient(port: studio.port)
    defer { client.close() }
    let host = "Host: 127.0.0.1:\(studio.port)\r\nAuthorization: Bearer \(StudioHarness.token)\r\n"
    try await client.send(
      "HEAD /api/sessions HTTP/1.1\r\n\(host)\r\n"
        + "GET /api/nope HTTP/1.1\r\n\(host)Connection: close\r\n\r\n")
    let (answers, _) = await client.readToEnd()
    let statuses = answers.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
    #expect(statuses == ["405", "404"], "\(answers)")
    #expect(answers.components(separatedBy: "{\"error\"").count == 2, "\(answers)")
    #expect(try await studio.get("/api/sessions").status == 200)
  }

  @Test func flowsExportShrinkBenchAndLanes() async throws {
    let studio = try await StudioHarness.start(["posts-session.trace", "counter.trace"])
    defer { Task { await studio.stop() } }
    let flows = try #require(
      try await studio.get("/api/sessions/posts-session/flows").json() as? [String: Any])
    let allowed = try #require(flows["allowed"] as? [String: Any])
    let observed = try #require(flows["observed"] as? [String: Any])
    #expect((allowed["nodes"] as? [String])?.isEmpty == false)
    #expect((observed["edges"] as? [[String: Any]])?.isEmpty == false)
    let state = try #require(
      try await studio.get("/api/sessions/posts-session/state", ["at": "10"]).json()
        as? [String: Any])
    #expect((state["screens"] as? [String: Any])?["visible"] is String)

    let export = try #require(
      try await studio.get("/api/sessions/counter/export", ["from": "10", "to": "20"]).json()
        as? String)
    let range = try JSONLines.readSession(from: Data(export.utf8), domain: counterDomain)
    #expect(range.startSequence == 9)
    #expect(range.actions.map(\.sequence) == Array(10...20))

    let shrunk = try #require(
      try await studio.get("/api/sessions/counter/shrink", ["invariant": "non-negative"]).json()
        as? [String: Any])
    #expect(shrunk["fails"] as? Bool == true)
    #expect((shrunk["swiftTest"] as? String)?.contains("@Test") == true)
    let minimal = try JSONLines.readSession(
      from: Data((shrunk["jsonl"] as? String ?? "").utf8), domain: counterDomain)
    #expect(minimal.actions.count == shrunk["actions"] as? Int)

    let bench = try #require(
      try await studio.get("/api/sessions/counter/bench", ["repeat": "1"]).json() as? [String: Any])
    #expect(bench["actions"] as? Int == 300)
    // The tests are a debug build, as `retrace bench --json` says of itself.
    #expect(bench["debugBuild"] as? Bool == true)
    #expect((bench["cases"] as? [[String: Any]])?.isEmpty == false)

    let lanes = try #require(
      try await studio.get("/api/sessions/counter/lanes", ["buckets": "10"]).json()
        as? [String: Any])
    let total = (lanes["lanes"] as? [[String: Any]])?.flatMap { $0["counts"] as? [Int] ?? [] }
      .reduce(0, +)
    #expect(total == 300)
  }
}

@Suite struct HostHeaderTests {
  @Test func aLoopbackAddressAcceptsOnlyItselfAndLocalhost() {
    let address = ListenAddress("127.0.0.1")!
    #expect(address.accepts(host: "127.0.0.1:7420", port: 7420))
    #expect(address.accepts(host: "LOCALHOST:7420", port: 7420))
    #expect(!address.accepts(host: "127.0.0.2:7420", port: 7420))
    #expect(!address.accepts(host: "rebind.example:7420", port: 7420))
    #expect(!address.accepts(host: "127.0.0.1:7421", port: 7420))
    let six = ListenAddress("::1")!
    #expect(six.accepts(host: "[::1]:7420", port: 7420))
    #expect(!six.accepts(host: "::1:7420", port: 7420))
  }

  /// On every interface, any address the machine is reached by is accepted, never a name.
  @Test func aWildcardAddressAcceptsAddressesButNoName() {
    let any = ListenAddress("0.0.0.0")!
    #expect(any.accepts(host: "192.168.1.20:7420", port: 7420))
    #expect(any.accepts(host: "0.0.0.0:7420", port: 7420))
    #expect(!any.accepts(host: "rebind.example:7420", port: 7420))
    #expect(!any.accepts(host: "192.168.1.20:80", port: 7420))
    #expect(ListenAddress("example.com") == nil)
    // `localhost` always names this machine, so it cannot be a rebinding page's name.
    #expect(any.accepts(host: "localhost:7420", port: 7420))
    #expect(ListenAddress("::")!.accepts(host: "localhost:7420", port: 7420))
  }

  /// An IPv6 address is compared in its canonical form, which is what a browser sends.
  @Test func anIPv6AddressIsComparedCanonically() {
    let long = ListenAddress("0:0:0:0:0:0:0:1")!
    #expect(long.isLoopback)
    #expect(long.urlHost == "[::1]")
    #expect(long.accepts(host: "[::1]:7420", port: 7420))
    #expect(long.accepts(host: "localhost:7420", port: 7420))
    #expect(ListenAddress("::0")!.isWildcard)
    #expect(ListenAddress("FE80::01")!.accepts(host: "[fe80::1]:7420", port: 7420))
  }
}

/// The swimlanes of a session whose times a hostile JSON Lines file chose.
@Suite struct LanesTests {
  @Test func aTimeFarFromTheOthersFallsInALaneWithoutOverflow() {
    var lanes = CaseTimeline(
      session: RecordedSession(
        domain: counterDomain, actions: [.increment, .increment, .decrement]))
    // Times within what a reader accepts, out of order: the span is a microsecond, and the
    // second action lies 8e18 spans beyond it.
    lanes.times = [0, 8e12, 0.000_001]
    #expect(lanes.answer(buckets: 200).lanes.count == 2)
  }
}

/// What a file session and the page answer beside the live ones.
extension StudioAPITests {
  /// A trace recorded from a live session the developer moved (its app's own trace) lists
  /// its time-travel jumps when opened as a file, as a live session does.
  @Test @MainActor func aFileSessionListsItsJumps() async throws {
    let directory = NSTemporaryDirectory() + "retrace-file-jumps-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let studio = try await StudioHarness.start(
      [], paths: [try Fixtures.recordMovedSession(in: directory)])
    defer { Task { await studio.stop() } }
    let detail = try #require(
      try await studio.get("/api/sessions/moved").json() as? [String: Any])
    let jumps = try #require(detail["jumps"] as? [[String: Any]], "\(detail)")
    #expect(jumps.count == 1)
    #expect(jumps.first?["after"] as? Int == 40)
    // The state after 40 is the jump's: its answer says so, as the changes are the jump's too.
    for (at, jumped) in [("40", true), ("39", false), ("41", false)] {
      let state = try #require(
        try await studio.get("/api/sessions/moved/state", ["at": at]).json() as? [String: Any])
      #expect(state["jumped"] as? Bool == jumped, "at \(at)")
    }
  }

  /// An action of a session with a time-travel jump can be skipped: the jump still sets the
  /// state it set, as in `debug`.
  @Test @MainActor func aSessionWithAJumpCanSkipAnAction() async throws {
    let directory = NSTemporaryDirectory() + "retrace-skip-jumps-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let studio = try await StudioHarness.start(
      [], paths: [try Fixtures.recordMovedSession(in: directory)])
    defer { Task { await studio.stop() } }
    let skipped = try await studio.get("/api/sessions/moved/state", ["at": "50", "skip": "45"])
    #expect(skipped.status == 200, "\(String(decoding: skipped.body, as: UTF8.self))")
    let body = try #require(try skipped.json() as? [String: Any])
    #expect(body["skipped"] as? [Int] == [45])
    // Before the jump, a skipped action changes nothing after it: the state is the recorded one.
    let before = try #require(
      try await studio.get("/api/sessions/moved/state", ["at": "50", "skip": "30"]).json()
        as? [String: Any])
    #expect(before["skipped"] as? [Int] == [30])
    #expect((before["changed"] as? [Any])?.isEmpty == true, "\(before)")
  }

  /// Without the page's files, `GET /` says what is wrong and how to fix it, in a page.
  @Test func aMissingPageIsExplained() async throws {
    let handler = StudioHandler(
      catalog: SessionCatalog(sessions: []), token: "t", page: PageResources(files: [:]),
      hub: LiveHub(
        catalog: SessionCatalog(sessions: []), registry: DomainRegistry([]), flows: [],
        recordDirectory: NSTemporaryDirectory()))
    handler.serve(ListenAddress("127.0.0.1")!, port: 7420)
    let response = try await handler.handleRequest(
      HTTPRequest(
        method: .GET, version: .http11, path: "/", query: [],
        headers: [.host: "127.0.0.1:7420"], body: HTTPBodySequence(data: Data())))
    #expect(response.statusCode.code == 500)
    #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
    let body = String(decoding: try await response.bodyData, as: UTF8.self)
    #expect(body.contains("Sources/RetraceStudio/Page"), "\(body)")
    #expect(body.contains("swift build"), "\(body)")
  }
}
