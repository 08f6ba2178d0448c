import Dispatch
import Foundation
import Retrace
import Synchronization

/// Records every action a store reduces into a trace file.
///
/// Attach it to a store; the sending thread only appends the action to a buffer (no I/O),
/// and a background thread journals, compresses and writes. An action whose type has a
/// hand-written encoding (`CBOREncodable`) is appended encoded (about 34 ns for a
/// banking action, which spares the background thread the work); any other action is
/// handed over as it is, and the background thread encodes it. The store hands over its
/// state only where a checkpoint or snapshot may be due (``wantsStateAfter(sequence:)``).
///
/// ```swift
/// let recorder = try TraceRecorder(path: "session.trace", domain: bankingDomain)
/// store.attach(recorder)
/// store.send(.addAccount(name: "Daily Expenses", kind: .checking, iban: iban, date: now))
/// try recorder.close()
/// ```
///
/// ## Durability
///
/// Each action reaches the memory-mapped journal beside the trace (`session.trace.journal`)
/// as soon as the background thread gets to it, typically well under a millisecond after
/// `send` returns and at most a few milliseconds while a chunk is being compressed; from
/// there it survives the process's death (a trap, SIGKILL), because the kernel owns the
/// mapped pages. Reading the trace folds the journal's records in. ``TraceRecorder/flush(isolation:)`` makes
/// everything durable against power loss too. `docs/TRACE_FORMAT.md` gives the details.
///
/// ## Failures
///
/// A write error (disk full, permission, the file removed) never traps and never blocks
/// `send`: recording stops, ``status`` becomes ``Status/failed(_:)``, the error handler is
/// called once, and everything written before stays readable. When the background thread
/// falls behind by ``TraceRecorderConfiguration/maxPendingActions``, further actions are
/// dropped and counted in ``droppedActionCount`` rather than blocking the app.
public final class TraceRecorder<State: Codable & Sendable, Action: Codable & Sendable>:
  StoreRecorder
{
  /// Where a recorder stands.
  public enum Status: Sendable {
    /// Recording normally.
    case recording
    /// Recording stopped after this error; what was written before is readable.
    case failed(TraceError)
    /// Closed cleanly.
    case closed
  }

  /// The trace file's path.
  public let path: String
  @usableFromInline let core: RecorderCore<State, Action>

  /// Creates a recorder that writes a new trace at `path` (replacing any file there).
  ///
  /// Nothing is written until the recorder is attached to a store (or
  /// ``attached(sequence:state:)`` is called), which writes the header and the starting
  /// snapshot.
  ///
  /// - Parameters:
  ///   - path: The trace file to create. Its journal is `path + ".journal"`.
  ///   - domain: The domain's name, written into the header.
  ///   - actionSchemaVersion: The version of the action encoding.
  ///   - sessionID: The session's identifier; a random UUID by default.
  ///   - startTime: The time action offsets count from, in seconds since 1970; the system
  ///     clock at attach time by default.
  ///   - app: Facts about the app for the header (name, version, build).
  ///   - configuration: Chunking, compression, checkpoints and snapshots.
  ///   - onError: Called once, on the background thread, if recording fails.
  /// - Throws: ``TraceError`` when the files cannot be created.
  public convenience init(
    path: String,
    domain: String,
    actionSchemaVersion: Int = 1,
    sessionID: String? = nil,
    startTime: Double? = nil,
    app: [String: String] = [:],
    configuration: TraceRecorderConfiguration = TraceRecorderConfiguration(),
    onError: (@Sendable (TraceError) -> Void)? = nil
  ) throws(TraceError) {
    try self.init(
      path: path, domain: domain, actionSchemaVersion: actionSchemaVersion, sessionID: sessionID,
      startTime: startTime, app: app, configuration: configuration, storage: FileStorage(),
      onError: onError)
  }

  /// Creates a recorder that writes through `storage` (tests inject failing or lossy storage).
  package init(
    path: String,
    domain: String,
    actionSchemaVersion: Int = 1,
    sessionID: String? = nil,
    startTime: Double? = nil,
    app: [String: String] = [:],
    configuration: TraceRecorderConfiguration = TraceRecorderConfiguration(),
    storage: any TraceStorage,
    onError: (@Sendable (TraceError) -> Void)? = nil
  ) throws(TraceError) {
    let configuration = try configuration.validated()
    self.path = path
    let header = TraceHeader(
      domain: domain, actionSchemaVersion: actionSchemaVersion,
      sessionID: sessionID ?? UUID().uuidString.lowercased(), startTime: startTime ?? .nan,
      app: app,
      checkpointInterval: configuration.checkpointInterval,
      snapshotInterval: configuration.snapshotInterval)
    // A header the reader would refuse is refused here, before any file is created.
    try header.checkWritable(path: path)
    let writer = try TraceWriter<State, Action>(
      path: path, configuration: configuration, storage: storage)
    core = RecorderCore(
      writer: writer, header: header, configuration: configuration, onError: onError)
  }

  /// Creates a recorder for a domain's store; see ``init(path:domain:actionSchemaVersion:sessionID:startTime:app:configuration:onError:)``.
  public convenience init<D: Domain>(
    path: String,
    domain: D,
    sessionID: String? = nil,
    startTime: Double? = nil,
    app: [String: String] = [:],
    configuration: TraceRecorderConfiguration = TraceRecorderConfiguration(),
    onError: (@Sendable (TraceError) -> Void)? = nil
  ) throws(TraceError) where D.State == State, D.Action == Action {
    try self.init(
      path: path, domain: domain.name, actionSchemaVersion: domain.actionSchemaVersion,
      sessionID: sessionID,
      startTime: startTime, app: app, configuration: configuration, onError: onError)
  }

  deinit {
    core.closeWithoutWaiting()
  }

  /// Writes the header and the starting snapshot; the store calls this on attach.
  public func attached(sequence: UInt64, state: State) {
    // The start time is taken here, on the sending thread, before any action is stamped:
    // taken by the writer thread later, it came after the first actions' times.
    core.enqueue(.start(sequence, state, StoreClock.system.now(0)))
  }

  /// Appends the action to the buffer; the store calls this for every action.
  ///
  /// The transition's state is used when a checkpoint or snapshot may be due after it
  /// (``wantsStateAfter(sequence:)``), and ignored otherwise.
  @inlinable
  public func record(_ transition: Transition<State, Action>) {
    core.record(
      sequence: transition.sequence, time: transition.time, action: transition.action,
      stateAfter: transition.stateAfter)
  }

  /// Appends the action to the buffer: what the store calls, with the transition's parts lent
  /// for the call, so that nothing is copied but what is queued.
  @inlinable
  public func record(
    sequence: UInt64, time: Double, action: Action, stateBefore: State?, stateAfter: State?
  ) {
    core.record(sequence: sequence, time: time, action: action, stateAfter: stateAfter)
  }

  /// Whether a checkpoint or snapshot may be due after action `sequence`, so that the store
  /// hands over its state: at most once per ``TraceRecorderConfiguration/checkpointInterval``.
  @inlinable
  public func wantsStateAfter(sequence: UInt64) -> Bool {
    core.wantsState(at: sequence)
  }

  /// Keeps the store this recorder is attached to, so that ``TraceRecorder/flush(isolation:)`` and ``TraceRecorder/close(isolation:)``
  /// can hash its state; the store calls this on attach.
  public func attached(to store: Store<State, Action>) {
    core.storeState.withLock {
      $0 = { [weak store] in store.map { store in (store.sequence, store.withState { $0 }) } }
    }
  }

  /// Hashes the store's state after the last action this recorder saw (a checkpoint), and
  /// lets go of the store; the store calls this on detach.
  public func detached(sequence: UInt64, state: State) {
    core.storeState.withLock { $0 = nil }
    core.enqueue(.checkpoint(sequence, state))
  }

  /// Records `state` as the state after action `sequence`: a checkpoint that covers every
  /// action up to it, unless one is there already.
  ///
  /// A recorder attached to a store does this itself when it is flushed or closed on the
  /// main actor, and when it is detached. Call it before ``TraceRecorder/close(isolation:)`` when you feed a
  /// recorder yourself (``record(_:)`` without a store), or close it off the main actor,
  /// so that the session's last actions are covered by a hash: `retrace replay --verify`
  /// reports actions after the last hash as unchecked. A state for another sequence number
  /// than the last action recorded is ignored.
  ///
  /// - Parameters:
  ///   - state: The state after action `sequence`.
  ///   - sequence: The sequence number of the last action recorded.
  public func checkpoint(state: State, after sequence: UInt64) {
    core.enqueue(.checkpoint(sequence, state))
  }

  /// Blocks until every action recorded so far is in the file or the journal and both are
  /// synced to disk.
  ///
  /// Called on the main actor while attached to a store, it first hashes the store's state
  /// (``checkpoint(state:after:)``), so that every action flushed is covered by a hash.
  ///
  /// - Throws: ``TraceError`` if recording has failed or the recorder is closed.
  /// - Parameter isolation: The caller's actor, which Swift passes for you.
  public func flush(isolation: isolated (any Actor)? = #isolation) throws(TraceError) {
    checkpointStoreState(isolation)
    try core.perform { .flush($0) }
  }

  /// Writes everything, the end record and the index, and closes the trace.
  ///
  /// Called on the main actor while attached to a store, it first hashes the store's state
  /// (``checkpoint(state:after:)``), so that every action of the session is covered by a
  /// hash. Calling it again does nothing.
  ///
  /// - Throws: ``TraceError`` if recording had failed or the final writes fail.
  /// - Parameter isolation: The caller's actor, which Swift passes for you.
  public func close(isolation: isolated (any Actor)? = #isolation) throws(TraceError) {
    checkpointStoreState(isolation)
    try core.perform { .close($0) }
  }

  /// Queues a checkpoint of the attached store's state, when called on the main actor
  /// (where the store lives) while attached.
  private func checkpointStoreState(_ isolation: (any Actor)?) {
    guard let isolation, isolation === MainActor.shared, let read = core.storeState.withLock({ $0 })
    else { return }
    guard let (sequence, state) = MainActor.assumeIsolated({ read() }) else { return }
    core.enqueue(.checkpoint(sequence, state))
  }

  /// Whether the recorder is recording, has failed or is closed.
  public var status: Status { core.status }

  /// Actions dropped because the background writer fell too far behind.
  public var droppedActionCount: Int { core.droppedCount }
}

