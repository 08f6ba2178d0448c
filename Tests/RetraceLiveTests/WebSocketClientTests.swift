import FlyingSocks
import Foundation
import Retrace
import RetraceExamples
import RetraceLiveProtocol
import Testing

@testable import RetraceLive

/// The link's WebSocket client against a hand-rolled server that sends what FlyingFox does
/// not: a ping, a message fragmented around a ping, a close.
@Suite(.serialized)
@MainActor
struct WebSocketClientTests {
  /// A server that accepts one connection, completes the handshake, then runs `script`.
  final class RawServer: Sendable {
    let port: UInt16
    private let task: Task<Void, Never>
    private let pool: Task<Void, any Error>
    private let listener: AsyncSocket

    init(_ script: @escaping @Sendable (AsyncSocket) async throws -> Void) async throws {
      let socket = try Socket(domain: AF_INET)
      try socket.setValue(true, for: .localAddressReuse)
      try socket.bind(to: .inet(ip4: "127.0.0.1", port: 0))
      try socket.listen()
      guard case .ip4(_, let port) = try socket.sockname() else { throw TestError("no port") }
      self.port = port
      let pool = SocketPool.make()
      try await pool.prepare()
      self.pool = Task { try await pool.run() }
      let listener = try AsyncSocket(socket: socket, pool: pool)
      self.listener = listener
      task = Task {
        guard let client = try? await listener.accept() else { return }
        var request: [UInt8] = []
        while !request.suffix(4).elementsEqual([13, 10, 13, 10]) {
          guard let bytes = try? await client.read(atMost: 4096), !bytes.isEmpty else { return }
          request += bytes
        }
        let text = String(decoding: request, as: UTF8.self)
        let key =
          text.split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key:") }
          .map {
            String($0.dropFirst("Sec-WebSocket-Key:".count)).trimmingCharacters(in: .whitespaces)
          }
          ?? ""
        let answer =
          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          + "Sec-WebSocket-Accept: \(WebSocketClient.accept(forKey: key))\r\n\r\n"
        try? await client.write(Data(answer.utf8))
        try? await script(client)
      }
    }

    func stop() {
      task.cancel()
      try? listener.close()
      pool.cancel()
    }
  }

  @Test func pingsAreAnsweredAndFragmentsReassembledAroundThem() async throws {
    let state = try CBOREncoder(deterministic: true).encode(CounterState(count: 9))
    let jump = StudioMessage.jump(
      to: 1, state: state, hash: try StateHash(of: CounterState(count: 9)).rawValue
    ).encoded()
    let pong = AsyncStream<[UInt8]>.makeStream()
    let server = try await RawServer { client in
      // The hello first.
      let (opcode, _) = try await readClientFrame(client)
      #expect(opcode == 0x2)
      try await client.write(serverFrame(0x9, [1, 2, 3]))
      // The jump in three fragments, a ping between the first two.
      let third = jump.count / 3
      try await client.write(serverFrame(0x2, fin: false, Array(jump[..<third])))
      try await client.write(serverFrame(0x9, [4]))
      try await client.write(serverFrame(0x0, fin: false, Array(jump[third..<(2 * third)])))
      try await client.write(serverFrame(0x0, Array(jump[(2 * third)...])))
      while true {
        let (opcode, payload) = try await readClientFrame(client)
        if opcode == 0xA { pong.continuation.yield(payload) }
      }
    }
    defer { server.stop() }
    let store = Store(initialState: CounterState(), reducer: CounterReducer())
    let link = try LiveLink(
      domain: counterDomain, studio: "http://127.0.0.1:\(server.port)/?token=t")
    store.attach(link)
    var pongs: [[UInt8]] = []
    for await payload in pong.stream {
      pongs.append(payload)
      if pongs.count == 2 { break }
    }
    #expect(pongs == [[1, 2, 3], [4]])
    try await eventually("the jump") { store.state == CounterState(count: 9) }
    await link.close()
  }

  @Test func aMaskedServerFrameBreaksTheConnection() async throws {
    let server = try await RawServer { client in
      _ = try await readClientFrame(client)
      try await client.write(Data([0x82, 0x81, 0, 0, 0, 0, 0]))
      try await Task.sleep(for: .seconds(30))
    }
    defer { server.stop() }
    let store = Store(initialState: CounterState(), reducer: CounterReducer())
    var configuration = LiveLinkConfiguration()
    configuration.initialBackoff = .seconds(5)
    configuration.maximumBackoff = .seconds(5)
    let link = try LiveLink(
      domain: counterDomain, studio: "http://127.0.0.1:\(server.port)/?token=t",
      configuration: configuration)
    store.attach(link)
    try await eventually("refused") {
      if case .disconnected(let error?) = link.status { return error.code == .protocolViolation }
      return false
    }
    #expect("\(link.status)".contains("masked"))
    await link.close()
  }
}

/// An unmasked server frame.
func serverFrame(_ opcode: UInt8, fin: Bool = true, _ payload: [UInt8]) -> Data {
  var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
  if payload.count < 126 {
    bytes.append(UInt8(payload.count))
  } else {
    bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
  }
  return Data(bytes + payload)
}

/// Reads one client frame: its opcode and unmasked payload.
func readClientFrame(_ socket: AsyncSocket) async throws -> (UInt8, [UInt8]) {
  let head = try await socket.read(bytes: 2)
  #expect(head[1] & 0x80 != 0, "a client frame must be masked")
  var length = Int(head[1] & 0x7f)
  if length == 126 {
    length = try await socket.read(bytes: 2).reduce(0) { $0 << 8 | Int($1) }
  } else if length == 127 {
    length = try await socket.read(bytes: 8).reduce(0) { $0 << 8 | Int($1) }
  }
  let key = try await socket.read(bytes: 4)
  let payload = try await socket.read(bytes: length).enumerated().map {
    $0.element ^ key[$0.offset & 3]
  }
  return (head[0] & 0x0f, payload)
}
