import FlyingFox
import Foundation
import Testing

@testable import RetraceStudio

/// Requests a hostile or careless client sends the Studio: a query or a path that is not
/// percent-encoded UTF-8, an absolute URL as the request target. Each is answered with a
/// status and one line that says what is wrong.
@Suite struct HostileRequestTests {
  typealias RawClient = RequestLimitsTests.RawClient

  /// Sends `target` with the token and the Host served, and reads the whole answer.
  static func send(_ target: String, port: UInt16) async throws -> (status: Int?, text: String) {
    let client = try await RawClient(port: port)
    defer { client.close() }
    try await client.send(
      "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        + "Authorization: Bearer \(StudioHarness.token)\r\nConnection: close\r\n\r\n")
    let (text, _) = await client.readToEnd()
    return (RequestLimitsTests.status(text), text)
  }

  /// The `error` of the JSON body that ends `text`.
  static func error(_ text: String) -> String? {
    guard let start = text.range(of: "\r\n\r\n") else { return nil }
    let body = Data(text[start.upperBound...].utf8)
    return (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? String
  }

  /// A query value that is not percent-encoded UTF-8 was taken as no value (`?at=%ff` was
  /// the last state, 200): it is 400, naming the parameter. So is a name that is not.
  @Test(arguments: [
    ("/api/sessions/counter/state?at=%ff", "the query parameter 'at' is not percent-encoded"),
    ("/api/sessions/counter/actions?from=1&to=%e2%82", "the query parameter 'to' is not"),
    ("/api/sessions/counter/state?%ff=1", "a query parameter's name is not percent-encoded"),
    ("/api/sessions/counter/state?at=%zz", "the query parameter 'at' is not"),
  ])
  func anUndecodableQueryIs400NamingTheParameter(target: String, message: String) async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let (status, text) = try await Self.send(target, port: studio.port)
    #expect(status == 400, "\(text)")
    let error = try #require(Self.error(text), "\(text)")
    #expect(error.contains(message), "\(error)")
    #expect(!error.contains("\n"))
    // A value that decodes is read as before.
    #expect(
      try await Self.send("/api/sessions/counter/state?at=%31", port: studio.port).status == 200)
  }

  /// The page's `URLSearchParams` writes a space as `+`: a text filter or a search for
  /// `Internet provider` found nothing while `+` was read as a plus. `%2B` is a plus.
  @Test func aPlusInTheQueryIsASpace() async throws {
    let studio = try await StudioHarness.start(["banking-session.trace"])
    defer { Task { await studio.stop() } }
    func count(_ target: String) async throws -> Int? {
      let (status, text) = try await Self.send(target, port: studio.port)
      #expect(status == 200, "\(text)")
      guard let start = text.range(of: "\r\n\r\n") else { return nil }
      let body = Data(text[start.upperBound...].utf8)
      let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
      return (object?["count"] as? Int) ?? (object?["actions"] as? [Any])?.count
    }
    let search = "/api/sessions/banking-session/search?at=3000&limit=10000&q="
    let spaced = try #require(try await count(search + "Internet%20provider"))
    #expect(spaced > 0)
    #expect(try await count(search + "Internet+provider") == spaced)
    #expect(try await count(search + "Internet%2Bprovider") == 0)
    let actions = "/api/sessions/banking-session/actions?limit=5000&text="
    let listed = try #require(try await count(actions + "Internet%20provider"))
    #expect(listed > 0)
    #expect(try await count(actions + "Internet+provider") == listed)
  }

  /// A path that is not percent-encoded UTF-8 was the page (200, HTML): under `/api/` it is
  /// 400, elsewhere 404, both JSON.
  @Test(arguments: [
    ("/api/%ff", 400), ("/api/sessions/%ff", 400), ("/api/sessions/counter/%c3", 400),
    ("/%ff", 404), ("/index.html%ff", 404),
  ])
  func anUndecodablePathIsAJSONError(target: String, expected: Int) async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let (status, text) = try await Self.send(target, port: studio.port)
    #expect(status == expected, "\(text)")
    #expect(text.contains("Content-Type: application/json"), "\(text)")
    #expect(Self.error(text)?.contains("percent-encoded UTF-8") == true, "\(text)")
  }

  /// An absolute URL as the request target (`GET http://evil.example/api/sessions`) was
  /// served as its path: only a path (origin-form) is, whatever host the URL names.
  @Test(arguments: [
    "http://evil.example/api/sessions", "http://127.0.0.1:PORT/api/sessions", "*",
    "evil.example:80", "api/sessions",
  ])
  func aTargetThatIsNotAPathIs400(target: String) async throws {
    let studio = try await StudioHarness.start(["counter.trace"])
    defer { Task { await studio.stop() } }
    let (status, text) = try await Self.send(
      target.replacingOccurrences(of: "PORT", with: "\(studio.port)"), port: studio.port)
    #expect(status == 400, "\(text)")
    #expect(Self.error(text)?.contains("the request target must be a path") == true, "\(text)")
    #expect(!text.contains("\"id\""), "sessions were listed: \(text)")
    #expect(try await Self.send("/api/sessions", port: studio.port).status == 200)
  }
}
