import FlyingFox
import Foundation

/// How large a request may be, and how long its parts may take to arrive, before the server
/// refuses it and closes the connection.
///
/// Every limit is checked as the bytes arrive, before the token is: a request that breaks one
/// costs the server no more than reading that many bytes once.
struct RequestLimits: Sendable {
  /// The longest request line (`GET /api/… HTTP/1.1`), in bytes; longer is 414.
  var requestLine = 8_192
  /// The longest header line, in bytes; longer is 431.
  var headerLine = 8_192
  /// The most bytes of a request's head (request line and headers); more is 431.
  var head = 32_768
  /// The most header lines; more is 431.
  var headerCount = 100
  /// The largest body (`Content-Length`); larger is 413, refused before a byte of it is read.
  var body = 65_536
  /// The largest body of `POST /api/uploads` (a trace file the page uploads); larger is 413,
  /// refused before a byte of it is read (`retrace serve --upload-limit`).
  var upload = Uploads.defaultLimitMiB << 20
  /// How long a connection may wait for the first byte of its next request.
  var idle: Duration = .seconds(60)
  /// How long a request's head may take to arrive, from its first byte; longer is 408.
  var headTime: Duration = .seconds(10)
  /// How long a request's body may take to arrive, from the end of its head; longer is 408.
  var bodyTime: Duration = .seconds(10)
  /// How long writing an answer may take before the connection is closed: a client that
  /// does not read it cannot hold it, and its memory, longer.
  var writeTime: Duration = .seconds(60)
  /// How long a request may run before the server answers 500 (a shrink or a bench of a
  /// long session can take many minutes).
  var handlerTime: Duration = .seconds(3_600)
  /// How long a live app has, from its WebSocket upgrade, to send its first message (the
  /// `hello`) whole; longer closes the link with 1008. An app sends it at once: a connection
  /// that says nothing would hold one of the live connections for good.
  var helloTime: Duration = .seconds(30)
  /// The most clients' connections held at once; past it, the connection that has waited
  /// longest for its next request is ended to make room (``OpenConnections``).
  var connections = OpenConnections.defaultLimit
}

/// A request the server refuses before it reaches the handler: its status and one line that
/// says why.
struct RequestRefusal: Error, Equatable {
  var status: Int
  var message: String

  init(_ status: Int, _ message: String) {
    self.status = status
    self.message = message
  }
}

/// A request's head as it arrived: its request line and headers, checked against
/// ``RequestLimits``.
///
/// Parsing is one pass over the bytes: FlyingFox's own parser takes time quadratic in a
/// line's length (an 80 kB request line took 9.4 s), so the server never hands it a request.
struct RequestHead: Sendable {
  var method: HTTPMethod
  var version: HTTPVersion
  var target: HTTPRequest.Target
  var headers: HTTPHeaders
  /// The body's length, from `Content-Length` (0 without one).
  var contentLength: Int

