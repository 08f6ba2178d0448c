import FlyingSocks
import Foundation
import Retrace
import RetraceExamples
import RetraceLiveProtocol
import Synchronization
import Testing

@testable import RetraceLive

/// The link against a stand-in Studio: what it sends, what it does with commands, and that
/// `send` never waits for it.
@Suite(.serialized)
@MainActor
struct LiveLinkTests {
  /// Collects a link's events.
  final class Events: Sendable {
    let events = Mutex<[LiveLinkEvent]>([])
    var handler: @Sendable (LiveLinkEvent) -> Void {
      { [self] event in events.withLock { $0.append(event) } }
    }
    var all: [LiveLinkEvent] { events.withLock { $0 } }
  }

  static func bankingStore() -> Store<BankingState, BankingAction> {
    Store(initialState: bankingDomain.initialState, reducer: BankingReducer())
  }

  /// A stand-in Studio, and a `LiveLink` of `domain` attached to `store`, its events
  /// collected: what most tests here start with. The caller stops the Studio.
  static func linked<State, Action>(
    _ store: Store<State, Action>, domain: some Domain<State, Action>,
    app: [String: String] = [:], configuration: LiveLinkConfiguration = LiveLinkConfiguration()
  ) async throws -> (studio: TestStudio, link: LiveLink<State, Action>, events: Events) {
    let studio = try await TestStudio.start()
    let events = Events()
    do {
      let link = try LiveLink(
        domain: domain, studio: studio.address, app: app, configuration: configuration,
        onEvent: events.handler)
      store.attach(link)
      return (studio, link, events)
    } catch {
      await studio.stop()
      throw error
    }
  }