/// `Action`'s hand-written encoding as a closure, if it has one (`CBOREncodable`).
func handWrittenEncoding<Action: Sendable>(of type: Action.Type) -> (
  @Sendable (Action, inout CBORWriter) -> Void
)? {
  guard let encodable = type as? any (CBOREncodable & Sendable).Type else { return nil }
  func encoding<T: CBOREncodable & Sendable>(_: T.Type) -> Any {
    { (value: T, writer: inout CBORWriter) in value.encode(to: &writer) }
      as @Sendable (T, inout CBORWriter) -> Void
  }
  return encoding(encodable) as? @Sendable (Action, inout CBORWriter) -> Void
}

/// One entry of the recorder's queue, in order: an action the sending thread has encoded,
/// or the place of a command kept aside.
///
/// Nearly every entry is an encoded action without a state, so the queue holds those as
/// plain values (32 bytes, copied as bits) and everything else in a second array. A queue
/// of generic commands took 80 bytes per banking action, and the writer, which is not
/// specialized for the app's types, copied each through the generic enum's value witnesses.
@usableFromInline
enum QueueEntry: BitwiseCopyable, Sendable {
  /// An action encoded by the sending thread (its type has a hand-written encoding): its
  /// bytes run from the previous encoded action's end to `end` in the batch's bytes.
  case encoded(sequence: UInt64, time: Double, end: Int)
  /// The command at this index of the batch's commands.
  case command(Int)
}

