import Crypto
import FlyingSocks
import Foundation
import RetraceLiveProtocol

/// A WebSocket client (RFC 6455) over a FlyingSocks socket: the upgrade handshake, masked
/// frames out, frames in with fragmented messages reassembled, ping, pong and close.
///
/// No library the package may use offers a WebSocket client that runs on Linux: FlyingFox
/// serves WebSockets but does not open them, and URLSession's `URLSessionWebSocketTask`
/// needs a libcurl built with WebSockets, which Linux distributions do not ship.
/// (`docs/LIVE.md`)
enum WebSocketClient {
  /// The GUID RFC 6455 appends to the key to make `Sec-WebSocket-Accept`.
  static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

  /// The most bytes the server's handshake answer may take.
  static let maximumHandshakeSize = 16 * 1024

  /// The `Sec-WebSocket-Accept` a server must answer to `key`.
  static func accept(forKey key: String) -> String {
    Data(Insecure.SHA1.hash(data: Array((key + acceptGUID).utf8))).base64EncodedString()
  }

  /// Opens a TCP connection to `endpoint` and upgrades it to a WebSocket; throws when the
  /// server does not answer with a correct upgrade within `timeout`.
  ///
  /// - Returns: The socket and a reader that holds what the server sent after its answer.
  static func connect(
    to endpoint: StudioEndpoint, timeout: Duration
  ) async throws(LiveLinkError) -> (AsyncSocket, WebSocketReader) {
    let address = try socketAddress(of: endpoint)
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    let socket: AsyncSocket
    do {
      socket = try await AsyncSocket.connected(to: address, timeout: seconds)
    } catch {
      let why =
        error as? SocketError == .disconnected
        ? "nothing is listening there (connection refused)" : describe(error)
      throw LiveLinkError(
        .connectionFailed, "cannot connect to \(endpoint.hostHeader): \(why)", cause: error)
    }
    #if canImport(Darwin)
      try? socket.socket.setValue(true, for: .noSIGPIPE)
    #endif
    do throws(LiveLinkError) {
      let reader = try await withDeadline(timeout) {
        () async throws(LiveLinkError) -> WebSocketReader in
        try await handshake(socket, endpoint)
      }
      return (socket, reader)
    } catch {
      try? socket.close()
      throw error
    }
  }

