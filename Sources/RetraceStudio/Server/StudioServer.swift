import FlyingFox
import FlyingSocks
import Foundation
import RetraceDebugger
import RetraceLog
import Synchronization

/// The Studio's HTTP server: reads each request itself, within ``RequestLimits``, and answers
/// it with ``StudioHandler``; a WebSocket upgrade the handler accepts (the live link) is
/// relayed to FlyingFox, which listens on a Unix socket in a directory only this user can
/// enter.
///
/// FlyingFox's own request parser takes time quadratic in a line's length and has no limits
/// or read timeouts, so no request reaches it before the handler has accepted it.
final class StudioServer: Sendable {
  let catalog: SessionCatalog
  let address: ListenAddress
  let port: UInt16
  let token: String
  let limits: RequestLimits
  /// The most bytes a live app's message may hold, and so one of its frames.
  let maximumLiveMessageSize: Int
  private let webSocketServer: HTTPServer
  private let webSocketDirectory: String
  private let pool: any AsyncSocketPool
  private let running = Mutex<(listener: Task<Void, Never>, sockets: Task<Void, any Error>)?>(nil)
  private let listening = Mutex<Socket?>(nil)
  private let handler: StudioHandler
  /// The clients' connections held, and which wait for a request.
  let connections: OpenConnections

  /// A server of `catalog`'s sessions, and of the live sessions that apps start, recorded in
  /// `recordDirectory` and read with `registry`'s domains and `flows`.
  ///
  /// The registry and the flows are given, not read from the command's task-local context:
  /// the server's work runs on threads and tasks of its own, which see no task-local value.
  /// A live app's message may hold `maximumLiveMessageSize` bytes (``LiveFrames``),
  /// `endedLiveSegmentLimit` ended live segments stay listed, and at most
  /// `liveConnectionLimit` live connections are served at once (``LiveHub``). Files the page
  /// uploads are written into `uploadDirectory` (a new temporary directory by default) and
  /// read with `key` (``Uploads``). `commandName` is the debugger's name, in the commands its
  /// errors suggest.
  init(
    catalog: SessionCatalog, address: ListenAddress, port: UInt16, token: String,
    recordDirectory: String = "retrace-live", registry: DomainRegistry,
    flows: [NavigationFlow],
    maximumLiveMessageSize: Int = LiveFrames.defaultMaximumMessageSize,
    endedLiveSegmentLimit: Int = LiveHub.defaultEndedSegmentLimit,
    liveConnectionLimit: Int = LiveHub.defaultConnectionLimit,
    limits: RequestLimits = RequestLimits(), uploadDirectory: String? = nil,
    key: TracePrivateKey? = nil, commandName: String = "retrace"
  ) {
    self.catalog = catalog
    self.address = address
    self.port = port
    self.token = token
    self.limits = limits
    self.maximumLiveMessageSize = maximumLiveMessageSize
    connections = OpenConnections(limit: limits.connections)
    let hub = LiveHub(
      catalog: catalog, registry: registry, flows: flows, recordDirectory: recordDirectory,
      endedSegmentLimit: endedLiveSegmentLimit, connectionLimit: liveConnectionLimit,
      commandName: commandName)
    let handler = StudioHandler(
      catalog: catalog, token: token, page: PageResources.load(), hub: hub,
      maximumLiveMessageSize: maximumLiveMessageSize,
      uploads: Uploads(
        directory: uploadDirectory ?? Uploads.temporaryDirectory(), limit: limits.upload,
        catalog: catalog, registry: registry, flows: flows, key: key, commandName: commandName))
    self.handler = handler
    pool = NoDelaySocketPool(base: HTTPServer.defaultPool())
    webSocketDirectory = SocketDirectories.make()
    webSocketServer = HTTPServer(
      config: HTTPServer.Configuration(
        address: sockaddr_un.unix(path: webSocketDirectory + "/live"), timeout: 3_600,
        pool: pool, logger: .disabled),
      handler: handler)
  }