/// What the sending side hands the background thread, besides encoded actions without a
/// state (``QueueEntry/encoded(sequence:time:end:)``).
@usableFromInline
enum RecorderCommand<State: Sendable, Action: Sendable>: Sendable {
  /// The sequence number and state the recording starts from, and the time of the attach.
  case start(UInt64, State, Double)
  /// An action, and the state after it when the recorder hands one over (boxed: a state
  /// rides along with one action in a thousand at most, and inline it would make every
  /// queued action as large as a state, which the sending thread pays for in copying).
  case action(UInt64, Double, Action, HandedState<State>?)
  /// An action already encoded by the sending thread, with the state after it: its bytes
  /// run from the previous encoded action's end to this offset of the batch's bytes.
  /// Encoding costs the sending thread about 34 ns, less than handing the value over cost
  /// it (retaining its strings, copying an 80-byte entry); the writer is spared the
  /// encoding and never touches the action's strings.
  case encoded(UInt64, Double, end: Int, HandedState<State>)
  /// The state after action `sequence`, to be hashed unless a checkpoint or snapshot is
  /// there already: what covers the last actions when a recorder is flushed or closed.
  case checkpoint(UInt64, State)
  case flush(Completion)
  case close(Completion)
  /// The queue overflowed after the actions before this command: finish the trace there.
  case overflow
}