  private static func handshake(
    _ socket: AsyncSocket, _ endpoint: StudioEndpoint
  ) async throws(LiveLinkError) -> WebSocketReader {
    var keyBytes = [UInt8](repeating: 0, count: 16)
    var random = SystemRandomNumberGenerator()
    for i in keyBytes.indices { keyBytes[i] = random.next() }
    let key = Data(keyBytes).base64EncodedString()
    // The token goes in the Authorization header, not the query, so that no log of
    // request lines holds it.
    let request =
      "GET \(endpoint.path) HTTP/1.1\r\n"
      + "Host: \(endpoint.hostHeader)\r\n"
      + "Upgrade: websocket\r\n"
      + "Connection: Upgrade\r\n"
      + "Sec-WebSocket-Key: \(key)\r\n"
      + "Sec-WebSocket-Version: 13\r\n"
      + "Authorization: Bearer \(endpoint.token)\r\n"
      + "User-Agent: RetraceLive\r\n\r\n"
    var reader = WebSocketReader(socket: socket)
    do {
      try await socket.write(Data(request.utf8))
    } catch {
      throw LiveLinkError(.connectionFailed, "handshake: \(describe(error))", cause: error)
    }
    let head = try await reader.readHead(limit: maximumHandshakeSize)
    let lines = head.components(separatedBy: "\r\n")
    let status = lines.first ?? ""
    let parts = status.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else {
      throw LiveLinkError(.handshakeRefused, "the Studio did not answer HTTP: \(status.prefix(80))")
    }
    guard parts[1] == "101" else {
      let hint = parts[1] == "401" ? " (a wrong or missing token)" : ""
      throw LiveLinkError(.handshakeRefused, "the Studio refused the session: \(status)\(hint)")
    }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      headers[name] = value
    }
    guard headers["upgrade"]?.lowercased() == "websocket",
      let connection = headers["connection"]?.lowercased(),
      connection.split(separator: ",").contains(where: {
        $0.trimmingCharacters(in: .whitespaces) == "upgrade"
      })
    else {
      throw LiveLinkError(.handshakeRefused, "the Studio's answer is not a WebSocket upgrade")
    }
    guard headers["sec-websocket-accept"] == accept(forKey: key) else {
      throw LiveLinkError(
        .handshakeRefused, "the Studio's Sec-WebSocket-Accept does not match the key sent")
    }
    return reader
  }

  /// The socket address of the endpoint's host: an IPv4 or IPv6 address, or `localhost`.
  static func socketAddress(of endpoint: StudioEndpoint) throws(LiveLinkError) -> any SocketAddress
  {
    let host = endpoint.host == "localhost" ? "127.0.0.1" : endpoint.host
    do {
      if host.contains(":") {
        return try sockaddr_in6.inet6(ip6: host, port: endpoint.port)
      }
      return try sockaddr_in.inet(ip4: host, port: endpoint.port)
    } catch {
      throw LiveLinkError(
        .invalidAddress,
        "\(endpoint.host) is not an IP address or localhost (the link does not look names up; give the address `retrace serve` printed)"
      )
    }
  }

  /// Runs `body`, and cancels it with a `connectionFailed` error after `timeout`.
  static func withDeadline<T: Sendable>(
    _ timeout: Duration, _ body: @escaping @Sendable () async throws(LiveLinkError) -> T
  ) async throws(LiveLinkError) -> T {
    let result = await withTaskGroup(of: Result<T, LiveLinkError>?.self) { group in
      group.addTask {
        do throws(LiveLinkError) { return .success(try await body()) } catch {
          return .failure(error)
        }
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
    guard let result else {
      throw LiveLinkError(.connectionFailed, "the Studio did not complete the handshake in time")
    }
    return try result.get()
  }

  /// One line for a socket or other error.
  static func describe(_ error: any Error) -> String {
    if let error = error as? SocketError {
      switch error {
      case .failed(_, _, let message): return message
      case .disconnected: return "disconnected"
      case .timeout: return "timed out"
      default: return "\(error)"
      }
    }
    if let error = error as? LiveLinkError { return error.message }
    return "\(error)"
  }
}

/// A frame under construction: room for the longest header, then the payload, which the
/// message encoder appends to; ``finish(opcode:)`` writes the header into the room and
/// masks the payload in place, so that the frame is copied once, into the `Data` written.
struct FrameBuilder: ~Copyable {
  /// The longest client frame header: 2 bytes, 8 of length, 4 of mask key.
  static let headerRoom = 14
  var bytes: [UInt8]

  init(capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(capacity + Self.headerRoom)
    bytes.append(contentsOf: repeatElement(0, count: Self.headerRoom))
  }

  /// The payload's length so far.
  var payloadCount: Int { bytes.count - Self.headerRoom }

  consuming func finish(opcode: UInt8) -> Data {
    var data = Data()
    finish(opcode: opcode, appendingTo: &data)
    return data
  }

  /// Appends the frame to `output`: the frames of a batch go out in one write.
  consuming func finish(opcode: UInt8, appendingTo output: inout Data) {
    let length = payloadCount
    var header: [UInt8] = [0x80 | opcode]
    if length < 126 {
      header.append(0x80 | UInt8(length))
    } else if length <= 0xffff {
      header.append(0x80 | 126)
      header.append(UInt8(length >> 8))
      header.append(UInt8(length & 0xff))
    } else {
      header.append(0x80 | 127)
      for shift in stride(from: 56, through: 0, by: -8) {
        header.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift)))
      }
    }
    var random = SystemRandomNumberGenerator()
    let mask: UInt32 = random.next()
    withUnsafeBytes(of: mask) { header.append(contentsOf: $0) }
    let start = Self.headerRoom - header.count
    var bytes = self.bytes
    bytes.withUnsafeMutableBytes { buffer in
      for (i, byte) in header.enumerated() { buffer[start + i] = byte }
      Self.mask(UnsafeMutableRawBufferPointer(rebasing: buffer[Self.headerRoom...]), with: mask)
    }
    bytes.withUnsafeBytes { output.append(contentsOf: $0[start...]) }
  }

  /// XORs `payload` with the 4-byte key `mask` (in memory order), 8 bytes at a time.
  static func mask(_ payload: UnsafeMutableRawBufferPointer, with mask: UInt32) {
    guard let base = payload.baseAddress else { return }
    let count = payload.count
    let wide = UInt64(mask) | UInt64(mask) << 32
    var i = 0
    while i &+ 8 <= count {
      let word = (base + i).loadUnaligned(as: UInt64.self)
      (base + i).storeBytes(of: word ^ wide, as: UInt64.self)
      i &+= 8
    }
    withUnsafeBytes(of: mask) { key in
      while i < count {
        base.storeBytes(
          of: base.load(fromByteOffset: i, as: UInt8.self) ^ key[i & 3], toByteOffset: i,
          as: UInt8.self)
        i &+= 1
      }
    }
  }
}