  /// Whether the connection stays open after the answer: HTTP/1.1 unless `Connection:
  /// close`, HTTP/1.0 only with `Connection: keep-alive`.
  var keepsAlive: Bool {
    let tokens = Set(
      (headers[.connection] ?? "").lowercased().split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces)
      })
    return version == .http11 ? !tokens.contains("close") : tokens.contains("keep-alive")
  }

  /// Whether the client waits for `100 Continue` before it sends the body.
  var expectsContinue: Bool {
    headers[HTTPHeader("Expect")]?.lowercased() == "100-continue"
  }

  /// Where the head ends in `bytes`, if it has all arrived: the index after its blank line.
  ///
  /// - Throws: ``RequestRefusal`` as soon as `bytes` holds more than a limit allows (414 for
  ///   the request line, 431 for a header line, the whole head or the number of headers).
  static func end(in bytes: ArraySlice<UInt8>, limits: RequestLimits) throws(RequestRefusal)
    -> Int?
  {
    var lineStart = bytes.startIndex
    var lineNumber = 0
    var index = bytes.startIndex
    // What is not an HTTP request (a TLS handshake, an SSH banner, a line without a version)
    // is refused as soon as it shows, not when the head's time runs out.
    try checkRequestLineStart(bytes)
    while index < bytes.endIndex {
      guard let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) else {
        try check(length: bytes.endIndex - lineStart, line: lineNumber, limits: limits)
        break
      }
      try check(length: newline - lineStart, line: lineNumber, limits: limits)
      let line = bytes[lineStart..<newline]
      if lineNumber == 0 {
        let words = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard words.count == 3, words[2].starts(with: Array("HTTP/".utf8)) else {
          throw RequestRefusal(400, "the request line is not METHOD TARGET HTTP/1.1")
        }
      }
      if lineNumber > 0, line.isEmpty || line == [UInt8(ascii: "\r")] {
        return newline + 1
      }
      lineNumber += 1
      lineStart = newline + 1
      index = lineStart
    }
    if bytes.count > limits.head {
      throw RequestRefusal(431, "the request's head is longer than \(limits.head) bytes")
    }
    return nil
  }

  /// Throws 400 as soon as the request's first bytes cannot begin `METHOD ` (capital
  /// letters, then a space).
  private static func checkRequestLineStart(_ bytes: ArraySlice<UInt8>) throws(RequestRefusal) {
    for byte in bytes.prefix(17) {
      if byte == UInt8(ascii: " ") { return }
      guard (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) else {
        throw RequestRefusal(400, "the request line is not METHOD TARGET HTTP/1.1")
      }
    }
    if bytes.count >= 17 {
      throw RequestRefusal(400, "the request line is not METHOD TARGET HTTP/1.1")
    }
  }

  private static func check(length: Int, line: Int, limits: RequestLimits)
    throws(RequestRefusal)
  {
    if line == 0, length > limits.requestLine {
      throw RequestRefusal(414, "the request line is longer than \(limits.requestLine) bytes")
    }
    if line > 0, length > limits.headerLine {
      throw RequestRefusal(431, "a header line is longer than \(limits.headerLine) bytes")
    }
    if line > limits.headerCount {
      throw RequestRefusal(431, "the request has more than \(limits.headerCount) header lines")
    }
  }

  /// Parses a whole head, `bytes` up to the index ``end(in:limits:)`` gave.
  ///
  /// - Throws: ``RequestRefusal``: 400 for a malformed line, a target that is not a path
  ///   (not origin-form: an absolute URL, `*`), two `Host` headers or a bad
  ///   `Content-Length`, 505 for a version other than HTTP/1.x, 411 for a body sent with
  ///   `Transfer-Encoding`, 413 for a body over the limit.
  init(_ bytes: ArraySlice<UInt8>, limits: RequestLimits) throws(RequestRefusal) {
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
      $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0
    }
    while lines.last?.isEmpty == true { lines.removeLast() }
    guard let first = lines.first,
      let requestLine = String(validating: first, as: UTF8.self)
    else { throw RequestRefusal(400, "the request line is not UTF-8") }
    let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
      parts[0].allSatisfy({ $0.isASCII && $0.isUppercase })
    else {
      throw RequestRefusal(400, "the request line is not METHOD TARGET HTTP/1.1")
    }
    guard parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
      throw RequestRefusal(
        505, "only HTTP/1.1 and HTTP/1.0 are served, not '\(parts[2].prefix(16))'")
    }
    // Origin-form only (`/api/sessions?…`): the Studio is no proxy, and an absolute URL
    // (`http://other.example/api/sessions`) or `*` names something it does not serve, or
    // says where the request is for apart from the Host header that was checked.
    guard parts[1].hasPrefix("/") else {
      throw RequestRefusal(
        400, "the request target must be a path such as /api/sessions, not '\(parts[1].prefix(60))'"
      )
    }
    method = HTTPMethod(String(parts[0]))
    version = HTTPVersion(String(parts[2]))
    let targetParts = parts[1].split(
      separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    self.target = HTTPRequest.Target(
      path: String(targetParts[0]), query: targetParts.count > 1 ? String(targetParts[1]) : "")

    headers = HTTPHeaders()
    for line in lines.dropFirst() {
      guard let text = String(validating: line, as: UTF8.self),
        let colon = text.firstIndex(of: ":"),
        colon > text.startIndex,
        !text[..<colon].contains(where: { $0 == " " || $0 == "\t" })
      else {
        throw RequestRefusal(400, "a header line is not NAME: VALUE")
      }
      let name = HTTPHeader(String(text[..<colon]))
      let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      // A control character (NUL, a lone CR) in a value is no HTTP, and could end a line
      // wherever the value is written.
      guard
        !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F })
      else {
        throw RequestRefusal(
          400, "the header \(name.rawValue.prefix(40)) holds a control character")
      }
      headers.addValue(value, for: name)
    }
    guard headers.values(for: .host).count <= 1 else {
      throw RequestRefusal(400, "the request has more than one Host header")
    }
    if headers[.transferEncoding] != nil {
      throw RequestRefusal(
        411, "a request body must be sent with Content-Length, not Transfer-Encoding")
    }
    let lengths = Set(headers.values(for: .contentLength))
    if lengths.isEmpty {
      contentLength = 0
    } else {
      guard lengths.count == 1, let text = lengths.first, !text.isEmpty, text.count <= 19,
        text.allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(text)
      else { throw RequestRefusal(400, "the Content-Length is not one whole number") }
      let limit =
        method == .POST && targetParts[0] == "/api/uploads" ? limits.upload : limits.body
      guard length <= limit else {
        throw RequestRefusal(413, "the request body is longer than \(limit) bytes")
      }
      contentLength = length
    }
  }
}
