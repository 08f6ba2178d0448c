import FlyingFox
import FlyingSocks
import Foundation
import Retrace
import RetraceLiveProtocol
import Synchronization
import Testing

/// A stand-in for the Studio's live endpoint, served by FlyingFox on 127.0.0.1: it checks
/// the token, keeps every message a link sends, and sends the link what a test says.
final class TestStudio: Sendable {
  static let token = "live-test-token"

  private let server: HTTPServer
  private let task: Task<Void, any Error>
  private let state = Mutex(Received())

  private struct Received {
    var messages: [[String: CBORValue]] = []
    var connections = 0
    var outgoing: [AsyncStream<WSMessage>.Continuation] = []
  }

  /// Starts serving on `port` (a free one when 0).
  static func start(port: UInt16 = 0) async throws -> TestStudio {
    let server = HTTPServer(
      address: try .inet(ip4: "127.0.0.1", port: port), timeout: 60, logger: .disabled)
    let studio = TestStudio(server: server)
    await studio.serve()
    // Up to 60 s, as the Studio's own server waits: on two cores busy with the whole suite,
    // the listening task can wait for a thread longer than FlyingFox's 5 s default.
    try await server.waitUntilListening(timeout: 60)
    guard case .ip4(_, let bound) = await server.listeningAddress else {
      throw TestError("the test server did not listen on IPv4")
    }
    studio.boundPort.withLock { $0 = bound }
    return studio
  }

  private let boundPort = Mutex<UInt16>(0)

  private init(server: HTTPServer) {
    self.server = server
    self.task = Task { try await server.run() }
  }

  private func serve() async {
    let socket = WebSocketHTTPHandler(
      handler: MessageFrameWSHandler(handler: Handler(studio: self)))
    await server.appendRoute("GET /api/live") { request in
      guard request.headers[.authorization] == "Bearer \(Self.token)" else {
        return HTTPResponse(statusCode: .unauthorized)
      }
      return try await socket.handleRequest(request)
    }
  }

  /// The port served.
  var address: String { "http://127.0.0.1:\(boundPort.withLock { $0 })/?token=\(Self.token)" }
  var listeningPort: UInt16 { boundPort.withLock { $0 } }

  /// Stops serving and drops every connection.
  func stop() async {
    let outgoing = state.withLock { state in
      defer { state.outgoing = [] }
      return state.outgoing
    }
    for continuation in outgoing { continuation.finish() }
    await server.stop(timeout: 0)
    task.cancel()
  }

  private struct Handler: WSMessageHandler {
    let studio: TestStudio
    func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
      let (out, continuation) = AsyncStream<WSMessage>.makeStream()
      studio.state.withLock {
        $0.connections += 1
        $0.outgoing.append(continuation)
      }
      Task {
        for await message in client {
          if case .data(let data) = message { studio.received(Array(data)) }
        }
        continuation.finish()
      }
      return out
    }
  }

  /// Keeps a message the Studio's decoder takes (``AppMessage``) as a map of its fields,
  /// which the tests look into; one it refuses as a `type` that says why.
  private func received(_ bytes: [UInt8]) {
    do {
      _ = try AppMessage(decoding: Data(bytes))
    } catch {
      state.withLock { $0.messages.append(["type": .textString("refused: \(error)")]) }
      return
    }
    guard case .map(let pairs)? = try? CBORValue(decoding: bytes) else {
      state.withLock { $0.messages.append(["type": "not a CBOR map"]) }
      return
    }
    var message: [String: CBORValue] = [:]
    for pair in pairs {
      if case .textString(let key) = pair.key { message[key] = pair.value }
    }
    state.withLock { $0.messages.append(message) }
  }

  /// Every message received so far.
  var messages: [[String: CBORValue]] { state.withLock { $0.messages } }
  /// The number of WebSocket connections so far.
  var connections: Int { state.withLock { $0.connections } }

  /// Messages of `type`.
  func messages(ofType type: String) -> [[String: CBORValue]] {
    messages.filter { $0["type"] == .textString(type) }
  }

  /// Sends `message`, encoded as the Studio encodes it, to the newest connection.
  func send(_ message: StudioMessage) {
    send(bytes: message.encoded())
  }

  /// Sends `message` (a CBOR map, which may break the protocol) to the newest connection.
  func send(_ message: CBORValue) {
    send(bytes: message.encoded())
  }

  private func send(bytes: [UInt8]) {
    let continuation = state.withLock { $0.outgoing.last }
    continuation?.yield(.data(Data(bytes)))
  }

  /// The actions received in `actions` messages since the last `hello`: their sequence
  /// numbers and encodings, in order.
  func actionsSinceLastHello() -> [(UInt64, [UInt8])] {
    var result: [(UInt64, [UInt8])] = []
    for message in messages {
      switch message["type"] {
      case .textString("hello"): result = []
      case .textString("actions"):
        guard case .unsigned(let first) = message["first"],
          case .array(let actions) = message["actions"]
        else { continue }
        for (offset, action) in actions.enumerated() {
          if case .byteString(let bytes) = action { result.append((first + UInt64(offset), bytes)) }
        }
      default: continue
      }
    }
    return result
  }
}

struct TestError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Waits until `condition` holds, checking every few milliseconds; fails after `timeout`.
///
/// The timeout is long because a condition that holds returns at once, and while the whole
/// suite runs on two cores, other suites' synchronous work can hold both of Swift
/// concurrency's threads for half a minute, during which the stand-in Studio's sockets and
/// the link's tasks do not run (a CI run timed out here after 20 s).
func eventually(
  _ what: String, timeout: Duration = .seconds(90),
  isolation: isolated (any Actor)? = #isolation,
  _ condition: () throws -> Bool
) async throws {
  let end = ContinuousClock.now + timeout
  while try !condition() {
    guard ContinuousClock.now < end else { throw TestError("timed out waiting: \(what)") }
    try await Task.sleep(for: .milliseconds(5))
  }
}
