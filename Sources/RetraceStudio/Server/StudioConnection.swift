import FlyingFox
import FlyingSocks
import Foundation
import RetraceDebugger

/// One client's connection: reads each request with ``RequestLimits``, answers it with the
/// handler, and hands a WebSocket upgrade the handler accepts to FlyingFox.
///
/// Each connection runs in a task of its own and waits for its bytes without holding a
/// thread, so a client that sends slowly, or stops, delays no other: it is cut off when its
/// idle, head or body time runs out.
struct StudioConnection: Sendable {
  let socket: AsyncSocket
  let handler: any HTTPHandler
  let limits: RequestLimits
  /// The most payload one WebSocket frame of the live link may announce
  /// (``FrameHeaderGuard``).
  let frameLimit: Int
  /// Connects to the FlyingFox server that speaks WebSocket, for the live link.
  let webSocketServer: @Sendable () async throws -> AsyncSocket
  /// Vets a body larger than ``RequestLimits/body`` before it is read.
  let largeBodies: LargeBodyGate
  /// Lets two large answers (an export, a whole state) be made and written at once, across
  /// every connection: what each holds until it is written is bounded.
  let largeAnswers: AsyncLimit
  /// The connections held, and which wait for a request: an idle one may be ended to make
  /// room for a new client.
  let connections: OpenConnections

  /// Serves requests until the client closes the connection, breaks a limit, or the task is
  /// cancelled; then closes the socket.
  func run() async {
    var bytes = ConnectionBytes(socket: socket)
    defer { if !bytes.handedOver { try? socket.close() } }
    do {
      while try await serveOne(&bytes) {}
    } catch let refusal as RequestRefusal {
      // The rest of the connection cannot be read as requests: answer and close.
      try? await write(
        StudioHandler.error(refusal.message, status: refusal.status),
        keepAlive: false, method: .GET, echoing: nil)
      await Self.drain(socket)
    } catch {
      // The client went away, was idle too long, or the server stops: nothing to answer.
    }
  }

  /// Reads one request and answers it; returns whether the connection stays open.
  private func serveOne(_ bytes: inout ConnectionBytes) async throws -> Bool {
    // Idle until bytes come: the connection may be ended meanwhile to make room for a new
    // client (``OpenConnections``), and is noted busy before anything may close it.
    let waiting = connections.idle(socket.socket.file.rawValue)
    let arrived: Bool
    do {
      arrived = try await bytes.waitForData(until: .now + limits.idle)
      connections.busy(waiting)
    } catch {
      connections.busy(waiting)
      throw error
    }
    guard arrived else { return false }
    bytes.skipBlankLines()
    let headDeadline = ContinuousClock.now + limits.headTime
    var end: Int?
    while true {
      end = try RequestHead.end(in: bytes.pending, limits: limits)
      if end != nil { break }
      guard try await bytes.readMore(until: headDeadline, timeoutMessage: "the request's head")
      else { return false }
    }
    let headBytes = bytes.pending[..<end!]
    let head = try RequestHead(headBytes, limits: limits)
    let raw = Array(headBytes)
    bytes.consume(upTo: end!)

    // A body larger than an ordinary request's (an upload) is read only for a client with
    // the token, and a few at a time.
    var admitted = false
    defer { if admitted { largeBodies.done() } }
    if head.contentLength > limits.body {
      try largeBodies.admit(
        HTTPRequest(
          method: head.method, version: head.version, target: head.target, headers: head.headers,
          body: HTTPBodySequence(data: Data())))
      admitted = true
    }
    if head.contentLength > 0 {
      if head.expectsContinue, bytes.pending.count < head.contentLength {
        try await socket.write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
      }
      let bodyDeadline = ContinuousClock.now + limits.bodyTime
      while bytes.pending.count < head.contentLength {
        guard try await bytes.readMore(until: bodyDeadline, timeoutMessage: "the request's body")
        else { return false }
      }
    }
    let body = Data(bytes.pending.prefix(head.contentLength))
    let request = HTTPRequest(
      method: head.method, version: head.version, target: head.target, headers: head.headers,
      body: HTTPBodySequence(data: body))
    // A large answer (hundreds of MB of JSON) is made and written two at a time: eight
    // exports of a million actions built at once held 5 GB until they were written.
    let large = StudioHandler.isLargeAnswer(request)
    if large { await largeAnswers.acquire() }
    defer { if large { Task { await largeAnswers.release() } } }
    let response = await answer(request)
    if case .webSocket = response.payload {
      // The handler accepted the upgrade (the token and Host are right): FlyingFox, which
      // speaks WebSocket, takes the connection over from its first byte.
      bytes.handedOver = true
      await relay(raw + Array(bytes.pending), preamble: raw.count)
      return false
    }
    bytes.consume(upTo: bytes.pending.startIndex + head.contentLength)
    let keepAlive = head.keepsAlive
    try await write(
      response, keepAlive: keepAlive, method: head.method,
      echoing: head.headers[.connection])
    return keepAlive
  }