  /// Starts listening and returns the page's address with the token,
  /// `http://HOST:PORT/?token=T`.
  ///
  /// - Throws: `TraceError` (`io`) when the address cannot be listened on (a port in use).
  func start() async throws -> String {
    let server = self.webSocketServer
    let failure = Mutex<(any Error)?>(nil)
    let sockets = Task {
      do {
        try await server.run()
      } catch {
        failure.withLock { $0 = error }
        throw error
      }
    }
    // FlyingFox's server runs the socket pool that every connection waits on: listening, or
    // failed to, within 60 s. Only a machine so busy that the server's task waits for a
    // thread (a whole test suite on two cores) takes more than a moment.
    let deadline = ContinuousClock.now + .seconds(60)
    while await !server.isListening {
      if let error = failure.withLock({ $0 }) {
        throw TraceError(
          .io,
          "cannot start the live link's server in \(webSocketDirectory): \(Self.describe(error))")
      }
      guard ContinuousClock.now < deadline else {
        sockets.cancel()
        throw TraceError(.io, "cannot listen on \(address.urlHost):\(port): no answer in 60 s")
      }
      try await Task.sleep(for: .milliseconds(5))
    }
    let socket: Socket
    do {
      socket = try listen()
    } catch {
      await server.stop(timeout: 0)
      throw TraceError(
        .io, "cannot listen on \(address.urlHost):\(port): \(Self.describe(error))")
    }
    var bound = port
    if case .ip4(_, let actual)? = try? socket.sockname() { bound = actual }
    if case .ip6(_, let actual)? = try? socket.sockname() { bound = actual }
    handler.serve(address, port: bound)
    let accepting = try AsyncSocket(socket: socket, pool: pool)
    let (handler, limits, frameLimit, path, pool) = (
      self.handler, self.limits, maximumLiveMessageSize, webSocketDirectory + "/live", pool
    )
    let largeBodies = LargeBodyGate { [handler] in handler.refusalBeforeBody($0) }
    let largeAnswers = AsyncLimit(2)
    let connections = self.connections
    OpenConnections.raiseDescriptorLimit()
    let listener = Task {
      await Self.accept(on: accepting, connections: connections) { client in
        StudioConnection(
          socket: client, handler: handler, limits: limits, frameLimit: frameLimit,
          webSocketServer: {
            try await AsyncSocket.connected(to: sockaddr_un.unix(path: path), pool: pool)
          }, largeBodies: largeBodies, largeAnswers: largeAnswers, connections: connections)
      }
    }
    running.withLock { $0 = (listener, sockets) }
    listening.withLock { $0 = socket }
    return "http://\(address.urlHost):\(bound)/?token=\(token)"
  }

  private func listen() throws -> Socket {
    let socketAddress: any SocketAddress =
      address.isIPv6
      ? (try? sockaddr_in6.inet6(ip6: address.ip, port: port)) ?? sockaddr_in6.loopback(port: port)
      : (try? sockaddr_in.inet(ip4: address.ip, port: port)) ?? sockaddr_in.inet(port: port)
    let socket = try Socket(domain: Int32(type(of: socketAddress).family))
    do {
      try socket.setValue(true, for: .localAddressReuse)
      #if canImport(Darwin)
        try socket.setValue(true, for: .noSIGPIPE)
      #endif
      try socket.bind(to: socketAddress)
      try socket.listen()
    } catch {
      try? socket.close()
      throw error
    }
    return socket
  }

  /// Accepts connections until the task is cancelled, each served in a task of its own.
  private static func accept(
    on socket: AsyncSocket, connections: OpenConnections,
    connection: @escaping @Sendable (AsyncSocket) -> StudioConnection
  ) async {
    await withDiscardingTaskGroup { group in
      while !Task.isCancelled {
        do {
          let client = try await socket.accept()
          // Past the limit, with every connection busy: this one is closed unanswered.
          guard connections.admit() else {
            try? client.close()
            continue
          }
          group.addTask {
            await connection(client).run()
            connections.ended()
          }
        } catch is CancellationError {
          break
        } catch SocketError.disconnected {
          break
        } catch {
          // Out of file descriptors, or a connection reset before it was accepted: the
          // server goes on, after a moment.
          try? await Task.sleep(for: .milliseconds(50))
        }
      }
      group.cancelAll()
    }
  }

  /// Waits until the server stops.
  func wait() async throws {
    guard let tasks = running.withLock({ $0 }) else { return }
    await tasks.listener.value
    try await tasks.sockets.value
  }

  /// Stops listening and closes the connections.
  func stop() async {
    if let tasks = running.withLock({ $0 }) {
      // The connections end as their reads are cancelled; one whose request is still being
      // computed ends when the computation does.
      tasks.listener.cancel()
    }
    if let socket = listening.withLock({ state -> Socket? in
      defer { state = nil }
      return state
    }) {
      try? socket.close()
    }
    await webSocketServer.stop(timeout: 1)
    SocketDirectories.remove(webSocketDirectory)
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

/// The directories of FlyingFox's Unix sockets that this process made: each is removed when its
/// server stops, and any left when the process exits or `serve` is interrupted.
enum SocketDirectories {
  private static let paths = Mutex<Set<String>>([])
  private static let removedAtExit: Void = {
    atexit { SocketDirectories.removeAll() }
  }()

  /// A new directory that only this user can enter: short, since a socket's path may not pass
  /// 104 bytes on macOS.
  static func make() -> String {
    _ = removedAtExit
    var base = NSTemporaryDirectory()
    while base.hasSuffix("/") { base.removeLast() }
    if base.isEmpty || base.count > 60 { base = "/tmp" }
    var template = Array((base + "/retrace-studio-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { return base + "/retrace-studio-\(getpid())" }
    let path = String(cString: made)
    paths.withLock { _ = $0.insert(path) }
    return path
  }

  static func remove(_ path: String) {
    paths.withLock { _ = $0.remove(path) }
    try? FileManager.default.removeItem(atPath: path)
  }

  static func removeAll() {
    for path in paths.withLock({ paths in
      defer { paths = [] }
      return paths
    }) {
      try? FileManager.default.removeItem(atPath: path)
    }
  }
}
