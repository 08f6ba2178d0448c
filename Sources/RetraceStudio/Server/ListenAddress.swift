import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The address `serve` listens on, from `--host`: an IPv4 or IPv6 literal, or `localhost`
/// (127.0.0.1). Host names other than `localhost` are refused: the Host header check
/// compares addresses, and a name could resolve to more than one.
struct ListenAddress: Sendable, Equatable {
  /// The address as given (`localhost` as such).
  let text: String
  /// The numeric address listened on.
  let ip: String
  /// Whether `ip` is IPv6.
  let isIPv6: Bool

  init?(_ text: String) {
    let trimmed =
      text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
    self.text = trimmed
    if trimmed.lowercased() == "localhost" {
      ip = "127.0.0.1"
      isIPv6 = false
      return
    }
    var v4 = in_addr()
    var v6 = in6_addr()
    if inet_pton(AF_INET, trimmed, &v4) == 1 {
      ip = trimmed
      isIPv6 = false
    } else if inet_pton(AF_INET6, trimmed, &v6) == 1 {
      // The canonical text (`::1` for `0:0:0:0:0:0:0:1`, lowercase), which is what a
      // browser sends in the Host header and what the checks below compare.
      var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
      guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return nil }
      ip = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      isIPv6 = true
    } else {
      return nil
    }
  }

  /// Whether only this machine can reach it: 127.0.0.0/8 or ::1.
  var isLoopback: Bool {
    isIPv6 ? ip == "::1" : ip.hasPrefix("127.")
  }

  /// The address as it goes into a URL or a Host header: IPv6 in brackets.
  var urlHost: String {
    isIPv6 ? "[\(ip)]" : (text.lowercased() == "localhost" ? "localhost" : ip)
  }

  /// Whether it is every interface's address (`0.0.0.0`, `::`).
  var isWildcard: Bool { ip == "0.0.0.0" || ip == "::" }

  /// Whether `host` (a Host header) may reach a server listening here on `port`: one of
  /// ``allowedHosts(port:)``; or, on every interface, any IP address with that port (a
  /// rebinding page sends a host name, never an address).
  func accepts(host: String, port: UInt16) -> Bool {
    let host = host.lowercased()
    if allowedHosts(port: port).contains(host) { return true }
    guard isWildcard, host.hasSuffix(":\(port)") else { return false }
    // `localhost` names this machine whatever the DNS says: no rebinding page can use it.
    if host == "localhost:\(port)" { return true }
    let name = String(host.dropLast(":\(port)".count))
    let literal =
      name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
    guard let address = ListenAddress(literal), address.text.lowercased() != "localhost" else {
      return false
    }
    return address.isIPv6 == name.hasPrefix("[")
  }

  /// The Host header values a request may carry: the address served, and `localhost` for a
  /// loopback address (what a browser sends for http://localhost:PORT).
  func allowedHosts(port: UInt16) -> Set<String> {
    var hosts: Set<String> = ["\(urlHost):\(port)".lowercased()]
    if isIPv6 { hosts.insert("[\(ip)]:\(port)") } else { hosts.insert("\(ip):\(port)") }
    if isLoopback { hosts.insert("localhost:\(port)") }
    return hosts
  }
}

/// The API's token.
enum StudioToken {
  /// 32 random hexadecimal digits (128 bits) from the system's generator.
  static func random() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<4).map { _ in
      let word = generator.next() as UInt32
      let hex = String(word, radix: 16)
      return String(repeating: "0", count: 8 - hex.count) + hex
    }.joined()
  }

  /// Whether `token` can be used: 8 to 256 characters that need no escaping in a URL.
  static func isValid(_ token: String) -> Bool {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~")
    return (8...256).contains(token.count) && token.allSatisfy { allowed.contains($0) }
  }

  /// Compares in time that does not depend on where the two first differ.
  static func matches(_ given: String, _ token: String) -> Bool {
    let a = Array(given.utf8)
    let b = Array(token.utf8)
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
  }
}
