import FlyingFox
import Foundation
import Retrace
import RetraceCLI
import RetraceDebugger
import RetraceExamples
import RetraceLiveProtocol
import Synchronization
import Testing

@testable import RetraceStudio

/// What apps on the live link may cost the Studio: the memory a message takes to decode, the
/// number of connections, and the threads their messages are taken on.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LiveLoadTests {
  /// A message with the fields of a `hello` of the counter domain, and `extra` entries.
  static func hello(
    domain: String = "counter", _ extra: [CBORValue.Pair] = []
  ) throws -> [UInt8] {
    let state = try CBOREncoder(deterministic: true).encode(CounterState())
    return CBORValue.map(
      [
        .init(.textString("type"), .textString("hello")),
        .init(.textString("protocol"), .unsigned(1)),
        .init(.textString("domain"), .textString(domain)),
        .init(.textString("actionSchemaVersion"), .unsigned(1)),
        .init(.textString("sessionID"), .textString(UUID().uuidString)),
        .init(.textString("startTime"), .float(1_763_771_000)),
        .init(
          .textString("app"),
          .map([
            .init(.textString("name"), .textString("load")), .init(.unsigned(1), .unsigned(2)),
            .init(.textString("build"), .unsigned(3)),
          ])),
        .init(.textString("sequence"), .unsigned(0)),
        .init(.textString("state"), .byteString(state)),
      ] + extra
    ).encoded()
  }

  // MARK: - Decoding

  @Test func aHelloIsDecodedWithItsFieldsAndUnknownKeysSkipped() throws {
    let bytes = try Self.hello([
      .init(.textString("future"), .array([.map([.init(.textString("x"), .negative(4))])])),
      .init(.unsigned(7), .textString("a key that is not text")),
    ])
    guard case .hello(let hello) = try AppMessage(decoding: Data(bytes)) else {
      Issue.record("not a hello")
      return
    }
    #expect(hello.version == 1)
    #expect(hello.domain == "counter")
    #expect(hello.startTime == 1_763_771_000)
    #expect(hello.app == ["name": "load"])
    #expect(hello.dropped == 0)
    #expect(try CBORDecoder().decode(CounterState.self, from: Array(hello.state)) == CounterState())
  }

  @Test func anActionsMessageIsReadOneActionAtATime() throws {
    let sent: [CounterAction] = [.increment, .increment, .decrement, .reset]
    guard
      case .actions(let actions) = try AppMessage(
        decoding: Data(try LiveMemoryTests.actions(sent, first: 5)))
    else {
      Issue.record("not an actions message")
      return
    }
    #expect(actions.first == 5)
    #expect(actions.count == 4)
    var read: [(Int, Double, CounterAction)] = []
    try actions.forEach { index, time, bytes throws(LiveProtocolError) in
      do {
        read.append((index, time, try CBORDecoder().decode(CounterAction.self, from: bytes)))
      } catch {
        throw LiveProtocolError("\(error)")
      }
    }
    #expect(read.map(\.0) == [0, 1, 2, 3])
    #expect(read.map(\.1) == [0, 1, 2, 3].map { 1_763_771_000 + Double($0) })
    #expect(read.map(\.2) == sent)
  }

  @Test(arguments: [
    ([0xff], "a message that is not CBOR"),
    ([0xa0, 0x00], "a message that is not CBOR"),
    ([0x83, 0x01, 0x02, 0x03], "a message that is not a CBOR map"),
    ([0xa1, 0x61, 0x78, 0x01], "a message without a type"),
    (
      CBORValue.map([
        .init(.textString("type"), .textString("actions")),
        .init(.textString("first"), .unsigned(1)),
        .init(.textString("times"), .array([.float(1)])), .init(.textString("actions"), .array([])),
      ]).encoded(), "times and actions of the same length"
    ),
    (
      CBORValue.map([
        .init(.textString("type"), .textString("actions")),
        .init(.textString("first"), .unsigned(1)),
        .init(.textString("times"), .array([.textString("now")])),
        .init(.textString("actions"), .array([.byteString([0xa0])])),
      ]).encoded(), "a time that is not a number"
    ),
    (
      CBORValue.map([
        .init(.textString("type"), .textString("actions")),
        .init(.textString("first"), .unsigned(1)),
        .init(.textString("times"), .array([.float(1)])),
        .init(.textString("actions"), .array([.array([])])),
      ]).encoded(), "an action that is not a byte string"
    ),
    (
      CBORValue.map([
        .init(.textString("type"), .textString("checkpoint")),
        .init(.textString("sequence"), .textString("1")),
      ]).encoded(), "a checkpoint message needs 'sequence' (an unsigned integer)"
    ),
  ])
  func aMalformedMessageIsNamed(bytes: [UInt8], message: String) {
    do {
      _ = try AppMessage(decoding: Data(bytes))
      Issue.record("decoded")
    } catch {
      #expect(error.description.contains(message), "\(error.description)")
    }
  }

  /// The peak resident memory of this process, in bytes, since it was last reset.
  static func peakMemory() throws -> Int {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
    return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) << 10
  }

  /// A message of many small items takes a small multiple of its bytes to decode, not the
  /// some 25 times a tree of its items took: a 16 MiB message under an unknown key of a
  /// `hello` (one-byte items) raised the peak resident memory by 385 MB, and now by nearly
  /// nothing. The bound leaves room for what other tests running meanwhile allocate (the
  /// peak is the process's).
  @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/proc/self/clear_refs")))
  func aMessageOfManySmallItemsDecodesInLittleMemory() throws {
    let count = 16 << 20
    var junk = CBORWriter(capacity: count + 16)
    junk.writeArrayHeader(count: count)
    for _ in 0..<count { junk.write(0) }
    var bytes = try Self.hello()
    // The hello's map, one entry longer, with the junk under a key no version knows.
    bytes[0] += 1
    bytes += CBORValue.textString("junk").encoded()
    junk.withBytes { bytes += $0 }
    let message = Data(bytes)
    // "5" resets the peak resident memory (VmHWM) to the present one.
    try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let before = try Self.peakMemory()
    guard case .hello = try AppMessage(decoding: message) else {
      Issue.record("not a hello")
      return
    }
    let grown = try Self.peakMemory() - before
    #expect(grown < 6 * message.count, "\(grown >> 20) MiB to decode \(message.count >> 20) MiB")
  }

  // MARK: - Connections

  /// A Studio on a free port that serves at most `limit` live connections.
  static func studio(
    _ directory: String, limit: Int, domains: [any Domain] = Examples.domains
  ) async throws -> StudioHarness {
    let server = StudioServer(
      catalog: SessionCatalog(sessions: []), address: ListenAddress("127.0.0.1")!, port: 0,
      token: StudioHarness.token, recordDirectory: directory, registry: DomainRegistry(domains),
      flows: [], liveConnectionLimit: limit)
    let url = try await server.start()
    let port = try #require(URLComponents(string: url)?.port)
    return StudioHarness(server: server, port: UInt16(port))
  }

  /// Past the limit of live connections, an upgrade is refused with 503 and a message that
  /// names the option; once a connection ends, another is taken.
  @Test func connectionsPastTheLimitAreRefusedWith503() async throws {
    let directory = try LiveSessionTests.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let studio = try await Self.studio(directory, limit: 2)
    defer { Task { await studio.stop() } }
    let first = try await RawWebSocket.connect(port: studio.port, token: StudioHarness.token)
    let second = try await RawWebSocket.connect(port: studio.port, token: StudioHarness.token)
    defer { second.close() }
    // Both are being served once each has sent a message.
    try await first.send(try Self.hello())
    try await second.send(try Self.hello())
    for _ in 0..<600 where studio.server.catalog.sessions.count < 2 {
      try await Task.sleep(for: .milliseconds(50))
    }
    do {
      let third = try await RawWebSocket.connect(port: studio.port, token: StudioHarness.token)
      third.close()
      Issue.record("a third connection was taken")
    } catch {
      #expect("\(error)".contains("HTTP/1.1 503"), "\(error)")
    }
    let refused = try await studio.get("/api/live")
    #expect(refused.status == 503)
    #expect(try refused.error()?.contains("at most 2 live connections") == true)
    #expect(try refused.error()?.contains("--live-connection-limit") == true)
    first.close()
    var taken: RawWebSocket?
    for _ in 0..<600 where taken == nil {
      try await Task.sleep(for: .milliseconds(50))
      taken = try? await RawWebSocket.connect(port: studio.port, token: StudioHarness.token)
    }
    #expect(taken != nil)
    taken?.close()
  }

  /// Commands to an app that reads none of them were queued without limit (12,000
  /// dispatches of 60 KB: 800 MB): past ``LiveHub/unreadMessageLimit`` they are refused
  /// with 503.
  @Test func commandsToAnAppThatDoesNotReadAreRefused() async throws {
    let studio = try await StudioHarness.live()
    defer { studio.end() }
    let app = try await studio.connectApp("deaf")
    defer { app.close() }
    let actions = bankingDomain.generate(count: 2_000, seed: 5).actions
    try await app.send(try LiveMemoryTests.actions(actions, first: 1))
    _ = try await LiveMemoryTests.segment(in: studio) { $0.heldStates > 100 }
    let id = try #require(studio.server.catalog.sessions.first?.id)
    // Each jump carries the state after 2,000 banking actions (about 100 KB): they fill the
    // sockets' buffers, then the queue, and the app reads none of them.
    var statuses: [Int] = []
    for _ in 0..<1_000 {
      let answer = try await studio.get("/api/sessions/\(id)/jump", ["to": "2000"], method: .POST)
      statuses.append(answer.status)
      if answer.status != 200 { break }
    }
    #expect(statuses.last == 503, "\(Set(statuses)) after \(statuses.count)")
  }

  // MARK: - The session list

  /// Listing a connected segment reads what it counted, not its recording: the list shows
  /// every action as it comes, and asking for it writes nothing to the recording (reopening
  /// the recording for it added a checkpoint each time, and read every action).
  @Test func listingAConnectedSegmentLeavesItsRecordingAlone() async throws {
    let studio = try await StudioHarness.live()
    defer { studio.end() }
    let link = try await RawWebSocket.connect(port: studio.port, token: StudioHarness.token)
    try await link.send(try Self.hello())
    let segment = try await LiveMemoryTests.segment(in: studio) { _ in true }
    for round in 0..<12 {
      try await link.send(
        try LiveMemoryTests.actions([CounterAction.increment], first: UInt64(round + 1)))
      var listed: [String: Any] = [:]
      for _ in 0..<600 {
        listed = try #require(
          (try await studio.get("/api/sessions").json() as? [[String: Any]])?.first)
        if listed["actions"] as? Int == round + 1 { break }
        try await Task.sleep(for: .milliseconds(20))
      }
      #expect(listed["actions"] as? Int == round + 1)
      #expect(listed["lastSequence"] as? Int == round + 1)
      #expect(listed["firstSequence"] as? Int == 1)
      #expect(listed["connected"] as? Bool == true)
      #expect((listed["integrity"] as? [String: Any])?["status"] as? String == "unfinished")
      // Past the interval at which a recording may be reopened (250 ms).
      try await Task.sleep(for: .milliseconds(300))
    }
    link.close()
    _ = try await LiveMemoryTests.segment(in: studio) { !$0.isConnected }
    let summary = try SessionFile.open(segment.recordedTo, usingIndex: true, key: nil).summary(
      domain: nil)
    #expect(summary.actionCount == 12)
    // The checkpoints the recorder wrote itself and the one at the end, none per listing.
    #expect(summary.checkpoints < 6, "\(summary.checkpoints)")
    let ended = try #require(
      (try await studio.get("/api/sessions").json() as? [[String: Any]])?.first)
    #expect(ended["actions"] as? Int == 12)
    #expect(ended["connected"] as? Bool == false)
  }

  /// The actions the list shows are there to ask for at once: a request for one the
  /// recording opened last lacks reopens it, however recently it was opened.
  @Test func whatTheListShowsCanBeAskedForAtOnce() async throws {
    let studio = try await StudioHarness.live()
    defer { studio.end() }
    let link = try await RawWebSocket.connect(port: studio.port, token: StudioHarness.token)
    defer { link.close() }
    try await link.send(try Self.hello())
    let increments = Array(repeating: CounterAction.increment, count: 5)
    try await link.send(try LiveMemoryTests.actions(increments, first: 1))
    let segment = try await LiveMemoryTests.segment(in: studio) { $0.heldStates > 0 }
    let path = "/api/sessions/\(segment.id)"
    var state = try await studio.get("\(path)/state", ["at": "5"])
    for _ in 0..<600 where state.status != 200 {
      try await Task.sleep(for: .milliseconds(20))
      state = try await studio.get("\(path)/state", ["at": "5"])
    }
    // The recording is open with five actions; five more come, and the list shows them.
    try await link.send(try LiveMemoryTests.actions(increments, first: 6))
    for _ in 0..<600 {
      let listed = try await studio.get("/api/sessions").json() as? [[String: Any]]
      if listed?.first?["lastSequence"] as? Int == 10 { break }
      try await Task.sleep(for: .milliseconds(5))
    }
    let actions = try await studio.get("\(path)/actions", ["from": "1", "to": "10"])
    #expect(actions.status == 200, "\(String(decoding: actions.body, as: UTF8.self))")
    let at10 = try await studio.get("\(path)/state", ["at": "10"])
    #expect(at10.status == 200, "\(String(decoding: at10.body, as: UTF8.self))")
  }

  // MARK: - Threads

  /// Whether the probe domain's reducer ran in a Swift task (on the concurrency pool's
  /// threads), for each action it reduced.
  static let reducedInTask = Mutex<[Bool]>([])

  /// The counter domain as `probe`, whose reducer notes whether it runs in a task.
  static let probeDomain = DomainDefinition(
    name: "probe", summary: "The counter, noting where its reducer runs.",
    initialState: CounterState(),
    reducer: Reduce<CounterState, CounterAction> { state, action in
      let inTask = withUnsafeCurrentTask { $0 != nil }
      LiveLoadTests.reducedInTask.withLock { $0.append(inTask) }
      return CounterReducer().reduce(into: &state, action: action)
    }, actionCases: ["increment", "decrement", "reset"])

  /// An app's messages are taken on the Studio's live worker threads, not on the concurrency
  /// pool's, which answer the page: an app sending large states or many actions never keeps
  /// a request waiting for a thread.
  @Test func liveMessagesAreTakenOnTheLivePool() async throws {
    let studio = try await StudioHarness.live(domains: [Self.probeDomain])
    defer { studio.end() }
    let link = try await RawWebSocket.connect(port: studio.port, token: StudioHarness.token)
    defer { link.close() }
    try await link.send(try Self.hello(domain: "probe"))
    try await link.send(
      try LiveMemoryTests.actions(Array(repeating: CounterAction.increment, count: 100), first: 1))
    let segment = try await LiveMemoryTests.segment(in: studio) { $0.heldStates > 1 }
    #expect(segment.isConnected)
    // The Studio's worker threads run no task: every action was reduced outside one.
    let reduced = Self.reducedInTask.withLock { $0 }
    #expect(reduced.count == 100)
    #expect(!reduced.contains(true))
  }
}
