import FlyingSocks
import Foundation
import Retrace
import RetraceExamples

/// A WebSocket client that writes what a test tells it to, byte for byte: a hostile app on
/// the live link (`GET /api/live`).
struct RawWebSocket {
  let socket: AsyncSocket

  /// Connects to the Studio on `port` of 127.0.0.1 and upgrades with `token`.
  ///
  /// - Throws: When the Studio does not answer `101`.
  static func connect(port: UInt16, token: String) async throws -> RawWebSocket {
    let socket = try await AsyncSocket.connected(
      to: try sockaddr_in.inet(ip4: "127.0.0.1", port: port), timeout: 30)
    let request =
      "GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\n"
      + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
      + "Sec-WebSocket-Version: 13\r\nAuthorization: Bearer \(token)\r\n\r\n"
    try await socket.write(Data(request.utf8))
    var head: [UInt8] = []
    while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
      head.append(try await socket.read())
    }
    let status = String(decoding: head, as: UTF8.self)
    guard status.hasPrefix("HTTP/1.1 101") else {
      throw SocketError.failed(type: "upgrade", errno: 0, message: status)
    }
    return RawWebSocket(socket: socket)
  }

  /// A frame's header from the client: FIN, `opcode`, masked, `length` (not the payload's
  /// own length: a test may announce more than it sends).
  static func header(opcode: UInt8, fin: Bool = true, length: UInt64) -> [UInt8] {
    var header: [UInt8] = [(fin ? 0x80 : 0) | opcode]
    if length < 126 {
      header.append(0x80 | UInt8(length))
    } else if length <= 0xffff {
      header += [0x80 | 126, UInt8(length >> 8), UInt8(length & 0xff)]
    } else {
      header.append(0x80 | 127)
      for shift in stride(from: 56, through: 0, by: -8) {
        header.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
      }
    }
    return header + [0, 0, 0, 0]  // a mask of zeros leaves the payload as it is
  }

  /// Sends one binary frame holding `payload`.
  func send(_ payload: [UInt8], opcode: UInt8 = 0x2, fin: Bool = true) async throws {
    try await socket.write(
      Data(Self.header(opcode: opcode, fin: fin, length: UInt64(payload.count)) + payload))
  }

  /// Reads the next frame from the Studio: its opcode and payload; `nil` when the connection
  /// ended.
  func receive() async throws -> (opcode: UInt8, payload: [UInt8])? {
    do {
      let first = try await socket.read()
      var length = UInt64(try await socket.read() & 0x7f)
      if length == 126 {
        length = try await socket.read(bytes: 2).reduce(0) { $0 << 8 | UInt64($1) }
      } else if length == 127 {
        length = try await socket.read(bytes: 8).reduce(0) { $0 << 8 | UInt64($1) }
      }
      return (first & 0x0f, length == 0 ? [] : try await socket.read(bytes: Int(length)))
    } catch {
      return nil
    }
  }

  /// A `hello` of the banking domain, at sequence 0 with its initial state, from an app
  /// called `appName`.
  static func hello(
    appName: String, sessionID: String = UUID().uuidString, domain: String = "banking"
  ) throws -> [UInt8] {
    let state = try CBOREncoder(deterministic: true).encode(bankingDomain.initialState)
    return CBORValue.map([
      .init(.textString("type"), .textString("hello")),
      .init(.textString("protocol"), .unsigned(1)),
      .init(.textString("domain"), .textString(domain)),
      .init(
        .textString("actionSchemaVersion"), .unsigned(UInt64(bankingDomain.actionSchemaVersion))),
      .init(.textString("sessionID"), .textString(sessionID)),
      .init(.textString("startTime"), .float(1_763_771_000)),
      .init(
        .textString("app"), .map([.init(.textString("name"), .textString(appName))])),
      .init(.textString("sequence"), .unsigned(0)),
      .init(.textString("state"), .byteString(state)),
      .init(.textString("dropped"), .unsigned(0)),
    ]).encoded()
  }

  func close() {
    try? socket.close()
  }
}
