import FlyingFox
import Foundation
import Retrace
import RetraceDebugger
import RetraceLiveProtocol
import RetraceLog
import Synchronization

/// The Studio's end of the live link (`GET /api/live`, docs/LIVE.md): reads each
/// connection's messages in order, starts a ``LiveSession`` segment in the catalog at each
/// `hello`, and hands it the messages that follow.
///
/// Each message is decoded and taken (a state decoded, actions reduced and recorded, a
/// checkpoint hashed) on the ``WorkKind/live`` pool, never on the concurrency pool's few
/// threads, which answer every request: apps that send large states or many actions keep
/// the page answered at once. At most ``connectionLimit`` connections are served at once.
final class LiveHub: WSMessageHandler, Sendable {
  /// The sessions served, where each segment is added when it starts.
  let catalog: SessionCatalog
  /// The domains an app's `hello` may name.
  let registry: DomainRegistry
  /// The navigation flows of the domains that have one.
  let flows: [NavigationFlow]
  /// The directory segments are recorded in, created when the first one starts.
  let recordDirectory: String
  /// How many segments each session id has had.
  private let segments = Mutex<[String: Int]>([:])
  /// How many live segments that have ended stay listed; the oldest of more are removed
  /// from the list (their recordings stay in ``recordDirectory``).
  let endedSegmentLimit: Int

  /// How many ended live segments stay listed by default: 8.
  static let defaultEndedSegmentLimit = 8
  /// How many connections are served at once, at most; an upgrade past it is refused (503).
  let connectionLimit: Int
  /// The debugger's name, in the commands its messages suggest (`retrace serve …`).
  let commandName: String
  /// How many connections are being served.
  private let connections = Mutex(0)

  /// How many live connections are served at once by default: 32. Each holds a message of
  /// up to the message limit and a segment's states while it is being read.
  static let defaultConnectionLimit = 32

  /// The close code of a connection past ``connectionLimit``: 1013, "try again later".
  static let tryAgainLater: UInt16 = 1013

  /// How many commands (`jump`, `dispatch`) an app is sent without answering them (with
  /// actions or a `jump`); one more is refused (503) rather than queued without limit.
  static let unreadMessageLimit = 16

  /// A hub that adds segments to `catalog`, reads them with `registry`'s domains and
  /// `flows`, records them in `recordDirectory`, keeps `endedSegmentLimit` ended ones
  /// listed, and serves at most `connectionLimit` connections at once.
  init(
    catalog: SessionCatalog, registry: DomainRegistry, flows: [NavigationFlow],
    recordDirectory: String, endedSegmentLimit: Int = LiveHub.defaultEndedSegmentLimit,
    connectionLimit: Int = LiveHub.defaultConnectionLimit, commandName: String = "retrace"
  ) {
    precondition(endedSegmentLimit >= 0, "a negative number of ended segments to keep")
    precondition(connectionLimit > 0, "a live connection limit of at least one")
    self.connectionLimit = connectionLimit
    self.endedSegmentLimit = endedSegmentLimit
    self.catalog = catalog
    self.registry = registry
    self.flows = flows
    self.recordDirectory = recordDirectory
    self.commandName = commandName
  }

  /// Whether a new connection would be served now: fewer than ``connectionLimit`` are.
  var takesConnection: Bool { connections.withLock { $0 < connectionLimit } }

  /// The number of connections being served.
  var connectionCount: Int { connections.withLock { $0 } }