/// A state handed from the sending thread to the writer.
@usableFromInline
///
/// The writer takes the state out when it deals with it (``take()``), so that the state is
/// let go of at once, not when the whole batch it came in is done: every state still held
/// makes the app's next change to what it shares copy it (copy-on-write).
final class HandedState<State: Sendable>: Sendable {
  private let value: Mutex<State?>

  @usableFromInline
  init(_ state: State) {
    value = Mutex(state)
  }

  /// The state, the first time; `nil` after.
  func take() -> State? {
    value.withLock { $0.take() }
  }
}

/// A one-shot signal with an optional error, for blocking `flush` and `close`.
@usableFromInline
final class Completion: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)
  private let result = Mutex<TraceError?>(nil)

  func finish(_ error: TraceError?) {
    result.withLock { $0 = error }
    semaphore.signal()
  }

  func wait() throws(TraceError) {
    semaphore.wait()
    if let error = result.withLock({ $0 }) { throw error }
  }
}

/// The shared state of a recorder: the queue the sending thread appends to, and the writer
/// the background thread drives.
@usableFromInline
final class RecorderCore<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
  // `record` runs on the sending thread and is inlinable, so that the app's build
  // specializes it: unspecialized, its generic metadata lookups cost microseconds.
  @usableFromInline
  struct Queue: ~Copyable {
    @usableFromInline var items: [QueueEntry] = []
    /// The commands ``items`` points to.
    @usableFromInline var commands: [RecorderCommand<State, Action>] = []
    /// The encoded actions of ``items``, one after another: `record` encodes each action
    /// straight into it, and the writer takes it with the batch.
    @usableFromInline var encoded = CBORWriter(capacity: 64 * 1024)
    @usableFromInline var writerIdle = true
    @usableFromInline var accepting = true
    @usableFromInline var dropped = 0
    @usableFromInline var overflowed = false
    @usableFromInline var threadStarted = false
    @usableFromInline var closeQueued = false
    @usableFromInline init() {}

    /// Queues a command in its place among the entries.
    @usableFromInline
    mutating func append(_ command: RecorderCommand<State, Action>) {
      items.append(.command(commands.count))
      commands.append(command)
    }
  }

  /// What the writer takes from the queue at once: the queue's entries, commands and
  /// encoded actions, swapped with the emptied ones of the batch before, so that the
  /// sending thread appends into storage that exists (a new array per batch was a malloc,
  /// and a growing one new pages) and nothing is copied while the queue is locked.
  private struct Batch: ~Copyable {
    var entries: [QueueEntry] = []
    var commands: [RecorderCommand<State, Action>] = []
    var encoded = CBORWriter(capacity: 64 * 1024)
  }

  private struct WriterState {
    var writer: TraceWriter<State, Action>?
    var header: TraceHeader
    var lastTime: Double?
    /// The last action written, published to ``writtenSequence`` after each batch.
    var lastSequence: UInt64 = 0
    var started = false
  }

  @usableFromInline let queue = Mutex(Queue())
  /// Reads the attached store's sequence number and state, on the main actor.
  let storeState = Mutex<(@MainActor @Sendable () -> (UInt64, State)?)?>(nil)
  private let writer: Mutex<WriterState>
  private let statusValue = Mutex<TraceRecorder<State, Action>.Status>(.recording)
  @usableFromInline let wakeup = DispatchSemaphore(value: 0)
  /// The writer's ``TraceWriter/nextStateDue`` as last published. It only ever lags behind
  /// the writer, so the sending side hands over at least every state the writer will use,
  /// and the file stays the same whatever the timing.
  @usableFromInline let nextStateDue = Atomic<UInt64>(0)
  /// States handed to the writer that it has not dealt with yet: 0 or 1.
  @usableFromInline let pendingStates = Atomic<Int>(0)
  /// The sequence number of the last action the writer has dealt with; how far `record` is
  /// ahead of it is how far the writer is behind (the queue alone would not say: the writer
  /// takes the queue whole and may still be working through it).
  @usableFromInline let writtenSequence = Atomic<UInt64>(0)

  /// Whether the writer's last state was small enough to be hashed at every candidate
  /// (``TraceWriter/stateIsSmall``), as last published.
  @usableFromInline let stateIsSmall = Atomic<Bool>(true)

  /// The most states handed to the writer and not yet dealt with, with
  /// ``TraceRecorderConfiguration/reproducibleCheckpoints``, while the state is small.
  @usableFromInline static var pendingStatesWhenReproducible: Int { 64 }

  /// Waits until fewer than `limit` states handed to the writer wait for it, or it has
  /// stopped.
  @usableFromInline
  func waitForStateDecisions(below limit: Int) {
    var spins = 0
    while pendingStates.load(ordering: .acquiring) >= limit {
      if case .recording = status {} else { return }
      guard queue.withLock({ $0.threadStarted }) else { return }  // never attached: no writer yet
      spins += 1
      if spins < 100 { sched_yield() } else { usleep(20) }
    }
  }
  @usableFromInline let configuration: TraceRecorderConfiguration
  @usableFromInline let stateInterval: UInt64
  /// The actions' hand-written encoding, if their type has one: a closure that takes the
  /// action as it is, where encoding through `CBOREncodable._encode(at:)` copied it first
  /// (reading it back through the pointer) and destroyed the copy after, about 200
  /// instructions per banking action.
  @usableFromInline let encodeAction: (@Sendable (Action, inout CBORWriter) -> Void)?
  private let onError: (@Sendable (TraceError) -> Void)?

  init(
    writer: sending TraceWriter<State, Action>, header: TraceHeader,
    configuration: TraceRecorderConfiguration,
    onError: (@Sendable (TraceError) -> Void)?
  ) {
    self.writer = Mutex(WriterState(writer: writer, header: header))
    self.encodeAction = handWrittenEncoding(of: Action.self)
    self.configuration = configuration
    self.stateInterval = configuration.stateInterval
    self.onError = onError
  }

  var status: TraceRecorder<State, Action>.Status { statusValue.withLock { $0 } }
  var droppedCount: Int { queue.withLock { $0.dropped } }

  /// Whether the writer may write a checkpoint or snapshot after action `sequence`.
  @inlinable
  func wantsState(at sequence: UInt64) -> Bool {
    // Most actions come before the next state is due: one relaxed load answers for them,
    // before the division below (see W4). `nextStateDue` only ever lags behind the
    // writer's, so a sequence number below it is below the writer's too.
    guard sequence >= nextStateDue.load(ordering: .relaxed) else { return false }
    guard stateInterval != 0 && sequence % stateInterval == 0 else { return false }
    if configuration.reproducibleCheckpoints {
      // Every candidate from the published `nextStateDue` on goes to the writer, which
      // decides with its own, current answer; so the file does not depend on timing. Each
      // state handed over and not yet dealt with may make the app's next change copy what
      // it shares (copy-on-write): a small state's candidates (one every interval) may
      // wait 64 at a time, a large state's (rarely due) one at a time, so that the answer
      // checked below is current and a state the writer would ignore is not held.
      let limit = stateIsSmall.load(ordering: .relaxed) ? Self.pendingStatesWhenReproducible : 1
      waitForStateDecisions(below: limit)
      return sequence >= nextStateDue.load(ordering: .acquiring)
    }
    // Hand the state over only when the writer is done with the last one: its answer
    // (`nextStateDue`) is then current, and a state it would ignore is never held, which
    // would make the app's next change copy it.
    guard pendingStates.load(ordering: .acquiring) == 0 else { return false }
    let due = nextStateDue.load(ordering: .acquiring)
    guard sequence >= due else { return false }
    // A writer that is behind holds a state until it gets to it, and every change the app
    // makes meanwhile copies what it touches (copy-on-write; see W4 on a burst of sends).
    // So a writer that is behind gets no state: checkpoints and snapshots, which only make
    // reading faster, wait until it has caught up; the actions are all recorded.
    return sequence <= writtenSequence.load(ordering: .relaxed) &+ Self.backlogForStates
  }

  /// Actions not yet written up to which the writer counts as keeping up, for handing it a
  /// state: about a millisecond of its work.
  @usableFromInline static var backlogForStates: UInt64 { 1_024 }

  @inlinable
  func record(sequence: UInt64, time: Double, action: Action, stateAfter: State?) {
    var state: HandedState<State>? = nil
    if let after = stateAfter, wantsState(at: sequence) {
      state = HandedState(after)
      pendingStates.add(1, ordering: .relaxed)
    }
    let limit = configuration.maxPendingActions
    let (queued, wake) = queue.withLock { q -> (Bool, Bool) in
      guard q.accepting else {
        if q.overflowed { q.dropped += 1 }
        return (false, false)
      }
      guard q.items.count < limit else {
        // A trace with a hole could not be replayed: stop recording here, cleanly, and
        // count what is dropped from now on.
        q.dropped += 1
        q.overflowed = true
        q.accepting = false
        q.append(.overflow)
        return (false, true)
      }
      if let encodeAction {
        encodeAction(action, &q.encoded)
        if let state {
          q.append(.encoded(sequence, time, end: q.encoded.byteCount, state))
        } else {
          q.items.append(.encoded(sequence: sequence, time: time, end: q.encoded.byteCount))
        }
      } else {
        q.append(.action(sequence, time, action, state))
      }
      if q.writerIdle {
        q.writerIdle = false
        return (true, true)
      }
      return (true, false)
    }
    if !queued && state != nil { pendingStates.subtract(1, ordering: .releasing) }
    if wake { wakeup.signal() }
  }

  func enqueue(_ command: RecorderCommand<State, Action>) {
    let (accepted, wake, startThread) = queue.withLock { q -> (Bool, Bool, Bool) in
      // After an overflow or a failure the queue takes no more actions, but a flush or a
      // close still goes behind what is queued, so that it returns only once the writer
      // has finished the trace (and with the failure that stopped it).
      var isControl = false
      switch command {
      case .flush, .close: isControl = true
      default: break
      }
      guard q.accepting || (isControl && q.threadStarted && !q.closeQueued) else {
        return (false, false, false)
      }
      if case .close = command {
        q.accepting = false
        q.closeQueued = true
      }
      q.append(command)
      let start = !q.threadStarted
      q.threadStarted = true
      let wake = q.writerIdle
      q.writerIdle = false
      return (true, wake, start)
    }
    if startThread { startWriterThread() }
    if !accepted, case .flush(let c) = command { c.finish(closedError) }
    if !accepted, case .close(let c) = command { c.finish(isFailed ? closedError : nil) }
    if wake { wakeup.signal() }
  }

  func perform(_ make: (Completion) -> RecorderCommand<State, Action>) throws(TraceError) {
    let completion = Completion()
    let started = queue.withLock { $0.threadStarted }
    if !started, case .close = make(completion) {
      // Never attached: nothing to finish but the files.
      queue.withLock { $0.accepting = false }
      writer.withLock { w in
        w.writer?.abandon()
        w.writer = nil
      }
      statusValue.withLock { $0 = .closed }
      return
    }
    enqueue(make(completion))
    try completion.wait()
  }

  func closeWithoutWaiting() {
    let started = queue.withLock { $0.threadStarted }
    if started {
      enqueue(.close(Completion()))
    } else {
      writer.withLock { w in
        w.writer?.abandon()
        w.writer = nil
      }
    }
  }

  private var closedError: TraceError {
    if case .failed(let error) = status { return error }
    return TraceError(.closed, "the recorder is closed")
  }

  /// How long the writer waits for more actions before it sleeps until signalled.
  static var linger: Double { 0.001 }

  private func startWriterThread() {
    let thread = Thread { [self] in run() }
    thread.name = "Retrace trace writer"
    thread.start()
  }

  /// The background thread: drain the queue, write, sleep until woken; until closed.
  private func run() {
    var batch = Batch()
    while true {
      wakeup.wait()
      var lingered = false
      while true {
        let took = queue.withLock { q -> Bool in
          if q.items.isEmpty {
            // Declared idle, the writer must be woken by the next `record`: a system call
            // on the sending thread. So it lingers once, a millisecond, before that: an
            // app that keeps sending finds it awake and never signals.
            if lingered { q.writerIdle = true }
            return false
          }
          swap(&batch.entries, &q.items)
          swap(&batch.commands, &q.commands)
          swap(&batch.encoded, &q.encoded)
          return true
        }
        guard took else {
          if lingered { break }
          lingered = true
          Thread.sleep(forTimeInterval: Self.linger)
          continue
        }
        lingered = false
        let finished = process(batch)
        // Emptied (the handed states let go of), for the next swap.
        batch.entries.removeAll(keepingCapacity: true)
        batch.commands.removeAll(keepingCapacity: true)
        batch.encoded.removeAll()
        if finished { return }
      }
    }
  }

  /// Writes a batch; returns `true` once the recorder is closed.
  private func process(_ batch: borrowing Batch) -> Bool {
    writer.withLock { w -> Bool in
      batch.encoded.withBytes { bytes -> Bool in
        var start = 0
        for entry in batch.entries {
          switch entry {
          case .encoded(let sequence, let time, let end):
            // The common case: no state, written with the writer's stateless `append`.
            let encoded = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            start = end
            append(&w, sequence: sequence, time: time, state: nil) { writer throws(TraceError) in
              try writer.append(sequence: sequence, time: time, encoded: encoded)
            }
          case .command(let index):
            if execute(batch.commands[index], &w, bytes: bytes, start: &start) { return true }
          }
        }
        // Once a batch, not once an action: the sending thread reads the atomics beside this
        // one on every action, and a store per action made it miss its cache.
        writtenSequence.store(w.lastSequence, ordering: .relaxed)
        return false
      }
    }
  }

  /// Carries out one command other than an encoded action without a state; `start` is where
  /// the next encoded action's bytes begin. Returns `true` once the recorder is closed.
  private func execute(
    _ command: RecorderCommand<State, Action>, _ w: inout WriterState,
    bytes: UnsafeRawBufferPointer,
    start: inout Int
  ) -> Bool {
    switch command {
    case .start(let sequence, let state, let attachTime):
      guard !w.started, let writer = w.writer else { return false }
      w.started = true
      if w.header.startTime.isNaN { w.header.startTime = attachTime }
      w.header.firstSequence = sequence
      w.lastTime = nil
      let header = w.header
      attempt(&w) { () throws(TraceError) in try writer.start(header: header, state: state) }
      publishSchedule(of: writer)
      w.lastSequence = sequence
    case .action(let sequence, let time, let action, let state):
      append(&w, sequence: sequence, time: time, state: state) { writer throws(TraceError) in
        try writer.append(sequence: sequence, time: time, action: action, state: state?.take())
      }
    case .encoded(let sequence, let time, let end, let state):
      let encoded = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
      start = end
      append(&w, sequence: sequence, time: time, state: state) { writer throws(TraceError) in
        try writer.append(sequence: sequence, time: time, encoded: encoded, state: state.take())
      }
    case .checkpoint(let sequence, let state):
      if let writer = w.writer, w.started {
        attempt(&w) { () throws(TraceError) in try writer.checkpoint(state, sequence: sequence) }
        if let writer = w.writer { publishSchedule(of: writer) }
      }
    case .flush(let completion):
      if let writer = w.writer {
        attempt(&w) { () throws(TraceError) in try writer.sync() }
      }
      // Published before `flush()` returns, so that its caller sees the writer caught up.
      writtenSequence.store(w.lastSequence, ordering: .relaxed)
      completion.finish(w.writer == nil && !isClosed ? closedError : nil)
    case .overflow:
      guard let writer = w.writer, w.started else { return false }
      let end = w.lastTime ?? w.header.startTime
      attempt(&w) { () throws(TraceError) in try writer.close(endTime: end) }
      if w.writer != nil {
        w.writer = nil
        let error = TraceError(
          .tooLarge,
          "the trace writer fell behind by \(configuration.maxPendingActions) actions; recording stopped cleanly after the last one written",
          path: writer.path)
        statusValue.withLock { $0 = .failed(error) }
        onError?(error)
      }
    case .close(let completion):
      var error: TraceError? = nil
      if let writer = w.writer {
        if w.started {
          let end = w.lastTime ?? w.header.startTime
          attempt(&w) { () throws(TraceError) in try writer.close(endTime: end) }
        } else {
          writer.abandon()
        }
        if w.writer != nil {
          w.writer = nil
          statusValue.withLock { $0 = .closed }
        } else {
          error = closedError
        }
      } else if case .failed(let failure) = status {
        error = failure
      }
      completion.finish(error)
      return true
    }
    return false
  }

  private var isFailed: Bool {
    if case .failed = status { return true }
    return false
  }

  private var isClosed: Bool {
    if case .closed = status { return true }
    return false
  }

  /// Appends one action with `write`; when it came with a state, tells the sending side
  /// when the next one is due. (How far the writer has got is published once per batch.)
  private func append(
    _ w: inout WriterState, sequence: UInt64, time: Double, state: HandedState<State>?,
    _ write: (TraceWriter<State, Action>) throws(TraceError) -> Void
  ) {
    defer { if state != nil { pendingStates.subtract(1, ordering: .releasing) } }
    guard let writer = w.writer, w.started else { return }
    w.lastTime = time
    w.lastSequence = sequence
    attempt(&w) { () throws(TraceError) in try write(writer) }
    if state != nil { publishSchedule(of: writer) }
  }

  /// Tells the sending side when the writer's next state is due, and how large its state is.
  private func publishSchedule(of writer: TraceWriter<State, Action>) {
    stateIsSmall.store(writer.stateIsSmall, ordering: .relaxed)
    nextStateDue.store(writer.nextStateDue, ordering: .releasing)
  }

  /// Runs one write; on failure stops recording, reports once, keeps what was written.
  private func attempt(_ w: inout WriterState, _ body: () throws(TraceError) -> Void) {
    do {
      try body()
    } catch {
      let path = w.writer?.path ?? ""
      w.writer?.abandon()
      w.writer = nil
      let located = error.at(path: path)
      statusValue.withLock { $0 = .failed(located) }
      queue.withLock { $0.accepting = false }
      onError?(located)
    }
  }
}
