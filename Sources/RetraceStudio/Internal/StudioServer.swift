import FlyingFox
import FlyingSocks
import Foundation
import RetraceCLI
import RetraceDebugger
import RetraceLog
import Synchronization

/// The Studio's HTTP server: FlyingFox on one address, answering every request with
/// ``StudioHandler``.
final class StudioServer: Sendable {
  let catalog: SessionCatalog
  let address: ListenAddress
  let port: UInt16
  let token: String
  private let server: HTTPServer
  private let running = Mutex<Task<Void, any Error>?>(nil)
  private let handler: StudioHandler

  /// A server of `catalog`'s sessions, and of the live sessions that apps start, recorded in
  /// `recordDirectory` and read with `registry`'s domains and `flows`.
  ///
  /// The registry and the flows are given, not read from the command's task-local context:
  /// the server's work runs on threads and tasks of its own, which see no task-local value.
  /// A live app's message may hold `maximumLiveMessageSize` bytes (``LiveFrames``), and
  /// `endedLiveSegmentLimit` ended live segments stay listed (``LiveHub``).
  init(
    catalog: SessionCatalog, address: ListenAddress, port: UInt16, token: String,
    recordDirectory: String = "retrace-live", registry: DomainRegistry,
    flows: [NavigationFlow],
    maximumLiveMessageSize: Int = LiveFrames.defaultMaximumMessageSize,
    endedLiveSegmentLimit: Int = LiveHub.defaultEndedSegmentLimit
  ) {
    self.catalog = catalog
    self.address = address
    self.port = port
    self.token = token
    let hub = LiveHub(
      catalog: catalog, registry: registry, flows: flows, recordDirectory: recordDirectory,
      endedSegmentLimit: endedLiveSegmentLimit)
    let handler = StudioHandler(
      catalog: catalog, token: token, page: PageResources.load(), hub: hub,
      maximumLiveMessageSize: maximumLiveMessageSize)
    self.handler = handler
    let socketAddress: any SocketAddress =
      address.isIPv6
      ? (try? sockaddr_in6.inet6(ip6: address.ip, port: port)) ?? sockaddr_in6.loopback(port: port)
      : (try? sockaddr_in.inet(ip4: address.ip, port: port)) ?? sockaddr_in.inet(port: port)
    server = HTTPServer(
      config: HTTPServer.Configuration(
        address: socketAddress, timeout: 3_600,
        pool: NoDelaySocketPool(base: HTTPServer.defaultPool()), logger: .disabled),
      handler: handler)
  }

  /// Starts listening and returns the page's address with the token,
  /// `http://HOST:PORT/?token=T`.
  ///
  /// - Throws: `TraceError` (`io`) when the address cannot be listened on (a port in use).
  func start() async throws -> String {
    let server = self.server
    let failure = Mutex<(any Error)?>(nil)
    let task = Task {
      do {
        try await server.run()
      } catch {
        failure.withLock { $0 = error }
        throw error
      }
    }
    running.withLock { $0 = task }
    // Listening, or failed to (a port in use): whichever comes first, within 60 s. A port in
    // use fails at once; only a machine so busy that the server's task waits for a thread
    // (a whole test suite on two cores) takes more than a moment.
    let deadline = ContinuousClock.now + .seconds(60)
    while await !server.isListening {
      if let error = failure.withLock({ $0 }) {
        throw TraceError(
          .io, "cannot listen on \(address.urlHost):\(port): \(Self.describe(error))")
      }
      guard ContinuousClock.now < deadline else {
        task.cancel()
        throw TraceError(.io, "cannot listen on \(address.urlHost):\(port): no answer in 60 s")
      }
      try await Task.sleep(for: .milliseconds(5))
    }
    var bound = port
    if case .ip4(_, let actual)? = await server.listeningAddress { bound = actual }
    if case .ip6(_, let actual)? = await server.listeningAddress { bound = actual }
    handler.serve(address, port: bound)
    return "http://\(address.urlHost):\(bound)/?token=\(token)"
  }

  /// Waits until the server stops.
  func wait() async throws {
    guard let task = running.withLock({ $0 }) else { return }
    try await task.value
  }

  /// Stops listening and closes the connections.
  func stop() async {
    await server.stop(timeout: 1)
  }

  private static func describe(_ error: any Error) -> String {
    if let error = error as? SocketError {
      switch error {
      case .failed(_, let errno, let message):
        return errno == EADDRINUSE ? "the address is in use" : message
      default: return "\(error)"
      }
    }
    return "\(error)"
  }
}