  /// The handler's answer, or 500 when it throws or runs past ``RequestLimits/handlerTime``.
  ///
  /// A request still running after a second is watched: when its client hangs up (closes
  /// the connection), the request's task is cancelled, and the work it queued is not run
  /// (``WorkerPool/run(_:)``). Thirty-two exports or filters whose clients left at once kept
  /// the server busy for a minute.
  private func answer(_ request: HTTPRequest) async -> HTTPResponse {
    let handler = self.handler
    // What a trap's line says the Studio was answering: the request without its token.
    let query = request.query.filter { $0.name != "token" }
      .map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    let context =
      "answering \(request.method.rawValue) \(request.path)"
      + (query.isEmpty ? "" : "?" + query)
    let (socket, handlerTime) = (self.socket, limits.handlerTime)
    let answered: HTTPResponse? = await withTaskGroup(of: HTTPResponse?.self) { group in
      group.addTask {
        do {
          return try await TrapReport.$context.withValue(context.oneLine()) {
            try await withDeadline(.now + handlerTime) {
              try await handler.handleRequest(request)
            }
          }
        } catch is DeadlineError {
          return StudioHandler.error(
            "the request took longer than the server allows", status: 500)
        } catch {
          return StudioHandler.error("\(error)", status: 500)
        }
      }
      group.addTask {
        // `nil`: the client hung up, or the watch ended (pipelined bytes, or the answer came).
        await Self.waitForHangUp(socket)
        return nil
      }
      while let next = await group.next() {
        if let response = next {
          group.cancelAll()
          return response
        }
        if Self.hungUp(socket) {
          group.cancelAll()
          return nil
        }
      }
      return nil
    }
    return answered
      ?? StudioHandler.error("the client closed the connection", status: 500)
  }

  /// Returns once the client has closed its side of the connection, or has sent more bytes
  /// (a pipelined request: the watch ends), or the task is cancelled; looks after a second,
  /// then four times a second.
  private static func waitForHangUp(_ socket: AsyncSocket) async {
    try? await Task.sleep(for: .seconds(1))
    while !Task.isCancelled {
      switch peek(socket) {
      case .closed, .data: return
      case .nothing: try? await Task.sleep(for: .milliseconds(250))
      }
    }
  }

  /// Whether the client has closed its side of the connection.
  private static func hungUp(_ socket: AsyncSocket) -> Bool {
    if case .closed = peek(socket) { return true }
    return false
  }

