import FlyingFox
import FlyingSocks
import Foundation
import RetraceCLI
import RetraceDebugger
import RetraceExamples
import RetraceLog
import Testing

@testable import RetraceStudio

/// A Studio server on a free port of 127.0.0.1, and a client that sends it raw requests
/// (any Host header, with or without the token).
struct StudioHarness {
  static let token = "test-token-0123456789"
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static func trace(_ name: String) -> String {
    packageRoot.appendingPathComponent("traces/\(name)").path
  }

  let server: StudioServer
  let port: UInt16
  /// The directory a Studio made by `live(domains:)` records in, which `end()` removes.
  var liveDirectory: String? = nil

  /// Waits, up to 30 s, until the server holds `count` connections of which `idle` wait for
  /// a request: what a fixed pause cannot promise on a loaded machine.
  func waitForConnections(_ count: Int, idle: Int) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while server.connections.count != count || server.connections.idleCount != idle {
      try #require(
        ContinuousClock.now < deadline,
        "the server holds \(server.connections.count) connections, \(server.connections.idleCount) idle; expected \(count), \(idle) idle"
      )
      try await Task.sleep(for: .milliseconds(10))
    }
  }

  /// Serves the sample traces `names`, the files at `paths`, and `extra` sessions after them.
  static func start(
    _ names: [String], paths: [String] = [], extra: [any StudioSession] = [],
    limits: RequestLimits = RequestLimits(), uploadDirectory: String? = nil,
    liveConnectionLimit: Int = LiveHub.defaultConnectionLimit, recordDirectory: String? = nil
  ) async throws
    -> StudioHarness
  {
    let registry = DomainRegistry(Examples.domains + [bankingWithFeesDomain])
    let flows = [
      NavigationFlow(domain: postsDomain, navigation: { $0.navigation }, rules: PostsFlow.rules)
    ]
    let catalog = try SessionCatalog.open(
      names.map(trace) + paths, key: nil, registry: registry, flows: flows)
    let server = StudioServer(
      catalog: SessionCatalog(sessions: catalog.sessions + extra),
      address: ListenAddress("127.0.0.1")!, port: 0, token: token,
      recordDirectory: recordDirectory ?? NSTemporaryDirectory() + "retrace-harness-live",
      registry: registry, flows: flows, liveConnectionLimit: liveConnectionLimit, limits: limits,
      uploadDirectory: uploadDirectory)
    let url = try await server.start()
    let port = try #require(URLComponents(string: url)?.port)
    #expect(url == "http://127.0.0.1:\(port)/?token=\(token)")
    return StudioHarness(server: server, port: UInt16(port))
  }

  /// A response: its status, headers and body.
  struct Response {
    var status: Int
    var headers: HTTPHeaders
    var body: Data

    /// The body as JSON.
    func json() throws -> Any {
      try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
    }

    /// The `error` field of a JSON error body.
    func error() throws -> String? {
      (try json() as? [String: Any])?["error"] as? String
    }
  }

  /// Sends `GET path?query` with the token as a bearer token (or in the query, or not at all)
  /// and the Host header of the address served unless `host` is given.
  func get(
    _ path: String, _ query: [String: String] = [:], token: TokenPlacement = .header,
    host: String? = nil, method: HTTPMethod = .GET, body: Data = Data()
  ) async throws -> Response {
    var headers: HTTPHeaders = [.host: host ?? "127.0.0.1:\(port)"]
    var items = query.sorted { $0.key < $1.key }.map {
      HTTPRequest.QueryItem(name: $0.key, value: $0.value)
    }
    switch token {
    case .header: headers[.authorization] = "Bearer \(Self.token)"
    case .query: items.append(.init(name: "token", value: Self.token))
    case .wrong: headers[.authorization] = "Bearer not-the-token"
    case .none: break
    }
    let request = HTTPRequest(
      method: method, version: .http11, path: path, query: items, headers: headers,
      body: HTTPBodySequence(data: body))
    let response = try await Self.send(request, port: port)
    return Response(
      status: response.statusCode.code, headers: response.headers, body: try await response.bodyData
    )
  }

  /// Sends `request` to the Studio at `port` on 127.0.0.1, connecting again (up to three
  /// times) when the connection times out: the test process's socket pool can fall seconds
  /// behind while other suites load both cores, and a connection that was never made sent
  /// nothing.
  static func send(_ request: HTTPRequest, port: UInt16) async throws -> HTTPResponse {
    var attempts = 0
    while true {
      var client = HTTPClient()
      do {
        return try await client.sendHTTPRequest(
          request, to: try sockaddr_in.inet(ip4: "127.0.0.1", port: port))
      } catch SocketError.timeout where attempts < 3 {
        attempts += 1
      }
    }
  }

  /// Where a request carries the token.
  enum TokenPlacement {
    case header, query, wrong, none
  }

  func stop() async {
    await server.stop()
  }
}
