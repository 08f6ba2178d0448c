import Crypto
import Foundation
import RetraceLiveProtocol
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A stand-in for Retrace Studio's live endpoint that accepts the WebSocket upgrade and then
/// only reads: what W4l's link streams to. It decodes none of the link's messages, which
/// would add its cost to the measurement; the endpoint's path is the protocol's. Blocking sockets on threads of its own, with
/// large reads, so that the sink costs as little of the machine as it can.
public final class LiveSink: Sendable {
  /// The port it listens on, on 127.0.0.1.
  public let port: UInt16
  private let listener: Int32
  /// Bytes read after the handshakes, over every connection.
  private let received = Mutex<Int>(0)

  /// Starts listening on a free port of 127.0.0.1.
  public init() throws {
    #if canImport(Glibc)
      let stream = Int32(SOCK_STREAM.rawValue)
    #else
      let stream = SOCK_STREAM
    #endif
    let fd = socket(AF_INET, stream, 0)
    guard fd >= 0 else { throw SinkError("socket failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 16) == 0 else { throw SinkError("bind or listen failed") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    port = UInt16(bigEndian: address.sin_port)
    listener = fd
    let thread = Thread { [self] in acceptLoop() }
    thread.name = "W4l sink"
    thread.start()
  }

  /// The address a link connects to.
  public var address: String { "http://127.0.0.1:\(port)/?token=benchmark" }

  /// Bytes read so far after the handshakes.
  public var bytesReceived: Int { received.withLock { $0 } }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      guard client >= 0 else { return }
      let thread = Thread { [self] in serve(client) }
      thread.name = "W4l sink connection"
      thread.start()
    }
  }

  private func serve(_ fd: Int32) {
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var head: [UInt8] = []
    let end: [UInt8] = [13, 10, 13, 10]
    while !head.suffix(4).elementsEqual(end) {
      let count = read(fd, &buffer, 1)
      guard count == 1 else { return }
      head.append(buffer[0])
    }
    let text = String(decoding: head, as: UTF8.self)
    // The link's upgrade is a request for the Studio's live endpoint; anything else is not
    // the link's.
    guard text.hasPrefix("GET \(LiveProtocol.endpointPath) ") else { return }
    guard
      let line = text.split(separator: "\r\n").first(where: {
        $0.lowercased().hasPrefix("sec-websocket-key:")
      })
    else { return }
    let key = line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
    let digest = Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))
    let answer =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Accept: \(Data(digest).base64EncodedString())\r\n\r\n"
    let bytes = Array(answer.utf8)
    guard write(fd, bytes, bytes.count) == bytes.count else { return }
    while true {
      let count = read(fd, &buffer, buffer.count)
      guard count > 0 else { return }
      received.withLock { $0 += count }
    }
  }
}

/// A failure of the sink, or of a wait for the link.
public struct SinkError: Error, CustomStringConvertible {
  /// What failed.
  public var description: String
  /// Creates an error.
  public init(_ description: String) { self.description = description }
}