  /// What the connection holds unread, without taking it.
  private static func peek(_ socket: AsyncSocket) -> (PeekResult) {
    var byte: UInt8 = 0
    let count = recv(socket.socket.file.rawValue, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
    if count == 0 { return .closed }
    if count > 0 { return .data }
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .nothing : .closed
  }

  /// What ``peek(_:)`` found.
  private enum PeekResult { case closed, data, nothing }

  /// Writes `response` in one write: status line, headers, `Content-Length` and body (none
  /// for `HEAD`).
  private func write(
    _ response: HTTPResponse, keepAlive: Bool, method: HTTPMethod, echoing connection: String?
  ) async throws {
    let body = try await response.bodyData
    var headers = response.headers
    headers[.contentLength] = String(body.count)
    if !keepAlive {
      headers[.connection] = "close"
    } else if headers[.connection] == nil, let connection {
      headers[.connection] = connection
    }
    var text =
      "\(response.version.rawValue) \(response.statusCode.code) \(response.statusCode.phrase)\r\n"
    for (name, value) in headers.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
      text += "\(name.rawValue): \(value)\r\n"
    }
    text += "\r\n"
    var data = Data(text.utf8)
    if method != .HEAD { data.append(body) }
    // A client that never reads its answer would hold it (and the memory behind it, an
    // export of a long session) for as long as it kept the connection: past the write time
    // the connection is closed.
    let socket = self.socket
    let payload = data
    try await withDeadline(.now + limits.writeTime) { try await socket.write(payload) }
  }

  /// Copies bytes both ways between the client and FlyingFox's server, starting with
  /// `first` (the upgrade request, its first `preamble` bytes, and whatever followed it),
  /// until either side closes. The client's frames are checked as they pass
  /// (``FrameHeaderGuard``): a frame that announces more than ``frameLimit`` ends the link
  /// with a Close of 1009 (message too big), before any of its payload is read; one that is
  /// not masked or sets a reserved bit, with 1002 (protocol error); and a client that has
  /// not sent its first message whole within ``RequestLimits/helloTime``, with 1008.
  ///
  /// The link is ended from this side, the client's: FlyingFox then reads the end of its
  /// connection, and its reader and the hub's slot are let go of.
  private func relay(_ first: [UInt8], preamble: Int) async {
    let client = socket
    guard let server = try? await webSocketServer() else {
      try? client.close()
      return
    }
    let (limit, helloTime) = (frameLimit, limits.helloTime)
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        var frames = FrameHeaderGuard(limit: limit, preamble: preamble)
        let helloDeadline = ContinuousClock.now + helloTime
        var chunk = first
        while !Task.isCancelled {
          let refusal: [UInt8]? =
            switch frames.accept(chunk) {
            case .pass: nil
            case .tooBig: FrameHeaderGuard.closeTooBig
            case .protocolError: FrameHeaderGuard.closeProtocolError
            }
          if let refusal {
            // The Close first, then what the client still sends is read and dropped for a
            // while, so that closing does not reset the connection before it reads the Close.
            try? await client.write(Data(refusal))
            await Self.drain(client, atMost: 4 << 20)
            return
          }
          guard (try? await server.write(Data(chunk))) != nil else { return }
          do {
            if frames.firstMessageEnded {
              chunk = try await client.read(atMost: 65_536)
            } else {
              chunk = try await withDeadline(helloDeadline) {
                try await client.read(atMost: 65_536)
              }
            }
          } catch is DeadlineError {
            let seconds = helloTime.components.seconds
            try? await client.write(
              Data(FrameHeaderGuard.close(1008, reason: "no hello within \(seconds) s")))
            await Self.drain(client, atMost: 1 << 20)
            return
          } catch {
            return
          }
        }
      }
      group.addTask { await Self.copy(from: server, to: client) }
      await group.next()
      group.cancelAll()
    }
    try? client.close()
    try? server.close()
  }

  /// Ends the connection after a refusal without losing the answer: the client may still be
  /// sending (a 10 MB request line), and closing a socket with unread bytes resets the
  /// connection, which can discard the answer before the client reads it. So the server
  /// stops writing, then reads and drops what still comes, for at most a second and 1 MiB.
  private static func drain(_ socket: AsyncSocket, atMost limit: Int = 1 << 20) async {
    _ = shutdown(socket.socket.file.rawValue, Int32(SHUT_WR))
    let deadline = ContinuousClock.now + .seconds(1)
    var dropped = 0
    while dropped < limit {
      guard let chunk = try? await withDeadline(deadline, { try await socket.read(atMost: 65_536) })
      else { return }
      dropped += chunk.count
    }
  }

  private static func copy(from source: AsyncSocket, to destination: AsyncSocket) async {
    while !Task.isCancelled {
      guard let chunk = try? await source.read(atMost: 65_536),
        (try? await destination.write(Data(chunk))) != nil
      else { return }
    }
  }
}

