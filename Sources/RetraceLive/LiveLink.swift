import Foundation
import Retrace
import RetraceLiveProtocol

/// Streams a store's actions to Retrace Studio as the app runs, and lets the Studio move
/// the store to an earlier state: the app's side of a live session (`docs/LIVE.md`).
///
/// Attach it to the store in debug builds, with the address `retrace serve` printed:
///
/// ```swift
/// #if DEBUG
/// let link = try LiveLink(domain: bankingDomain, studio: "http://127.0.0.1:7420/?token=4f0c…")
/// store.attach(link)
/// #endif
/// ```
///
/// The link opens a WebSocket to the Studio and sends a `hello` with the store's state,
/// then every action the store reduces, in batches; it reconnects with exponential backoff
/// when the Studio is not there or goes away, each time with a fresh `hello`. Nothing
/// listens inside the app: the Studio's commands come only over the connection the link
/// opened to the address it was given.
///
/// ## Cost
///
/// `send` never waits for the network. The store's thread only appends the action to a
/// bounded queue (encoding it, when its type has a hand-written encoding), and a
/// background task encodes and sends. When the queue is full, actions are dropped and
/// counted in ``droppedActionCount``, and the link starts again from the store's state
/// with a new `hello`. The store hands over its state only every
/// ``LiveLinkConfiguration/checkpointInterval`` actions, for a `checkpoint`, hashed off the
/// store's thread. W4l in `Benchmarks/` measures it.
///
/// ## Time travel
///
/// A `jump` from the Studio carries a state and its hash. The link decodes the state, checks
/// the hash, and calls `Store.jump(to:)` on the main actor; the store then tells its
/// recorders, this link among them, which sends a `jump` message back. A state that does
/// not decode or does not match its hash is refused with an `error` message, and the store
/// is left alone.
///
/// A `dispatch` from the Studio carries an action, which the link decodes with the domain's
/// decoding and sends to the store on the main actor (`Store.send(_:)`), as if the user had:
/// the store reduces and records it, and the link streams it back like any other action. An
/// action that does not decode is refused with an `error` message.
public final class LiveLink<State: Codable & Sendable, Action: Codable & Sendable>: StoreRecorder {
  @usableFromInline let core: LiveCore<State, Action>

  /// Creates a link to a Studio; it connects once attached to a store
  /// (`Store.attach(_:)`).
  ///
  /// - Parameters:
  ///   - domain: The store's domain; its name and action schema version go into the
  ///     `hello`, and the Studio replays the session with its own copy of the domain.
  ///   - studio: The line `retrace serve` printed, `http://HOST:PORT/?token=T` (its
  ///     `Retrace Studio:` label may stay), or the live endpoint
  ///     `ws://HOST:PORT/api/live`. HOST is an IP address or `localhost`.
  ///   - token: The Studio's token, when `studio` does not carry it.
  ///   - sessionID: The session's identifier, the same across reconnections; a random UUID
  ///     by default.
  ///   - app: Facts about the app for the `hello` (name, version, build).
  ///   - configuration: Queue size, checkpoint interval, backoff.
  ///   - onEvent: Called, on a background task, when the link connects, resynchronizes,
  ///     disconnects, is moved by the Studio or refuses a command.
  /// - Throws: ``LiveLinkError`` with ``LiveLinkError/Code/invalidAddress`` when the address
  ///   is not one the link understands.
  public init(
    domain: some Domain<State, Action>,
    studio: String,
    token: String? = nil,
    sessionID: String? = nil,
    app: [String: String] = [:],
    configuration: LiveLinkConfiguration = LiveLinkConfiguration(),
    onEvent: (@Sendable (LiveLinkEvent) -> Void)? = nil
  ) throws(LiveLinkError) {
    precondition(configuration.maxQueuedActions > 0, "maxQueuedActions must be positive")
    precondition(
      configuration.initialBackoff > .zero
        && configuration.maximumBackoff >= configuration.initialBackoff,
      "the backoff must be positive and its maximum at least its start")
    let endpoint: StudioEndpoint
    do {
      endpoint = try StudioEndpoint(parsing: studio, token: token)
    } catch {
      throw LiveLinkError(.invalidAddress, error.description)
    }
    // The link does not look names up: a host that is not an address fails here, not later.
    _ = try WebSocketClient.socketAddress(of: endpoint)
    core = LiveCore(
      endpoint: endpoint,
      session: .init(
        domain: domain.name, actionSchemaVersion: domain.actionSchemaVersion,
        sessionID: sessionID ?? UUID().uuidString.lowercased(), app: app),
      configuration: configuration,
      decodeAction: { bytes in try bytes.withUnsafeBytes { try domain.decodeAction(from: $0) } },
      onEvent: onEvent)
  }

