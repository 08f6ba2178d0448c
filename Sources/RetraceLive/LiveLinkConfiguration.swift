import Retrace

/// How a ``LiveLink`` queues, checkpoints and reconnects.
///
/// ```swift
/// var configuration = LiveLinkConfiguration()
/// configuration.checkpointInterval = 64
/// let link = try LiveLink(domain: bankingDomain, studio: address, configuration: configuration)
/// ```
public struct LiveLinkConfiguration: Sendable {
  /// The most actions queued for the background sender. When it falls this far behind (or
  /// the connection is slow), further actions are dropped and counted
  /// (``LiveLink/droppedActionCount``) until the link resynchronizes with a new `hello`;
  /// `send` never waits. The default is 65,536.
  public var maxQueuedActions = 65_536

  /// A `checkpoint` (the state's hash) is sent after every action whose sequence number is
  /// a multiple of this, when the link is not still hashing the last one; 0 sends none.
  /// The default is 256.
  ///
  /// The store hands over its state at those actions only, and the hash is computed on a
  /// background task. When the link goes idle with actions no checkpoint covers (a session
  /// shorter than the interval, the end of a burst), it takes the store's state once more
  /// and sends a checkpoint of its last action, so that what the Studio shows is checked
  /// once the app stops acting.
  public var checkpointInterval: UInt64 = 256

  /// How long the link waits before its first reconnection attempt; each failed attempt
  /// doubles the wait, up to ``maximumBackoff``. The default is 0.25 s.
  public var initialBackoff: Duration = .milliseconds(250)

  /// The longest wait between reconnection attempts. The default is 5 s.
  public var maximumBackoff: Duration = .seconds(5)

  /// How long connecting and the WebSocket handshake may take. The default is 5 s.
  public var connectTimeout: Duration = .seconds(5)

  /// The largest message the link accepts from the Studio (a `jump` carries a whole
  /// state). The default is 256 MiB.
  public var maximumMessageSize = 256 << 20

  /// Creates the default configuration.
  public init() {}
}

/// Where a ``LiveLink``'s connection stands.
public enum LiveLinkStatus: Sendable, CustomStringConvertible {
  /// Opening the connection, or waiting to open it again.
  case connecting
  /// Connected: the Studio has the session's `hello`, and actions stream to it.
  case connected
  /// Not connected; the error is why the last connection ended or failed (`nil` before the
  /// link is attached to a store). The link tries again after its backoff.
  case disconnected(LiveLinkError?)
  /// Closed with ``LiveLink/close(timeout:)``, or the store it was attached to is gone.
  case closed

  /// One line, such as `disconnected: cannot connect to 127.0.0.1:7420: connection refused`.
  public var description: String {
    switch self {
    case .connecting: "connecting"
    case .connected: "connected"
    case .disconnected(let error?): "disconnected: \(error)"
    case .disconnected(nil): "disconnected"
    case .closed: "closed"
    }
  }
}

/// Something that happened to a ``LiveLink``, reported to its `onEvent` handler.
public enum LiveLinkEvent: Sendable {
  /// The link connected and sent a `hello` with the store's state after action
  /// `sequence`; `dropped` actions were dropped so far.
  case connected(sequence: UInt64, dropped: Int)
  /// The link resynchronized on the same connection after dropping actions: a new `hello`
  /// with the state after action `sequence`.
  case resynchronized(sequence: UInt64, dropped: Int)
  /// The connection ended or could not be opened; the link tries again after its backoff.
  case disconnected(LiveLinkError)
  /// The Studio moved the store to the state whose hash is `hash`; `sequence` is the
  /// store's sequence number (the last action reduced), which a jump does not change.
  case jumped(sequence: UInt64, hash: StateHash)
  /// The link refused a command from the Studio and answered with an `error` message.
  case refused(LiveLinkError)
}
