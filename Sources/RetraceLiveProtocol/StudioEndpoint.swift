import Foundation

/// Where a link connects: the Studio's host and port, and its token.
package struct StudioEndpoint: Sendable, Equatable {
  /// The host as written in the address: a name, an IPv4 address, or an IPv6 address
  /// without its brackets.
  package var host: String
  /// The port.
  package var port: UInt16
  /// The Studio's token, which the link sends as `Authorization: Bearer T`.
  package var token: String
  /// The path of the WebSocket endpoint.
  package var path = LiveProtocol.endpointPath

  /// The Host header's value: `HOST:PORT`, an IPv6 address in brackets.
  package var hostHeader: String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
  }

  /// Parses what `retrace serve` prints (`http://HOST:PORT/?token=T`, with or without its
  /// `Retrace Studio:` label) or the endpoint's own address (`ws://HOST:PORT/api/live`, the
  /// token in `token` or in `?token=T`).
  ///
  /// - Throws: ``LiveProtocolError`` with ``LiveProtocolError/Code/invalidAddress``, saying
  ///   what is wrong and what is expected.
  package init(parsing address: String, token explicitToken: String?) throws(LiveProtocolError) {
    var text = address.trimmingCharacters(in: .whitespacesAndNewlines)
    if text.hasPrefix("Retrace Studio:") {
      text = String(text.dropFirst("Retrace Studio:".count))
        .trimmingCharacters(in: .whitespaces)
    }
    func invalid(_ why: String) -> LiveProtocolError {
      LiveProtocolError(
        "\(why): expected http://HOST:PORT/?token=T (as `retrace serve` prints) or ws://HOST:PORT\(LiveProtocol.endpointPath), not \(address)",
        code: .invalidAddress)
    }
    let scheme: String
    if text.hasPrefix("http://") {
      scheme = "http"
    } else if text.hasPrefix("ws://") {
      scheme = "ws"
    } else {
      throw invalid("not an http:// or ws:// address")
    }
    var rest = Substring(text.dropFirst(scheme.count + 3))
    // The authority ends at the path or the query.
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    rest = rest[authorityEnd...]
    var query = Substring("")
    if let mark = rest.firstIndex(of: "?") {
      query = rest[rest.index(after: mark)...]
      rest = rest[..<mark]
    }
    if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
    let path = rest.isEmpty ? "/" : String(rest)
    switch scheme {
    case "http" where path != "/":
      throw invalid("an http:// address is the Studio's page, path /")
    case "ws" where path != LiveProtocol.endpointPath:
      throw invalid("a ws:// address is the live endpoint, path /api/live")
    default: break
    }
    guard !authority.contains("@") else { throw invalid("user information is not allowed") }
    // HOST, [IPv6] or either with :PORT.
    var hostPart: Substring
    var portPart: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { throw invalid("unclosed [") }
      hostPart = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw invalid("junk after ]") }
        portPart = after.dropFirst()
      }
    } else if let colon = authority.lastIndex(of: ":") {
      hostPart = authority[..<colon]
      portPart = authority[authority.index(after: colon)...]
    } else {
      hostPart = authority
    }
    guard !hostPart.isEmpty else { throw invalid("no host") }
    let port: UInt16
    if let portPart {
      guard let value = UInt16(portPart), value > 0 else { throw invalid("bad port") }
      port = value
    } else {
      port = 80
    }
    var queryToken: String?
    for item in query.split(separator: "&") {
      let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      if pair.count == 2, pair[0] == "token" {
        queryToken = String(pair[1]).removingPercentEncoding ?? String(pair[1])
      }
    }
    guard let token = explicitToken ?? queryToken, !token.isEmpty else {
      throw invalid("no token (the Studio refuses a session without it)")
    }
    guard token.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else {
      throw invalid("the token must be printable ASCII")
    }
    self.host = hostPart.lowercased()
    self.port = port
    self.token = token
  }
}