  deinit {
    core.closeWithoutWaiting()
  }

  /// Where the link's connection stands.
  public var status: LiveLinkStatus { core.status }

  /// Actions the link did not send: dropped while the queue was full or the Studio was
  /// not connected, or queued when a connection ended. The Studio's session resumes from a
  /// `hello` after them. Once the link is idle, ``sentActionCount`` plus this is every
  /// action the store reduced since the link was attached.
  public var droppedActionCount: Int { core.droppedCount }

  /// Actions written to the Studio's connection.
  public var sentActionCount: Int { core.sentCount.load(ordering: .relaxed) }

  /// The session's identifier, the same across reconnections.
  public var sessionID: String { core.session.sessionID }

  /// Sends what is queued, closes the connection, and stops reconnecting; returns when that
  /// is done, or after `timeout`. Actions reduced afterwards are dropped. Calling it again
  /// does nothing.
  ///
  /// - Parameter timeout: How long to wait for the queued actions to be sent.
  public func close(timeout: Duration = .seconds(2)) async {
    await core.close(timeout: timeout)
  }

  /// Keeps the store's state to say `hello` with; the store calls this on attach.
  public func attached(sequence: UInt64, state: State) {
    core.attached(sequence: sequence, state: state)
  }

  /// Keeps the store (weakly), to read its state for each `hello` and to move it when the
  /// Studio says so, and starts connecting; the store calls this on attach.
  public func attached(to store: Store<State, Action>) {
    core.attached(
      access: .init(
        read: { [weak store] in store.map { store in (store.sequence, store.withState { $0 }) } },
        jump: { [weak store] state in
          guard let store else { return nil }
          store.jump(to: state)
          return store.sequence
        },
        dispatch: { [weak store] action in
          guard let store else { return false }
          store.send(action)
          return true
        }))
  }

  /// Closes the link without waiting; the store calls this on detach.
  public func detached(sequence: UInt64, state: State) {
    core.closeWithoutWaiting()
  }

  /// Queues a `jump` message with the state the store was moved to; the store calls this.
  public func jumped(sequence: UInt64, time: Double, from previous: State, to state: State) {
    core.jumped(sequence: sequence, time: time, state: state)
  }

  /// Whether the store should hand over its state after action `sequence`: at a multiple
  /// of ``LiveLinkConfiguration/checkpointInterval``, unless the last checkpoint is still
  /// being hashed.
  @inlinable
  public func wantsStateAfter(sequence: UInt64) -> Bool {
    core.wantsState(at: sequence)
  }

  /// Queues the action; the store calls this for every action.
  @inlinable
  public func record(_ transition: Transition<State, Action>) {
    core.record(
      sequence: transition.sequence, time: transition.time, action: transition.action,
      stateAfter: transition.stateAfter)
  }

  /// Queues the action, with the transition's parts lent for the call: what the store
  /// calls.
  @inlinable
  public func record(
    sequence: UInt64, time: Double, action: Action, stateBefore: State?, stateAfter: State?
  ) {
    core.record(sequence: sequence, time: time, action: action, stateAfter: stateAfter)
  }
}
