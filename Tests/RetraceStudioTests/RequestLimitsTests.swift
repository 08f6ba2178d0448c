import FlyingFox
import FlyingSocks
import Foundation
import Testing

@testable import RetraceStudio

/// Requests too large or too slow to be served, sent over raw sockets before any token is
/// checked: each is refused with its status and its connection closed, and the server goes on
/// answering others meanwhile.
@Suite struct RequestLimitsTests {
  /// A raw connection to the Studio on 127.0.0.1.
  struct RawClient {
    let socket: AsyncSocket

    init(port: UInt16) async throws {
      socket = try await AsyncSocket.connected(
        to: try sockaddr_in.inet(ip4: "127.0.0.1", port: port))
    }

    func send(_ text: String) async throws { try await socket.write(Data(text.utf8)) }

    /// Everything the server sends until it closes the connection, or what came before
    /// `seconds` passed.
    func readToEnd(seconds: Double = 30) async -> (text: String, closed: Bool) {
      var received: [UInt8] = []
      let deadline = ContinuousClock.now + .seconds(seconds)
      while true {
        let socket = self.socket
        do {
          received += try await withDeadline(deadline) { try await socket.read(atMost: 65_536) }
        } catch SocketError.disconnected {
          return (String(decoding: received, as: UTF8.self), true)
        } catch {
          // A reset after the answer (the server closed while this client still sent) ends
          // the connection as well.
          let closed = !(error is DeadlineError)
          return (String(decoding: received, as: UTF8.self), closed)
        }
      }
    }

    func close() { try? socket.close() }
  }

  /// The status code of the response that `text` starts with.
  static func status(_ text: String) -> Int? {
    guard text.hasPrefix("HTTP/1.1 ") else { return nil }
    return Int(text.dropFirst(9).prefix(3))
  }

  func request(_ line: String, port: UInt16, headers: String = "") -> String {
    "\(line)\r\nHost: 127.0.0.1:\(port)\r\n\(headers)\r\n"
  }