  /// Starts reading a new connection's messages; returns what the Studio sends on it. A
  /// connection past ``connectionLimit`` (upgrades that came together) is sent an `error`
  /// and closed with 1013, "try again later".
  func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
    let (outgoing, continuation) = AsyncStream<WSMessage>.makeStream()
    let admitted = connections.withLock { count in
      guard count < connectionLimit else { return false }
      count += 1
      return true
    }
    guard admitted else {
      continuation.yield(.data(Data(StudioMessage.error(tooMany).encoded())))
      continuation.yield(.close(WSCloseCode(Self.tryAgainLater, reason: "")))
      continuation.finish()
      return outgoing
    }
    Task {
      await TrapReport.$context.withValue("taking a live app's message") {
        await self.serve(client, outgoing: continuation)
      }
      self.connections.withLock { $0 -= 1 }
    }
    return outgoing
  }

  /// What a connection past ``connectionLimit`` is told.
  var tooMany: String {
    "the Studio serves at most \(connectionLimit) live connections at once (\(commandName) serve --live-connection-limit)"
  }

  /// Reads one connection to its end: each message is taken on the ``WorkKind/live`` pool,
  /// in order.
  private func serve(
    _ client: AsyncStream<WSMessage>, outgoing: AsyncStream<WSMessage>.Continuation
  ) async {
    var segment: (any LiveSegment)?
    reading: for await message in client {
      let bytes: Data
      switch message {
      case .data(let data): bytes = data
      case .text:
        refuse("the live link sends binary messages, not text", outgoing)
        break reading
      case .close: break reading
      }
      do {
        segment = try await offload(.live) { [self, segment] in
          try take(bytes, after: segment, outgoing: outgoing)
        }
      } catch let error as LiveProtocolError {
        refuse(error.description, outgoing)
        break reading
      } catch {
        refuse("\(error)", outgoing)
        break reading
      }
    }
    let last = segment
    _ = try? await offload(.live) { [self] in end(last) }
    outgoing.finish()
  }

  /// Takes one message of a connection whose current segment is `segment`; returns the
  /// segment after it (a new one after a `hello`).
  private func take(
    _ bytes: Data, after segment: (any LiveSegment)?,
    outgoing: AsyncStream<WSMessage>.Continuation
  ) throws(LiveProtocolError) -> (any LiveSegment)? {
    let decoded = try AppMessage(decoding: bytes)
    switch decoded {
    case .hello(let hello):
      end(segment)
      do {
        return try start(hello, outgoing: outgoing)
      } catch {
        // The app is told why; so is whoever reads the Studio's log.
        let app = [hello.app["name"], hello.app["version"]].compactMap { $0 }.joined(separator: " ")
        warn(
          "live session of \(app.isEmpty ? "an app" : app) (session \(hello.sessionID)) refused: \(error.description)"
        )
        throw error
      }
    case .unknown(let type):
      // A newer app's message is answered and passed over, but only after the hello: a
      // connection that never says hello would hold one of the live connections for good.
      guard segment != nil else {
        throw LiveProtocolError("a message of type '\(type)' before the hello")
      }
      outgoing.yield(.data(Data(StudioMessage.error("unknown message type '\(type)'").encoded())))
      return segment
    default:
      guard let segment else {
        throw LiveProtocolError("a message before the hello")
      }
      try segment.receive(decoded)
      return segment
    }
  }

  /// Ends `segment` (its recording is closed and its states let go of), and removes the
  /// oldest ended segments past ``endedSegmentLimit`` from the list.
  private func end(_ segment: (any LiveSegment)?) {
    guard let segment else { return }
    segment.disconnect()
    let removed = catalog.removeEndedLiveSegments(keeping: endedSegmentLimit)
    for session in removed {
      let recording = (session as? any LiveSegment)?.recordedTo ?? "its recording"
      warn(
        "live session \(session.id) removed from the list (more than \(endedSegmentLimit) have ended); \(recording) keeps it"
      )
    }
    if !removed.isEmpty { releaseInBackground(removed, returningMemory: true) }
  }

  /// Sends an `error` message and closes the connection.
  private func refuse(_ message: String, _ outgoing: AsyncStream<WSMessage>.Continuation) {
    outgoing.yield(.data(Data(StudioMessage.error(message).encoded())))
    outgoing.yield(.close(WSCloseCode(1008, reason: "")))
  }

  /// Starts a segment for `hello` in the catalog.
  private func start(_ hello: AppMessage.Hello, outgoing: AsyncStream<WSMessage>.Continuation)
    throws(LiveProtocolError) -> any LiveSegment
  {
    guard hello.version == LiveProtocol.version else {
      throw LiveProtocolError(
        "this Studio speaks protocol \(LiveProtocol.version), not \(hello.version)")
    }
    let domain: any Domain
    do {
      domain = try registry.domain(named: hello.domain)
    } catch {
      let known = registry.names.joined(separator: ", ")
      throw LiveProtocolError(
        "this Studio does not know the domain '\(hello.domain)' (it knows \(known)): serve with a `\(commandName)` built with that domain registered (RetraceCommand.main(domains:))"
      )
    }
    // A trace's first sequence number is at most 2^63 - 1 (TRACE_FORMAT §2.2), which also
    // keeps the sequence numbers counted on from it clear of overflow.
    guard hello.sequence <= UInt64(Int64.max) - UInt64(UInt32.max) else {
      throw LiveProtocolError("the hello's sequence number \(hello.sequence) is too large")
    }
    guard hello.actionSchemaVersion == domain.actionSchemaVersion else {
      throw LiveProtocolError(
        "the app's \(hello.domain) actions are of schema version \(hello.actionSchemaVersion), this Studio's of version \(domain.actionSchemaVersion)"
      )
    }
    let number = segments.withLock { segments in
      segments[hello.sessionID, default: 0] += 1
      return segments[hello.sessionID]!
    }
    do {
      try FileManager.default.createDirectory(
        atPath: recordDirectory, withIntermediateDirectories: true)
    } catch {
      throw LiveProtocolError(
        "the Studio cannot record the session in \(recordDirectory): \(error.localizedDescription)"
      )
    }
    let shortID = SessionCatalog.slug(String(hello.sessionID.prefix(8)))
    let base = "\(domain.name)-live-\(shortID)" + (number > 1 ? "-segment-\(number)" : "")
    let path = try Self.recordingPath(
      in: recordDirectory, "\(domain.name)-\(Self.stamp())-\(shortID)-\(number)")
    let flow = flows.first { $0.domain == domain.name }
    func make<E: Domain>(_ domain: E) throws(LiveProtocolError) -> any LiveSegment {
      do {
        return try catalog.add(idBase: base) { id in
          try LiveSession<E>(
            id: id, domain: domain, hello: hello, segment: number, path: path, flow: flow,
            outgoing: outgoing)
        }
      } catch {
        // The name reserved is let go of: an empty file is no recording.
        try? FileManager.default.removeItem(atPath: path)
        throw error as? LiveProtocolError ?? LiveProtocolError("\(error)")
      }
    }
    let segment = try make(domain)
    let app = hello.app["name"].map { " from \($0)" } ?? ""
    warn("live session \(segment.id) (\(hello.domain)\(app)): recorded to \(path)")
    return segment
  }

  /// `DIRECTORY/NAME.trace`, or `NAME-2.trace`, … the first that no file has, created
  /// empty to reserve it: two segments that start at once (their apps' session ids alike in
  /// their first 8 characters, in the same second) never get one file, whose recorders
  /// would truncate each other's journal under its memory map and stop the Studio (SIGBUS).
  static func recordingPath(in directory: String, _ name: String) throws(LiveProtocolError)
    -> String
  {
    let path = try NewFile.create(name, suffix: ".trace", in: directory) {
      path throws(LiveProtocolError) in
      let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
      if descriptor >= 0 {
        close(descriptor)
        return true
      }
      guard errno == EEXIST else {
        throw LiveProtocolError(
          "the Studio cannot record the session in \(directory): \(String(cString: strerror(errno)))"
        )
      }
      return false
    }
    guard let path else {
      throw LiveProtocolError(
        "the Studio cannot record the session in \(directory): \(NewFile.attempts) recordings are named \(name)"
      )
    }
    return path
  }

  /// The time now as `yyyyMMdd-HHmmss`, in UTC.
  private static func stamp() -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd-HHmmss"
    return formatter.string(from: Date())
  }
}