  @Test func actionsArriveInOrderAfterAHelloWithTheStoreState() async throws {
    let store = Self.bankingStore()
    let (actions, _) = bankingDomain.generate(count: 1_000, seed: 7)
    for action in actions.prefix(10) { store.send(action) }
    let stateAtAttach = store.state
    let (studio, link, _) = try await Self.linked(
      store, domain: bankingDomain, app: ["name": "tests"])
    defer { Task { await studio.stop() } }
    for action in actions.dropFirst(10) { store.send(action) }
    try await eventually("1,000 actions") { studio.actionsSinceLastHello().count == 990 }

    let hellos = studio.messages(ofType: "hello")
    try #require(hellos.count == 1)
    let hello = hellos[0]
    #expect(hello["protocol"] == .unsigned(1))
    #expect(hello["domain"] == .textString("banking"))
    #expect(hello["sequence"] == .unsigned(10))
    #expect(hello["sessionID"] == .textString(link.sessionID))
    #expect(hello["app"] == .map([.init("name", "tests")]))
    #expect(
      hello["state"] == .byteString(try CBOREncoder(deterministic: true).encode(stateAtAttach)))
    let received = studio.actionsSinceLastHello()
    #expect(received.map(\.0) == Array(11...1_000))
    for (offset, (_, bytes)) in received.enumerated() {
      #expect(bytes == (try CBOREncoder().encode(actions[10 + offset])))
    }
    try await eventually("counted") { link.sentActionCount == 990 }
    #expect(link.droppedActionCount == 0)
    guard case .connected = link.status else {
      Issue.record("status \(link.status)")
      return
    }
    // Checkpoints carry the hash of the state after their action.
    try await eventually("a checkpoint") { !studio.messages(ofType: "checkpoint").isEmpty }
    for checkpoint in studio.messages(ofType: "checkpoint") {
      guard case .unsigned(let sequence) = checkpoint["sequence"],
        case .unsigned(let hash) = checkpoint["hash"]
      else {
        Issue.record("checkpoint \(checkpoint)")
        continue
      }
      // Every 256 actions, and the last one once the link is idle.
      #expect(sequence % 256 == 0 || sequence == 1_000, "\(sequence)")
      var state = bankingDomain.initialState
      for action in actions.prefix(Int(sequence)) {
        _ = bankingDomain.reduce(into: &state, action: action)
      }
      #expect(hash == (try StateHash(of: state)).rawValue)
    }
    await link.close()
    #expect("\(link.status)" == "closed")
  }

  @Test func actionsWithoutAHandWrittenEncodingArriveToo() async throws {
    let store = Store(initialState: CounterState(), reducer: CounterReducer())
    let (studio, link, _) = try await Self.linked(store, domain: counterDomain)
    defer { Task { await studio.stop() } }
    let actions = (0..<500).map { CounterAction.allCases[$0 % 3] }
    for action in actions { store.send(action) }
    try await eventually("500 actions") { studio.actionsSinceLastHello().count == 500 }
    let decoded = try studio.actionsSinceLastHello().map {
      try CBORDecoder().decode(CounterAction.self, from: $0.1)
    }
    #expect(decoded == actions)
    await link.close()
  }

  /// A session shorter than the checkpoint interval is checked too: once the app stops
  /// acting, the link sends the hash of its state after its last action, and none for a
  /// state a jump set.
  @Test func anIdleLinkSendsACheckpointOfItsLastAction() async throws {
    let store = Self.bankingStore()
    let (studio, link, _) = try await Self.linked(store, domain: bankingDomain)
    defer { Task { await studio.stop() } }
    let actions = bankingDomain.generate(count: 201, seed: 11).actions
    for action in actions.prefix(200) { store.send(action) }
    let expected = try StateHash(of: store.state).rawValue
    try await eventually("a checkpoint of action 200") {
      studio.messages(ofType: "checkpoint").contains { $0["sequence"] == .unsigned(200) }
    }
    let checkpoints = studio.messages(ofType: "checkpoint")
    #expect(checkpoints.count == 1, "\(checkpoints)")
    #expect(checkpoints.last?["hash"] == .unsigned(expected))
    // A jump sets a state the Studio was sent whole: no checkpoint follows it.
    store.jump(to: bankingDomain.initialState)
    try await eventually("the jump") { !studio.messages(ofType: "jump").isEmpty }
    try await Task.sleep(for: .milliseconds(300))
    #expect(studio.messages(ofType: "checkpoint").count == 1)
    // Acting again after it: the new last action is checked in turn.
    store.send(actions[200])
    let after = try StateHash(of: store.state).rawValue
    try await eventually("a checkpoint of action 201") {
      studio.messages(ofType: "checkpoint").contains {
        $0["sequence"] == .unsigned(201) && $0["hash"] == .unsigned(after)
      }
    }
    await link.close()
  }

  /// With `checkpointInterval` 0 the link sends no checkpoint, idle or not.
  @Test func noIntervalSendsNoIdleCheckpoint() async throws {
    let store = Self.bankingStore()
    var configuration = LiveLinkConfiguration()
    configuration.checkpointInterval = 0
    let (studio, link, _) = try await Self.linked(
      store, domain: bankingDomain, configuration: configuration)
    defer { Task { await studio.stop() } }
    for action in bankingDomain.generate(count: 50, seed: 11).actions { store.send(action) }
    try await eventually("50 actions") { studio.actionsSinceLastHello().count == 50 }
    try await Task.sleep(for: .milliseconds(300))
    #expect(studio.messages(ofType: "checkpoint").isEmpty)
    await link.close()
  }

  @Test func aJumpFromTheStudioMovesTheStoreAndIsEchoed() async throws {
    let store = Self.bankingStore()
    let (studio, link, events) = try await Self.linked(store, domain: bankingDomain)
    defer { Task { await studio.stop() } }
    let (actions, _) = bankingDomain.generate(count: 600, seed: 3)
    var states: [BankingState] = []
    for action in actions {
      store.send(action)
      states.append(store.state)
    }
    try await eventually("600 actions") { studio.actionsSinceLastHello().count == 600 }
    // A state far larger than one WebSocket frame of the server (16 KiB): the link
    // reassembles the fragments.
    let target = states[499]
    let bytes = try CBOREncoder(deterministic: true).encode(target)
    #expect(bytes.count > 16 * 1024)
    studio.send(
      StudioMessage.jump(to: 500, state: bytes, hash: try StateHash(of: target).rawValue))
    try await eventually("the store moved") { store.state == target }
    #expect(store.sequence == 600)
    try await eventually("the jump echoed") { !studio.messages(ofType: "jump").isEmpty }
    let echo = studio.messages(ofType: "jump")[0]
    #expect(echo["sequence"] == .unsigned(600))
    #expect(echo["state"] == .byteString(bytes))
    try await eventually("the event") {
      events.all.contains {
        if case .jumped(600, let hash) = $0 { return hash == (try? StateHash(of: target)) }
        return false
      }
    }
    // The next action applies to the state jumped to, and streams on.
    store.send(actions[500])
    try await eventually("action 601") { studio.actionsSinceLastHello().last?.0 == 601 }
    await link.close()
  }

  @Test func aJumpWithAWrongHashIsRefusedAndTheStateLeftAlone() async throws {
    let store = Store(initialState: CounterState(), reducer: CounterReducer())
    let (studio, link, events) = try await Self.linked(store, domain: counterDomain)
    defer { Task { await studio.stop() } }
    for _ in 0..<5 { store.send(.increment) }
    try await eventually("5 actions") { studio.actionsSinceLastHello().count == 5 }
    let state = try CBOREncoder(deterministic: true).encode(CounterState(count: 42))
    studio.send(StudioMessage.jump(to: 2, state: state, hash: 12345))
    try await eventually("an error") { studio.messages(ofType: "error").count == 1 }
    // Nor a state that does not decode.
    studio.send(StudioMessage.jump(to: 2, state: [0xff], hash: 0))
    try await eventually("a second error") { studio.messages(ofType: "error").count == 2 }
    let errors = studio.messages(ofType: "error")
    guard case .textString(let message) = errors[0]["message"] else {
      Issue.record("no message in \(errors[0])")
      return
    }
    #expect(message.contains("hash"))
    #expect(store.state == CounterState(count: 5))
    #expect(studio.messages(ofType: "jump").isEmpty)
    #expect(events.all.filter { if case .refused = $0 { true } else { false } }.count == 2)
    // An unknown type is ignored.
    studio.send(StudioMessage.other("something-new"))
    store.send(.increment)
    try await eventually("action 6") { studio.actionsSinceLastHello().last?.0 == 6 }
    #expect(studio.messages(ofType: "error").count == 2)
    await link.close()
  }

  /// The Studio's `dispatch` sends an action to the store as if the user had: reduced,
  /// and streamed back like any other; one that does not decode is refused.
  @Test func aDispatchFromTheStudioIsSentToTheStore() async throws {
    let store = Store(initialState: CounterState(), reducer: CounterReducer())
    let (studio, link, _) = try await Self.linked(store, domain: counterDomain)
    defer { Task { await studio.stop() } }
    for _ in 0..<3 { store.send(.increment) }
    try await eventually("3 actions") { studio.actionsSinceLastHello().count == 3 }
    // The hello says the link takes dispatch.
    let hello = try #require(studio.messages(ofType: "hello").first)
    #expect(hello["commands"] == .array(["jump", "dispatch"]))
    let decrement = try CBOREncoder().encode(CounterAction.decrement)
    studio.send(StudioMessage.dispatch(action: decrement))
    try await eventually("the store reduced it") { store.state == CounterState(count: 2) }
    #expect(store.sequence == 4)
    try await eventually("action 4 streamed") { studio.actionsSinceLastHello().last?.0 == 4 }
    #expect(studio.actionsSinceLastHello().last?.1 == decrement)
    // An action that does not decode, and a dispatch without one.
    studio.send(StudioMessage.dispatch(action: [0xa0]))
    studio.send(.map([.init("type", "dispatch")]))
    try await eventually("two errors") { studio.messages(ofType: "error").count == 2 }
    guard case .textString(let message)? = studio.messages(ofType: "error")[0]["message"] else {
      Issue.record("no message")
      return
    }
    #expect(message.contains("dispatch refused: the action does not decode"), "\(message)")
    #expect(store.state == CounterState(count: 2))
    #expect(store.sequence == 4)
    await link.close()
  }

  @Test func aStudioThatGoesAwayNeverBlocksSendAndGetsANewHelloWhenBack() async throws {
    var studio = try await TestStudio.start()
    let port = studio.listeningPort
    let store = Self.bankingStore()
    var configuration = LiveLinkConfiguration()
    configuration.initialBackoff = .milliseconds(20)
    configuration.maximumBackoff = .milliseconds(100)
    configuration.maxQueuedActions = 1_000
    let link = try LiveLink(
      domain: bankingDomain, studio: studio.address, configuration: configuration)
    store.attach(link)
    let (actions, _) = bankingDomain.generate(count: 10_200, seed: 11)
    for action in actions.prefix(100) { store.send(action) }
    try await eventually("100 actions") { studio.actionsSinceLastHello().count == 100 }

    await studio.stop()
    let began = ContinuousClock.now
    for action in actions[100..<10_100] { store.send(action) }
    let elapsed = ContinuousClock.now - began
    // 10,000 sends with nobody to send to: each returns at once.
    #expect(elapsed < .seconds(5))
    try await eventually("the link noticed") {
      if case .connected = link.status { return false }
      return true
    }
    #expect(link.droppedActionCount > 0)

    studio = try await TestStudio.start(port: port)
    defer { Task { [studio] in await studio.stop() } }
    try await eventually("a new hello") { !studio.messages(ofType: "hello").isEmpty }
    let hello = studio.messages(ofType: "hello")[0]
    #expect(hello["sequence"] == .unsigned(10_100))
    #expect(hello["state"] == .byteString(try CBOREncoder(deterministic: true).encode(store.state)))
    #expect(hello["dropped"] == .unsigned(UInt64(link.droppedActionCount)))
    for action in actions[10_100...] { store.send(action) }
    try await eventually("the stream resumed") { studio.actionsSinceLastHello().count == 100 }
    #expect(studio.actionsSinceLastHello().map(\.0) == Array(10_101...10_200))
    try await eventually("every action sent or dropped") {
      link.sentActionCount + link.droppedActionCount == 10_200
    }
    await link.close()
  }

  @Test func aFullQueueDropsAndResynchronizes() async throws {
    let store = Store(initialState: CounterState(), reducer: CounterReducer())
    var configuration = LiveLinkConfiguration()
    configuration.maxQueuedActions = 8
    let (studio, link, events) = try await Self.linked(
      store, domain: counterDomain, configuration: configuration)
    defer { Task { await studio.stop() } }
    try await eventually("a hello") { studio.messages(ofType: "hello").count == 1 }
    // The main actor keeps the sender's resync waiting until the loop is done.
    for _ in 0..<1_000 { store.send(.increment) }
    #expect(link.droppedActionCount > 0)
    try await eventually("a second hello") { studio.messages(ofType: "hello").count == 2 }
    let hello = studio.messages(ofType: "hello")[1]
    #expect(hello["sequence"] == .unsigned(1_000))
    store.send(.increment)
    try await eventually("action 1,001") { studio.actionsSinceLastHello().last?.0 == 1_001 }
    try await eventually("every action sent or dropped") {
      link.sentActionCount + link.droppedActionCount == 1_001
    }
    #expect(events.all.contains { if case .resynchronized(1_000, _) = $0 { true } else { false } })
    await link.close()
  }

  @Test func aWrongTokenIsRefusedWith401() async throws {
    let studio = try await TestStudio.start()
    defer { Task { await studio.stop() } }
    let store = Store(initialState: CounterState(), reducer: CounterReducer())
    let link = try LiveLink(
      domain: counterDomain, studio: "ws://127.0.0.1:\(studio.listeningPort)/api/live",
      token: "wrong")
    store.attach(link)
    try await eventually("refused") {
      if case .disconnected(let error?) = link.status { return error.code == .handshakeRefused }
      return false
    }
    #expect("\(link.status)".contains("401"))
    await link.close()
  }

  @Test func aWrongSecWebSocketAcceptIsRefused() async throws {
    // A server that answers every upgrade with a 101 and a made-up accept value.
    let listener = try Socket(domain: AF_INET)
    try listener.setValue(true, for: .localAddressReuse)
    try listener.bind(to: .inet(ip4: "127.0.0.1", port: 0))
    try listener.listen()
    guard case .ip4(_, let port) = try listener.sockname() else { throw TestError("no port") }
    let pool = SocketPool.make()
    try await pool.prepare()
    let poolTask = Task { try await pool.run() }
    let server = try AsyncSocket(socket: listener, pool: pool)
    let serving = Task {
      while let client = try? await server.accept() {
        var request: [UInt8] = []
        while !request.suffix(4).elementsEqual([13, 10, 13, 10]) {
          guard let bytes = try? await client.read(atMost: 4096), !bytes.isEmpty else { break }
          request += bytes
        }
        let answer =
          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          + "Sec-WebSocket-Accept: bm90IHRoZSByaWdodCBhbnN3ZXI=\r\n\r\n"
        try? await client.write(Data(answer.utf8))
      }
    }
    defer {
      serving.cancel()
      try? server.close()
      poolTask.cancel()
    }
    let store = Store(initialState: CounterState(), reducer: CounterReducer())
    let link = try LiveLink(
      domain: counterDomain, studio: "http://127.0.0.1:\(port)/?token=t")
    store.attach(link)
    try await eventually("refused") {
      if case .disconnected(let error?) = link.status { return error.code == .handshakeRefused }
      return false
    }
    #expect("\(link.status)".contains("Sec-WebSocket-Accept"))
    #expect(link.sentActionCount == 0)
    await link.close()
  }

  @Test func theDetachedStoreClosesTheLink() async throws {
    let store = Store(initialState: CounterState(), reducer: CounterReducer())
    let (studio, link, _) = try await Self.linked(store, domain: counterDomain)
    defer { Task { await studio.stop() } }
    try await eventually("a hello") { studio.messages(ofType: "hello").count == 1 }
    store.detach(link)
    try await eventually("closed") { "\(link.status)" == "closed" }
  }
}