/// The bytes read from a connection and not yet used.
private struct ConnectionBytes {
  let socket: AsyncSocket
  private var buffer: [UInt8] = []
  private var start = 0
  /// Whether the socket now belongs to the WebSocket relay.
  var handedOver = false

  init(socket: AsyncSocket) { self.socket = socket }

  var pending: ArraySlice<UInt8> { buffer[start...] }

  mutating func consume(upTo index: Int) {
    start = index
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    } else if start > 65_536 {
      // A client that sends requests back to back never empties the buffer: drop what was
      // used, so that it holds at most one head and what came with it.
      buffer.removeFirst(start)
      start = 0
    }
  }

  /// Drops the empty lines a client may send between requests.
  mutating func skipBlankLines() {
    while start < buffer.count,
      buffer[start] == UInt8(ascii: "\r") || buffer[start] == UInt8(ascii: "\n")
    {
      start += 1
    }
    consume(upTo: start)
  }

  /// Waits for bytes of the next request; returns false if the client closed the connection
  /// or sent nothing before `deadline`.
  ///
  /// Blank lines before a request are dropped as they come, and at most
  /// ``blankBytesLimit`` of them are taken: a client that sends nothing else holds neither
  /// memory nor the server's time (each read was checked whole before).
  ///
  /// - Throws: ``RequestRefusal`` (400) past that many blank bytes.
  mutating func waitForData(until deadline: ContinuousClock.Instant) async throws -> Bool {
    var blank = 0
    while true {
      let before = pending.count
      skipBlankLines()
      blank += before - pending.count
      guard blank <= Self.blankBytesLimit else {
        throw RequestRefusal(
          400, "more than \(Self.blankBytesLimit) bytes of blank lines before a request")
      }
      if !pending.isEmpty { return true }
      do {
        guard try await read(until: deadline) else { return false }
      } catch is DeadlineError {
        return false
      }
    }
  }

  /// The most bytes of blank lines taken before a request.
  static let blankBytesLimit = 8_192

  /// Reads what has arrived; returns false if the client closed the connection.
  ///
  /// - Throws: ``RequestRefusal`` (408) when `deadline` passes first.
  mutating func readMore(until deadline: ContinuousClock.Instant, timeoutMessage: String)
    async throws -> Bool
  {
    do {
      return try await read(until: deadline)
    } catch is DeadlineError {
      throw RequestRefusal(408, "\(timeoutMessage) did not arrive in time")
    }
  }

  private mutating func read(until deadline: ContinuousClock.Instant) async throws -> Bool {
    let socket = self.socket
    do {
      let chunk = try await withDeadline(deadline) { try await socket.read(atMost: 65_536) }
      buffer.append(contentsOf: chunk)
      return true
    } catch SocketError.disconnected {
      return false
    }
  }
}

/// A deadline passed.
struct DeadlineError: Error {}

/// Runs `body`, or throws ``DeadlineError`` (and cancels it) when `deadline` passes first.
func withDeadline<T: Sendable>(
  _ deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  try await withThrowingTaskGroup(of: T?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(until: deadline, clock: .continuous)
      return nil
    }
    defer { group.cancelAll() }
    guard let first = try await group.next(), let value = first else { throw DeadlineError() }
    return value
  }
}

/// At most `limit` holders at once; the others wait their turn, first come first served.
actor AsyncLimit {
  private var available: Int
  private var waiting: [CheckedContinuation<Void, Never>] = []

  init(_ limit: Int) {
    precondition(limit > 0, "a limit of at least one")
    available = limit
  }

  /// Waits for a place.
  func acquire() async {
    guard available == 0 else {
      available -= 1
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }

  /// Gives the place back, to the first waiting if any.
  func release() {
    if waiting.isEmpty {
      available += 1
    } else {
      waiting.removeFirst().resume()
    }
  }
}