/// What a server sent: one whole message, or a control frame.
enum WebSocketMessage: Sendable {
  case binary([UInt8])
  case text([UInt8])
  case ping([UInt8])
  case pong
  case close(code: UInt16?)
}

/// Reads frames from the server and reassembles fragmented messages. Owned by one task.
struct WebSocketReader: Sendable {
  let socket: AsyncSocket
  private var buffer: [UInt8] = []
  private var start = 0
  /// The fragments of a message so far, and its opcode: kept across calls, since a control
  /// frame may come between fragments.
  private var message: [UInt8] = []
  private var messageOpcode: UInt8? = nil

  init(socket: AsyncSocket) {
    self.socket = socket
  }

  private mutating func fill() async throws(LiveLinkError) {
    let bytes: [UInt8]
    do {
      bytes = try await socket.read(atMost: 64 * 1024)
    } catch {
      throw LiveLinkError(
        .connectionFailed, "the connection broke: \(WebSocketClient.describe(error))",
        cause: error)
    }
    guard !bytes.isEmpty else {
      throw LiveLinkError(.connectionFailed, "the Studio closed the connection")
    }
    if start > 0 && start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    } else if start > 64 * 1024 {
      buffer.removeFirst(start)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  private mutating func read(_ count: Int) async throws(LiveLinkError) -> ArraySlice<UInt8> {
    while buffer.count - start < count { try await fill() }
    let slice = buffer[start..<(start + count)]
    start += count
    return slice
  }

  /// Reads the handshake answer's head, up to and without its blank line.
  mutating func readHead(limit: Int) async throws(LiveLinkError) -> String {
    let end: [UInt8] = [13, 10, 13, 10]
    var searched = 0
    while true {
      let available = buffer.count - start
      if available >= 4 {
        for i in max(searched, 0)...(available - 4)
        where buffer[(start + i)..<(start + i + 4)].elementsEqual(end) {
          let head = String(decoding: buffer[start..<(start + i)], as: UTF8.self)
          start += i + 4
          return head
        }
        searched = available - 3
      }
      guard available < limit else {
        throw LiveLinkError(.handshakeRefused, "the Studio's handshake answer is too long")
      }
      try await fill()
    }
  }

  /// The next message or control frame; throws on a broken connection or a frame that
  /// breaks RFC 6455.
  ///
  /// - Parameter maximumSize: The most bytes a message may have.
  mutating func next(maximumSize: Int) async throws(LiveLinkError) -> WebSocketMessage {
    while true {
      let head = try await read(2)
      let first = head[head.startIndex]
      let second = head[head.startIndex + 1]
      let fin = first & 0x80 != 0
      let opcode = first & 0x0f
      guard first & 0x70 == 0 else { throw violation("a frame with reserved bits set") }
      guard second & 0x80 == 0 else { throw violation("a masked frame from the server") }
      var length = UInt64(second & 0x7f)
      if length == 126 {
        length = try await read(2).reduce(0) { $0 << 8 | UInt64($1) }
      } else if length == 127 {
        length = try await read(8).reduce(0) { $0 << 8 | UInt64($1) }
      }
      guard length <= UInt64(maximumSize) else {
        throw violation("a frame of \(length) bytes, over the limit of \(maximumSize)")
      }
      let payload = Array(try await read(Int(length)))
      switch opcode {
      case 0x8, 0x9, 0xA:
        guard fin, length <= 125 else { throw violation("a fragmented or long control frame") }
        switch opcode {
        case 0x8:
          let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
          return .close(code: code)
        case 0x9: return .ping(payload)
        default: return .pong
        }
      case 0x1, 0x2:
        guard messageOpcode == nil else {
          throw violation("a new message before the last one's final fragment")
        }
        guard payload.count <= maximumSize else {
          throw violation("a message over the limit of \(maximumSize) bytes")
        }
        if fin { return opcode == 0x2 ? .binary(payload) : .text(payload) }
        messageOpcode = opcode
        message = payload
      case 0x0:
        guard let started = messageOpcode else {
          throw violation("a continuation frame with no message to continue")
        }
        guard message.count + payload.count <= maximumSize else {
          throw violation("a message over the limit of \(maximumSize) bytes")
        }
        message += payload
        if fin {
          let whole = message
          message = []
          messageOpcode = nil
          return started == 0x2 ? .binary(whole) : .text(whole)
        }
      default:
        throw violation("a frame with the unknown opcode \(opcode)")
      }
    }
  }

  private func violation(_ what: String) -> LiveLinkError {
    LiveLinkError(.protocolViolation, "the Studio sent \(what)")
  }
}
