import Dispatch
import Foundation
import Retrace
import Synchronization

/// Records every action a store reduces into a trace file.
///
/// Attach it to a store; the sending thread only appends the action to a buffer (no I/O),
/// and a background thread journals, compresses and writes. An action whose type has a
/// hand-written encoding (`CBOREncodable`) is appended encoded (cheap, and it spares the
/// background thread the work; see W4 in `Benchmarks/`); any other action is
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

  /// Creates a recorder that writes a new trace of `domain`'s store at `path` (replacing any
  /// file there).
  ///
  /// Nothing is written until the recorder is attached to a store (or
  /// ``attached(sequence:state:)`` is called), which writes the header and the starting
  /// snapshot.
  ///
  /// - Parameters:
  ///   - path: The trace file to create. Its journal is `path + ".journal"`.
  ///   - domain: The domain; its name and action schema version go into the header.
  ///   - sessionID: The session's identifier; a random UUID by default.
  ///   - startTime: The time action offsets count from, in seconds since 1970; the system
  ///     clock at attach time by default.
  ///   - app: Facts about the app for the header (name, version, build).
  ///   - configuration: Chunking, compression, checkpoints and snapshots.
  ///   - onError: Called once, on the background thread, if recording fails.
  /// - Throws: ``TraceError`` when the files cannot be created.
  public convenience init(
    path: String,
    domain: some Domain<State, Action>,
    sessionID: String? = nil,
    startTime: Double? = nil,
    app: [String: String] = [:],
    configuration: TraceRecorderConfiguration = TraceRecorderConfiguration(),
    onError: (@Sendable (TraceError) -> Void)? = nil
  ) throws(TraceError) {
    try self.init(
      path: path, domain: domain.name, actionSchemaVersion: domain.actionSchemaVersion,
      sessionID: sessionID, startTime: startTime, app: app, configuration: configuration,
      redaction: domain.redaction, replaying: domain, onError: onError)
  }

  /// Creates a recorder from the header's facts (and the redaction policy) rather than a
  /// domain, writing through `storage`: what tools that write another schema's actions
  /// (`retrace generate --action-schema`) and tests that inject failing or lossy storage use.
  ///
  /// A redacting recorder needs `replaying`, the domain whose reducer gives the states its
  /// hashes and snapshots are of (the redacted actions', replayed on the writer thread).
  package init(
    path: String,
    domain: String,
    actionSchemaVersion: Int = 1,
    sessionID: String? = nil,
    startTime: Double? = nil,
    app: [String: String] = [:],
    configuration: TraceRecorderConfiguration = TraceRecorderConfiguration(),
    redaction: RedactionPolicy? = nil,
    replaying replayDomain: (any Domain<State, Action>)? = nil,
    storage: any TraceStorage = FileStorage(),
    onError: (@Sendable (TraceError) -> Void)? = nil
  ) throws(TraceError) {
    let configuration = try configuration.validated()
    self.path = path
    var app = app
    // What a reader sees in the clear: that the values are pseudonyms, never the key.
    if configuration.redactionKey != nil { app["redaction"] = "keyed pseudonyms" }
    let header = TraceHeader(
      domain: domain, actionSchemaVersion: actionSchemaVersion,
      sessionID: sessionID ?? UUID().uuidString.lowercased(), startTime: startTime ?? .nan,
      app: app,
      checkpointInterval: configuration.checkpointInterval,
      snapshotInterval: configuration.snapshotInterval)
    // A header the reader would refuse is refused here, before any file is created.
    try header.checkWritable(path: path)
    let replay =
      configuration.redactionKey == nil ? nil : replayDomain.map { RedactedReplay(domain: $0) }
    let writer = try TraceWriter<State, Action>(
      path: path, configuration: configuration, storage: storage, redaction: redaction,
      replay: replay)
    core = RecorderCore(
      writer: writer, header: header, configuration: configuration, onError: onError)
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

  /// Records a time-travel jump: the store's state was set to `state` after action
  /// `sequence` (`Store.jump(to:)`). `previous`, the state before it, is hashed first
  /// (unless a hash is there already), so that the actions before the jump are covered;
  /// then the trace gets a chunk holding the new state, flagged
  /// as a jump (`docs/TRACE_FORMAT.md` §3), so that replaying it gives the states the app
  /// showed. A redacted trace cannot hold one: recording stops with an error.
  public func jumped(sequence: UInt64, time: Double, from previous: State, to state: State) {
    core.jump(sequence: sequence, from: previous, to: state)
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
