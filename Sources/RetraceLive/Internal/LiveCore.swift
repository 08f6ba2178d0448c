import FlyingSocks
import Foundation
import Retrace
import RetraceLiveProtocol
import Synchronization

/// One entry of the link's queue. Actions with a hand-written encoding are encoded by
/// `record` into the queue's byte buffer and need no other storage; anything else is an
/// ``LiveCore/Other`` in an array beside, so that the common entry stays small and trivial.
@usableFromInline
enum LiveQueueItem: Sendable {
  /// An action encoded into the queue's buffer, ending at byte `end`.
  case encoded(sequence: UInt64, time: Double, end: Int)
  /// The ``LiveCore/Queue/others`` entry at this index.
  case other(Int)
}

/// The shared state of a link: the queue `record` appends to on the store's thread, and the
/// background sender that connects, says `hello`, and sends what is queued.
@usableFromInline
final class LiveCore<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
  @usableFromInline
  enum Other: Sendable {
    /// An action without a hand-written encoding, encoded by the sender.
    case action(UInt64, Double, Action)
    /// The state after action `sequence`, to hash for a `checkpoint`.
    case checkpoint(UInt64, State)
    /// The store jumped to this state (`StoreRecorder.jumped(sequence:time:from:to:)`).
    case jump(UInt64, Double, State)
    /// A frame made elsewhere (a pong, an `error`, a `checkpoint`), sent as it is.
    case frame(Data)
  }

  @usableFromInline
  struct Queue: ~Copyable {
    @usableFromInline var items: [LiveQueueItem] = []
    @usableFromInline var others: [Other] = []
    @usableFromInline var encoded = CBORWriter(capacity: 64 * 1024)
    /// Actions in ``items``, which the queue's limit counts.
    @usableFromInline var actionCount = 0
    /// Whether actions are queued: from attach until the first connection fails, and from
    /// each `hello` until the connection ends or the queue overflows.
    @usableFromInline var accepting = true
    /// Set when the queue overflowed: the sender resynchronizes with a new `hello`.
    @usableFromInline var needsResync = false
    @usableFromInline var dropped = 0
    /// The last action queued, or the `hello`'s sequence number after it.
    @usableFromInline var lastSequence: UInt64 = 0
    /// The last action whose state a checkpoint was taken for (or the `hello`'s, which
    /// carries the state whole): when it is behind ``lastSequence`` as the sender goes idle,
    /// the sender takes the store's state for a checkpoint.
    @usableFromInline var lastChecked: UInt64 = 0
    /// Whether a jump set the store's state after the last action queued: that state is not
    /// the one the action gave, which is the one the Studio checks a checkpoint against.
    @usableFromInline var jumpedSinceAction = false
    /// Set by the sender when it waits for work; whoever queues work then resumes it.
    @usableFromInline var senderIdle = false
    @usableFromInline var waiter: CheckedContinuation<Void, Never>?
    /// Why the current connection ended, set by its reader.
    var broken: LiveLinkError?
    var closing = false
    @usableFromInline init() {}

    @usableFromInline
    mutating func append(_ other: Other) {
      items.append(.other(others.count))
      others.append(other)
    }

    /// The sender's continuation, if it waits for work.
    @usableFromInline
    mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
      guard senderIdle else { return nil }
      senderIdle = false
      defer { waiter = nil }
      return waiter
    }

    /// Empties the queue but for its frames (a pong, an `error`); the actions in it count
    /// as dropped. Returns whether a checkpoint's state was among what it let go of. Frames
    /// (answers to the Studio) stay for a resynchronization on the same connection, and go
    /// with `keepingFrames: false` between connections: a Close meant for the old one would
    /// end the new one.
    @discardableResult
    mutating func discard(keepingFrames: Bool = true) -> Bool {
      dropped += actionCount
      var hadCheckpoint = false
      var frames: [Other] = []
      for other in others {
        switch other {
        case .frame: if keepingFrames { frames.append(other) }
        case .checkpoint: hadCheckpoint = true
        case .action, .jump: break
        }
      }
      items.removeAll(keepingCapacity: true)
      others.removeAll(keepingCapacity: true)
      encoded.removeAll()
      actionCount = 0
      for frame in frames { append(frame) }
      return hadCheckpoint
    }
  }

  /// What the sender takes from the queue at once, swapped with the queue's emptied storage.
  struct Batch: ~Copyable {
    var items: [LiveQueueItem] = []
    var others: [Other] = []
    var encoded = CBORWriter(capacity: 64 * 1024)
  }

  /// Reads and moves the attached store, on the main actor.
  struct StoreAccess: Sendable {
    /// The store's sequence number and state, or `nil` when the store is gone.
    let read: @MainActor @Sendable () -> (UInt64, State)?
    /// Moves the store to a state; returns its sequence number, or `nil` when it is gone.
    let jump: @MainActor @Sendable (State) -> UInt64?
    /// Sends an action to the store; returns `false` when the store is gone.
    let dispatch: @MainActor @Sendable (Action) -> Bool
  }

  /// What the session's `hello` messages say besides the state.
  struct Session: Sendable {
    var domain: String
    var actionSchemaVersion: Int
    var sessionID: String
    var app: [String: String]
  }

  @usableFromInline let queue = Mutex(Queue())
  @usableFromInline let configuration: LiveLinkConfiguration
  /// The actions' hand-written encoding, if their type has one: `record` encodes with it on
  /// the sending thread, which is cheaper than handing the action over (see W4l).
  @usableFromInline let encodeAction: (@Sendable (Action, inout CBORWriter) -> Void)?
  /// The first sequence number after which the store may hand over its state for a
  /// checkpoint: `UInt64.max` while a checkpoint's state is queued or being hashed, so that
  /// the store hands over no other state meanwhile. Most actions come before it, and one
  /// relaxed load answers for them, before the division by the interval (see W4l).
  @usableFromInline let nextCheckpoint: Atomic<UInt64>
  /// Whether an idle checkpoint's request for the store's state is on its way to the main
  /// actor: one at a time.
  let idleCheckpointAsked = Atomic<Bool>(false)
  let endpoint: StudioEndpoint
  let session: Session
  let onEvent: (@Sendable (LiveLinkEvent) -> Void)?
  /// Decodes an action of a `dispatch` command with the domain's decoding.
  let decodeAction: @Sendable ([UInt8]) throws -> Action
  let statusValue = Mutex<LiveLinkStatus>(.disconnected(nil))
  let sentCount = Atomic<Int>(0)
  let store = Mutex<StoreAccess?>(nil)
  /// The store's sequence number, state and time at attach, for the first connection's
  /// `hello`; let go of after it.
  let attachSnapshot = Mutex<(sequence: UInt64, state: State)?>(nil)
  let startTime = Mutex<Double>(0)
  /// The connection number; a command is carried out only on the connection it came on.
  let generation = Atomic<Int>(0)
  let runTask = Mutex<Task<Void, Never>?>(nil)
  let currentSocket = Mutex<AsyncSocket?>(nil)

  init(
    endpoint: StudioEndpoint, session: Session, configuration: LiveLinkConfiguration,
    decodeAction: @escaping @Sendable ([UInt8]) throws -> Action,
    onEvent: (@Sendable (LiveLinkEvent) -> Void)?
  ) {
    self.decodeAction = decodeAction
    self.endpoint = endpoint
    self.session = session
    self.configuration = configuration
    self.onEvent = onEvent
    self.encodeAction = handWrittenEncoding(of: Action.self)
    self.nextCheckpoint = Atomic(configuration.checkpointInterval == 0 ? .max : 0)
  }

  /// Lets the store hand over a state again, from the multiple of the interval after
  /// `sequence` on.
  func checkpointDone(after sequence: UInt64) {
    let interval = configuration.checkpointInterval
    guard interval != 0 else { return }
    nextCheckpoint.store((sequence / interval &+ 1) &* interval, ordering: .relaxed)
  }

  var status: LiveLinkStatus {
    statusValue.withLock { $0 }
  }

  func setStatus(_ status: LiveLinkStatus) {
    statusValue.withLock { current in
      if case .closed = current { return }
      current = status
    }
  }

  var droppedCount: Int { queue.withLock { $0.dropped } }

  // MARK: The sending thread

  @inlinable
  func wantsState(at sequence: UInt64) -> Bool {
    guard sequence >= nextCheckpoint.load(ordering: .relaxed) else { return false }
    return sequence % configuration.checkpointInterval == 0
  }

  @inlinable
  func record(sequence: UInt64, time: Double, action: Action, stateAfter: State?) {
    let limit = configuration.maxQueuedActions
    let waiter = queue.withLock { q -> CheckedContinuation<Void, Never>? in
      guard q.accepting else {
        q.dropped &+= 1
        return nil
      }
      guard q.actionCount < limit else {
        // A stream with a hole is useless to the Studio: stop queueing, and resynchronize
        // with a new `hello` once the sender has caught up.
        q.dropped &+= 1
        q.accepting = false
        q.needsResync = true
        return q.takeWaiter()
      }
      q.actionCount &+= 1
      q.lastSequence = sequence
      q.jumpedSinceAction = false
      if let encodeAction {
        encodeAction(action, &q.encoded)
        q.items.append(.encoded(sequence: sequence, time: time, end: q.encoded.byteCount))
      } else {
        q.append(.action(sequence, time, action))
      }
      // A state only where a checkpoint is due (a caller other than the store may hand one
      // with every action).
      if let stateAfter, wantsState(at: sequence) {
        nextCheckpoint.store(.max, ordering: .relaxed)
        q.lastChecked = sequence
        q.append(.checkpoint(sequence, stateAfter))
      }
      return q.takeWaiter()
    }
    waiter?.resume()
  }

  func jumped(sequence: UInt64, time: Double, state: State) {
    let waiter = queue.withLock { q -> CheckedContinuation<Void, Never>? in
      // Not connected: the next `hello` carries the state.
      guard q.accepting else { return nil }
      q.jumpedSinceAction = true
      q.append(.jump(sequence, time, state))
      return q.takeWaiter()
    }
    waiter?.resume()
  }

  /// Queues a frame made off the sending thread (a pong, an `error`, a `checkpoint`).
  func enqueue(frame: Data) {
    let waiter = queue.withLock { q -> CheckedContinuation<Void, Never>? in
      q.append(.frame(frame))
      return q.takeWaiter()
    }
    waiter?.resume()
  }

  /// Wakes the sender (after a connection broke, or to close).
  func wakeSender(_ change: (inout Queue) -> Void) {
    let waiter = queue.withLock { q -> CheckedContinuation<Void, Never>? in
      change(&q)
      return q.takeWaiter()
    }
    waiter?.resume()
  }

  // MARK: Attaching and closing

  func attached(sequence: UInt64, state: State) {
    attachSnapshot.withLock { $0 = (sequence, state) }
    startTime.withLock { $0 = StoreClock.system.now(0) }
  }

  func attached(access: StoreAccess) {
    store.withLock { $0 = access }
    let task = Task.detached(priority: .userInitiated) { [self] in await run() }
    let previous = runTask.withLock { old -> Task<Void, Never>? in
      defer { old = task }
      return old
    }
    previous?.cancel()
  }

  /// Stops the sender after it has sent what is queued, closing the connection cleanly;
  /// waits at most `timeout`.
  func close(timeout: Duration) async {
    wakeSender { q in
      q.closing = true
      q.accepting = false
    }
    let task = runTask.withLock { $0 }
    if let task {
      let finished = Atomic<Bool>(false)
      let watchdog = Task.detached { [self] in
        try? await Task.sleep(for: timeout)
        guard !finished.load(ordering: .relaxed) else { return }
        task.cancel()
        try? currentSocket.withLock { $0 }?.close()
      }
      await task.value
      finished.store(true, ordering: .relaxed)
      watchdog.cancel()
    }
    finishClosing()
  }

  /// Stops without waiting: what the link's `deinit` and a detach do.
  func closeWithoutWaiting() {
    wakeSender { q in
      q.closing = true
      q.accepting = false
    }
    // The sender ends after sending what is queued; a sender stuck in a write is freed by
    // closing the socket.
    let task = runTask.withLock { $0 }
    if task == nil { finishClosing() }
  }

  private func finishClosing() {
    queue.withLock { q in
      q.closing = true
      q.accepting = false
      q.discard()
      q.items.removeAll()
      q.others.removeAll()
    }
    statusValue.withLock { $0 = .closed }
  }

  var isClosing: Bool { queue.withLock { $0.closing } }
}
