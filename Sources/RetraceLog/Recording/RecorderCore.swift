import Dispatch
import Foundation
import Retrace
import Synchronization

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

  /// Queues a time-travel jump. With reproducible checkpoints, waits until the writer has
  /// dealt with it: a jump starts the writer's schedule again (the next state is due soon
  /// after it, not where it was), and a sending side that ran on with the schedule from
  /// before would hand the writer no state until then, so that the file would depend on
  /// how far behind the writer was.
  func jump(sequence: UInt64, from previous: State, to state: State) {
    guard configuration.reproducibleCheckpoints else {
      enqueue(.jump(sequence, previous, state))
      return
    }
    pendingStates.add(1, ordering: .relaxed)
    guard enqueue(.jump(sequence, previous, state)) else {
      pendingStates.subtract(1, ordering: .releasing)
      return
    }
    waitForStateDecisions(below: 1)
  }

  /// Queues a command; whether it was taken.
  @discardableResult
  func enqueue(_ command: RecorderCommand<State, Action>) -> Bool {
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
    return accepted
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
    /// When the idle writer should look again at an unhashed state it could not yet afford
    /// to hash (``TraceWriter/latestStateWait``).
    var retry: DispatchTime?
    while true {
      if let deadline = retry {
        retry = nil
        if wakeup.wait(timeout: deadline) == .timedOut {
          retry = requestStoreStateIfUnhashed()
          continue
        }
      } else {
        wakeup.wait()
      }
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
          // While no action waits: split a few of the open chunk's actions into columns.
          let more = writer.withLock { w in w.writer?.splitPendingActions(limit: 64) ?? false }
          if more { continue }
          if lingered {
            retry = requestStoreStateIfUnhashed()
            break
          }
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

  /// Whether a request for the store's state (``requestStoreStateIfUnhashed()``) is on its
  /// way to the main actor.
  private let storeStateRequested = Atomic<Bool>(false)

  /// Hashes the latest state when the writer goes idle with actions no hash covers
  /// (``TraceWriter/latestStateIsDue``): a redacting writer hashes the state it replays
  /// itself; any other asks the attached store, on the main actor, for its state (as
  /// `flush()` does).
  ///
  /// A writer that falls behind during a burst gets no state (see ``wantsState(at:)``), and
  /// once the sends stop none is offered; a small state's last actions since a checkpoint
  /// were never hashed either. With this, a crash while the app waits for its user leaves
  /// no action unchecked (a large state keeps the spacing its size sets).
  ///
  /// - Returns: When to look again, when the state waits to be affordable to hash.
  private func requestStoreStateIfUnhashed() -> DispatchTime? {
    guard !configuration.reproducibleCheckpoints else { return nil }
    var wait: UInt64?
    let unhashed = writer.withLock { w -> Bool in
      guard w.started, let writer = w.writer, let due = writer.latestStateWait else { return false }
      guard due == 0 else {
        wait = due
        return false
      }
      guard !writer.isRedacting else {
        attempt(&w) { () throws(TraceError) in
          try writer.checkpointReplayedStateIfDue()
          try writer.endBatch()
        }
        return false
      }
      return true
    }
    if let wait { return .now() + .nanoseconds(Int(min(wait, 60_000_000_000))) }
    guard unhashed, let read = storeState.withLock({ $0 }) else { return nil }
    guard !storeStateRequested.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
    Task { @MainActor [self] in
      storeStateRequested.store(false, ordering: .releasing)
      guard let (sequence, state) = read() else { return }
      enqueue(.checkpoint(sequence, state))
    }
    return nil
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
        // An encrypted trace's journal takes the batch's records sealed together.
        if let writer = w.writer, w.started {
          attempt(&w) { () throws(TraceError) in try writer.endBatch() }
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
    case .jump(let sequence, let previous, let state):
      if let writer = w.writer, w.started {
        attempt(&w) { () throws(TraceError) in
          try writer.jump(from: previous, to: state, sequence: sequence)
        }
        if let writer = w.writer { publishSchedule(of: writer) }
      }
      // The sending side waits for this with reproducible checkpoints (`jump`).
      if configuration.reproducibleCheckpoints {
        pendingStates.subtract(1, ordering: .releasing)
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