  /// An 80 kB request line is 414 at once, and a 10 MB one, still being sent when the
  /// answer comes, too; a request for the sessions is answered meanwhile.
  @Test func anOverlongRequestLineIs414() async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }

    let long = try await RawClient(port: studio.port)
    defer { long.close() }
    let started = ContinuousClock.now
    try await long.send(
      request(
        "GET /api/sessions?q=\(String(repeating: "a", count: 80_000)) HTTP/1.1", port: studio.port))
    let (answer, closed) = await long.readToEnd()
    let elapsed = ContinuousClock.now - started
    #expect(answer.hasPrefix("HTTP/1.1 414 URI Too Long\r\n"), "\(answer.prefix(200))")
    #expect(answer.contains("the request line is longer than 8192 bytes"))
    #expect(closed)
    // Refused when the limit's bytes have arrived, not after parsing 80 kB (9.4 s before).
    #expect(elapsed < .seconds(5))

    let junk = try await RawClient(port: studio.port)
    defer { junk.close() }
    let sender = Task {
      let chunk = String(repeating: "x", count: 65_536)
      try await junk.send("GET /")
      for _ in 0..<160 { try await junk.send(chunk) }
    }
    let fast = try await studio.get("/api/sessions")
    #expect(fast.status == 200)
    let (junkAnswer, junkClosed) = await junk.readToEnd()
    #expect(Self.status(junkAnswer) == 414, "\(junkAnswer.prefix(200))")
    #expect(junkClosed)
    sender.cancel()
    _ = await sender.result
    #expect(try await studio.get("/api/sessions").status == 200)
  }

  /// A 100 kB header, a head past 32 kB in short headers, and more than 100 headers are 431.
  @Test(arguments: ["one header of 100 kB", "40 headers of 1 kB", "101 headers"])
  func anOverlongHeadIs431(_ what: String) async throws {
    let headers =
      switch what {
      case "one header of 100 kB": "X-Big: \(String(repeating: "b", count: 100_000))\r\n"
      case "40 headers of 1 kB":
        String(repeating: "X-Some: \(String(repeating: "s", count: 1_000))\r\n", count: 40)
      default: String(repeating: "X-Many: m\r\n", count: 101)
      }
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let client = try await RawClient(port: studio.port)
    defer { client.close() }
    try await client.send(
      request("GET /api/sessions HTTP/1.1", port: studio.port, headers: headers))
    let (answer, closed) = await client.readToEnd()
    #expect(Self.status(answer) == 431, "\(answer.prefix(200))")
    #expect(closed)
    #expect(try await studio.get("/api/sessions").status == 200)
  }

  /// A body longer than 64 KiB is 413 as soon as its head has arrived: the server does not
  /// wait for it (none is sent here).
  @Test func anOversizedBodyIs413WithoutReadingIt() async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let client = try await RawClient(port: studio.port)
    defer { client.close() }
    try await client.send(
      request(
        "POST /api/sessions/counter/jump?to=1 HTTP/1.1", port: studio.port,
        headers: "Content-Length: 10000000\r\n"))
    let (answer, closed) = await client.readToEnd()
    #expect(Self.status(answer) == 413, "\(answer.prefix(200))")
    #expect(answer.contains("the request body is longer than 65536 bytes"))
    #expect(closed)
  }

  /// Blank lines before a request are dropped, a few as a client may send them, and a flood
  /// of them is 400 once past 8 KiB, rather than read without end.
  @Test func aFloodOfBlankLinesIs400() async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let polite = try await RawClient(port: studio.port)
    defer { polite.close() }
    try await polite.send(
      "\r\n\r\n" + request("GET / HTTP/1.1", port: studio.port, headers: "Connection: close\r\n"))
    #expect(Self.status(await polite.readToEnd().text) == 200)
    let flood = try await RawClient(port: studio.port)
    defer { flood.close() }
    try await flood.send(String(repeating: "\r\n", count: 32_768))
    let (answer, closed) = await flood.readToEnd()
    #expect(Self.status(answer) == 400, "\(answer.prefix(200))")
    #expect(answer.contains("blank lines"))
    #expect(closed)
  }

  /// A client that sends half a request line and stops delays no other, and is cut off
  /// with 408 when its head's time runs out; so is one that trickles a byte at a time.
  @Test func aStalledClientDelaysNoOtherAndIsCutOff() async throws {
    var limits = RequestLimits()
    limits.headTime = .seconds(1)
    let studio = try await StudioHarness.start(["counter.trace"], limits: limits)
    defer { Task { await studio.stop() } }

    let stalled = try await RawClient(port: studio.port)
    defer { stalled.close() }
    try await stalled.send("GET /api/sess")
    let trickling = try await RawClient(port: studio.port)
    defer { trickling.close() }
    let trickle = Task {
      for byte in "GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n".map(String.init) {
        try await trickling.send(byte)
        try await Task.sleep(for: .milliseconds(100))
      }
    }
    for _ in 0..<3 {
      #expect(try await studio.get("/api/sessions").status == 200)
    }
    let (answer, closed) = await stalled.readToEnd()
    #expect(Self.status(answer) == 408, "\(answer.prefix(200))")
    #expect(closed)
    let (trickled, trickleClosed) = await trickling.readToEnd()
    #expect(Self.status(trickled) == 408, "\(trickled.prefix(200))")
    #expect(trickleClosed)
    trickle.cancel()
  }

  /// What is not an HTTP request is refused at once, not when the head's time runs out: a
  /// line without a version, a TLS handshake, an SSH banner; and a lowercase method, or a
  /// control character in a header's value, is refused too.
  @Test(arguments: [
    ("no version", "GET /\r\n"), ("TLS", "\u{16}\u{03}\u{01}\u{02}"),
    ("SSH", "SSH-2.0-OpenSSH_9.6\r\n"), ("lowercase", "get /api/sessions HTTP/1.1\r\n\r\n"),
    ("NUL", "GET /api/sessions HTTP/1.1\r\nX-A: a\u{0}b\r\n\r\n"),
  ])
  func notARequestIs400AtOnce(name: String, bytes: String) async throws {
    // A head's time far longer than the wait: an answer within the wait came at once, not
    // when the head's time ran out, however loaded the machine.
    var limits = RequestLimits()
    limits.headTime = .seconds(300)
    let studio = try await StudioHarness.start(["counter.trace"], limits: limits)
    defer { Task { await studio.stop() } }
    let client = try await RawClient(port: studio.port)
    defer { client.close() }
    let started = ContinuousClock.now
    try await client.send(bytes)
    let (answer, closed) = await client.readToEnd(seconds: 60)
    #expect(Self.status(answer) == 400, "\(name): \(answer.prefix(200))")
    #expect(closed)
    #expect(ContinuousClock.now - started < .seconds(60), "\(name)")
  }

  /// Past the limit on connections held, the one that has waited longest for a request is
  /// ended to make room, and the new client is answered: connections that send nothing
  /// cannot use up the server's file descriptors.
  @Test func anIdleConnectionMakesRoomForANewClient() async throws {
    var limits = RequestLimits()
    limits.connections = 4
    let studio = try await StudioHarness.start(["counter.trace"], limits: limits)
    defer { Task { await studio.stop() } }
    var silent: [RawClient] = []
    defer { for client in silent { client.close() } }
    // Each waits for a request before the next connects, so the first has waited longest.
    for held in 1...4 {
      silent.append(try await RawClient(port: studio.port))
      try await studio.waitForConnections(held, idle: held)
    }
    // A fifth client: the first silent one is ended, and this one is served.
    #expect(try await studio.get("/api/sessions").status == 200)
    let (_, closed) = await silent[0].readToEnd()
    #expect(closed, "the connection idle longest was ended")
    let (_, lastClosed) = await silent[3].readToEnd(seconds: 0.5)
    #expect(!lastClosed, "the others wait on")
  }

  /// Past the limit, with every connection busy with a request, a new one is closed at once.
  @Test func aNewConnectionPastTheLimitOfBusyOnesIsClosed() async throws {
    var limits = RequestLimits()
    limits.connections = 2
    let studio = try await StudioHarness.start(["counter.trace"], limits: limits)
    defer { Task { await studio.stop() } }
    var busy: [RawClient] = []
    defer { for client in busy { client.close() } }
    for _ in 0..<2 {
      let client = try await RawClient(port: studio.port)
      try await client.send("GET /api/sess")
      busy.append(client)
    }
    // Both are busy once the server has read their bytes: on a loaded machine that can
    // take longer than any fixed pause.
    try await studio.waitForConnections(2, idle: 0)
    let late = try await RawClient(port: studio.port)
    defer { late.close() }
    let (answer, closed) = await late.readToEnd()
    #expect(closed && answer.isEmpty, "\(answer)")
  }

  /// Requests within the limits, kept alive and sent together on one connection, are each
  /// answered in order.
  @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let client = try await RawClient(port: studio.port)
    defer { client.close() }
    let auth = "Authorization: Bearer \(StudioHarness.token)\r\n"
    try await client.send(
      request("GET /api/sessions/counter HTTP/1.1", port: studio.port, headers: auth)
        + request("GET /api/nothing HTTP/1.1", port: studio.port, headers: auth)
        + request(
          "GET /api/sessions HTTP/1.1", port: studio.port, headers: auth + "Connection: close\r\n"))
    let (answer, closed) = await client.readToEnd()
    let statuses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
    #expect(statuses == ["200", "404", "200"])
    #expect(closed)
  }

  /// Two thousand requests sent back to back (90 kB) on one connection are each answered:
  /// the bytes already used are dropped as the connection goes on.
  @Test func manyRequestsBackToBackAreAllAnswered() async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let client = try await RawClient(port: studio.port)
    defer { client.close() }
    let reader = Task { await client.readToEnd() }
    let one = request("GET /nope HTTP/1.1", port: studio.port)
    try await client.send(
      String(repeating: one, count: 2_000)
        + request("GET /nope HTTP/1.1", port: studio.port, headers: "Connection: close\r\n"))
    let (answers, closed) = await reader.value
    #expect(answers.components(separatedBy: "HTTP/1.1 404 Not Found\r\n").count == 2_002)
    #expect(closed)
  }

  /// The head parser's limits, without a server.
  @Test func theHeadsEndIsFoundWithinTheLimits() throws {
    let limits = RequestLimits()
    let head = Array("GET /a?b=1 HTTP/1.1\r\nHost: h\r\nX: 1\r\n\r\nrest".utf8)
    let end = try #require(try RequestHead.end(in: head[...], limits: limits))
    #expect(end == head.count - 4)
    let parsed = try RequestHead(head[..<end], limits: limits)
    #expect(parsed.method == .GET && parsed.target.path() == "/a" && parsed.target.query() == "b=1")
    #expect(parsed.headers[.host] == "h" && parsed.keepsAlive)
    #expect(try RequestHead.end(in: Array("GET / HTTP/1.1\r\nHo".utf8)[...], limits: limits) == nil)
    #expect(throws: RequestRefusal(400, "the request has more than one Host header")) {
      _ = try RequestHead(
        Array("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".utf8)[...], limits: limits)
    }
    #expect(throws: RequestRefusal(400, "the Content-Length is not one whole number")) {
      _ = try RequestHead(
        Array("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n".utf8)[...], limits: limits)
    }
    #expect(throws: RequestRefusal(505, "only HTTP/1.1 and HTTP/1.0 are served, not 'HTTP/2'")) {
      _ = try RequestHead(Array("GET / HTTP/2\r\n\r\n".utf8)[...], limits: limits)
    }
  }
}