/// The parts that need no server: addresses, the handshake's accept value, frames.
struct LiveLinkPartsTests {
  // The addresses themselves: StudioEndpointTests, in RetraceLiveProtocolTests.
  @Test(arguments: [
    "127.0.0.1:7420", "https://127.0.0.1:7420/?token=a", "http://127.0.0.1:7420/",
    "http://127.0.0.1:7420/api/live?token=a", "ws://127.0.0.1:7420/?token=a",
    "http://127.0.0.1:0/?token=a", "http://127.0.0.1:99999/?token=a", "http://:80/?token=a",
    "http://user@127.0.0.1:7420/?token=a",
  ])
  func badAddressesAreRefused(_ address: String) {
    #expect(throws: LiveLinkError.self) {
      _ = try LiveLink(domain: counterDomain, studio: address)
    }
    do {
      _ = try LiveLink(domain: counterDomain, studio: address)
    } catch {
      #expect(error.code == .invalidAddress)
    }
  }

  @Test func hostNamesOtherThanLocalhostAreRefusedUpFront() {
    #expect(throws: LiveLinkError.self) {
      _ = try LiveLink(domain: counterDomain, studio: "http://studio.example:7420/?token=a")
    }
  }

  @Test func theHandshakeAcceptValueIsRFC6455s() {
    // RFC 6455's example.
    #expect(
      WebSocketClient.accept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
  }

  @Test(arguments: [0, 1, 7, 8, 9, 125, 126, 65_535, 65_536, 100_000])
  func framesAreMaskedAndUnmaskBack(_ length: Int) {
    var builder = FrameBuilder()
    let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    builder.bytes += payload
    let frame = Array(builder.finish(opcode: 0x2))
    #expect(frame[0] == 0x82)
    #expect(frame[1] & 0x80 != 0)
    var offset = 2
    var decodedLength = Int(frame[1] & 0x7f)
    if decodedLength == 126 {
      decodedLength = Int(frame[2]) << 8 | Int(frame[3])
      offset = 4
    } else if decodedLength == 127 {
      decodedLength = frame[2..<10].reduce(0) { $0 << 8 | Int($1) }
      offset = 10
    }
    #expect(decodedLength == length)
    let key = Array(frame[offset..<(offset + 4)])
    let unmasked = frame[(offset + 4)...].enumerated().map { $0.element ^ key[$0.offset & 3] }
    #expect(unmasked == payload)
  }
}
