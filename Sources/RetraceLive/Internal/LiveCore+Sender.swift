import FlyingSocks
import Foundation
import Retrace
import RetraceLiveProtocol
import Synchronization

/// The background side of a link: connect, say `hello`, send what is queued, read the
/// Studio's commands; reconnect with backoff until closed.
extension LiveCore {
  /// The most actions in one `actions` message.
  static var actionsPerMessage: Int { 4_096 }

  /// How long the sender waits for more work before it declares itself idle, after which
  /// the next `record` must resume it (a task switch on the sending thread): an app that
  /// keeps sending finds it awake.
  static var linger: Duration { .milliseconds(1) }

  func run() async {
    var backoff = configuration.initialBackoff
    while !Task.isCancelled && !isClosing {
      setStatus(.connecting)
      var reason: LiveLinkError
      let began = ContinuousClock.now
      do throws(LiveLinkError) {
        let (socket, reader) = try await WebSocketClient.connect(
          to: endpoint, timeout: configuration.connectTimeout)
        reason = await serve(socket, reader)
      } catch {
        reason = error
      }
      // Whatever is queued was meant for the connection that ended: the next `hello`
      // covers it.
      let hadCheckpoint = queue.withLock { q -> Bool in
        q.accepting = false
        q.needsResync = false
        q.broken = nil
        return q.discard(keepingFrames: false)
      }
      if hadCheckpoint { checkpointDone(after: 0) }
      attachSnapshot.withLock { $0 = nil }
      if isClosing || reason.code == .closed { break }
      setStatus(.disconnected(reason))
      onEvent?(.disconnected(reason))
      if ContinuousClock.now - began > configuration.maximumBackoff {
        backoff = configuration.initialBackoff
      }
      await sleepUnlessClosing(backoff)
      backoff = min(backoff * 2, configuration.maximumBackoff)
    }
    statusValue.withLock { $0 = .closed }
  }

  private func sleepUnlessClosing(_ duration: Duration) async {
    let end = ContinuousClock.now + duration
    while ContinuousClock.now < end && !isClosing && !Task.isCancelled {
      try? await Task.sleep(for: min(.milliseconds(50), end - ContinuousClock.now))
    }
  }

  /// Serves one connection until it ends; returns why.
  private func serve(_ socket: AsyncSocket, _ reader: WebSocketReader) async -> LiveLinkError {
    let connection = generation.add(1, ordering: .sequentiallyConsistent).newValue
    queue.withLock { $0.broken = nil }
    currentSocket.withLock { $0 = socket }
    let readerTask = Task.detached { [self] in await readCommands(reader, connection) }
    let reason = await stream(socket, connection)
    readerTask.cancel()
    await readerTask.value
    currentSocket.withLock { $0 = nil }
    try? socket.close()
    return reason
  }

  private func write(_ socket: AsyncSocket, _ data: Data) async throws(LiveLinkError) {
    do {
      try await socket.write(data)
    } catch {
      throw LiveLinkError(
        .connectionFailed, "the connection broke: \(WebSocketClient.describe(error))",
        cause: error)
    }
  }

  /// Says `hello`, then sends what is queued until the connection ends or the link closes.
  private func stream(_ socket: AsyncSocket, _ connection: Int) async -> LiveLinkError {
    do throws(LiveLinkError) {
      guard let (sequence, hello) = try await makeHello(first: connection == 1) else {
        return LiveLinkError(.closed, "the store is gone")
      }
      try await write(socket, hello)
      setStatus(.connected)
      onEvent?(.connected(sequence: sequence, dropped: droppedCount))
      var batch = Batch()
      while true {
        let (took, needsResync, closing, broken) = await nextBatch(&batch)
        if took {
          let (frames, actions, checkpoints) = build(batch)
          batch.items.removeAll(keepingCapacity: true)
          batch.others.removeAll(keepingCapacity: true)
          batch.encoded.removeAll()
          do throws(LiveLinkError) {
            if !frames.isEmpty { try await write(socket, frames) }
          } catch {
            // Not sent: the next connection's `hello` covers them. The checkpoints taken out
            // of the queue will not be hashed: the next one is due after the last of them.
            queue.withLock { $0.dropped += actions }
            if let last = checkpoints.last { checkpointDone(after: last.0) }
            throw error
          }
          sentCount.add(actions, ordering: .relaxed)
          for (sequence, state) in checkpoints { hash(state, after: sequence, on: connection) }
          continue
        }
        if let broken { return broken }
        if closing {
          var close = FrameBuilder()
          close.bytes += [0x03, 0xe8]  // 1000, normal closure
          try? await write(socket, close.finish(opcode: 0x8))
          return LiveLinkError(.closed, "the link was closed")
        }
        if needsResync {
          guard let (sequence, hello) = try await makeHello(first: false) else {
            return LiveLinkError(.closed, "the store is gone")
          }
          try await write(socket, hello)
          onEvent?(.resynchronized(sequence: sequence, dropped: droppedCount))
        }
      }
    } catch {
      return error
    }
  }

  /// Waits for work and takes it: what is queued (`took`), or else whether the link must
  /// resynchronize, is closing, or its connection broke.
  private func nextBatch(
    _ batch: inout Batch
  ) async -> (took: Bool, needsResync: Bool, closing: Bool, broken: LiveLinkError?) {
    var lingered = false
    while true {
      let result = queue.withLock {
        q -> (took: Bool, needsResync: Bool, closing: Bool, broken: LiveLinkError?)? in
        if !q.items.isEmpty {
          swap(&batch.items, &q.items)
          swap(&batch.others, &q.others)
          swap(&batch.encoded, &q.encoded)
          q.actionCount = 0
          return (true, false, false, nil)
        }
        if q.broken != nil || q.closing || q.needsResync {
          return (false, q.needsResync, q.closing, q.broken)
        }
        return nil
      }
      if let result { return result }
      if !lingered {
        lingered = true
        try? await Task.sleep(for: Self.linger)
        continue
      }
      checkpointIfIdle()
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = queue.withLock { q -> Bool in
          if !q.items.isEmpty || q.broken != nil || q.closing || q.needsResync {
            return true
          }
          q.senderIdle = true
          q.waiter = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
      lingered = false
    }
  }

  /// The `hello` message: with the state taken at attach on the first connection, if
  /// nothing was dropped since; otherwise with the store's state now, taken on the main
  /// actor together with discarding what is queued up to it. `nil` when the store is gone.
  private func makeHello(first: Bool) async throws(LiveLinkError) -> (UInt64, Data)? {
    var snapshot: (sequence: UInt64, state: State)? = nil
    if first, !queue.withLock({ $0.needsResync }) {
      snapshot = attachSnapshot.withLock { snapshot in
        defer { snapshot = nil }
        return snapshot
      }
    }
    if snapshot == nil {
      guard let access = store.withLock({ $0 }) else { return nil }
      snapshot = await MainActor.run { [self] () -> (sequence: UInt64, state: State)? in
        guard let (sequence, state) = access.read() else { return nil }
        // On the main actor, where `record` runs: no action can come between the state
        // taken and the queue starting again after it.
        let hadCheckpoint = queue.withLock { q -> Bool in
          let had = q.discard()
          q.accepting = !q.closing
          q.needsResync = false
          // The `hello` carries this state whole.
          q.lastSequence = sequence
          q.lastChecked = sequence
          q.jumpedSinceAction = false
          return had
        }
        if hadCheckpoint { checkpointDone(after: sequence) }
        return (sequence, state)
      }
    }
    guard let snapshot else { return nil }
    queue.withLock { $0.lastChecked = max($0.lastChecked, snapshot.sequence) }
    let state = try encodeState(snapshot.state)
    var message = FrameBuilder(capacity: state.count + 256)
    state.withUnsafeBytes { state in
      AppMessage.appendHello(
        domain: session.domain, actionSchemaVersion: session.actionSchemaVersion,
        sessionID: session.sessionID, startTime: startTime.withLock { $0 }, app: session.app,
        sequence: snapshot.sequence, state: state, dropped: droppedCount,
        commands: LiveProtocol.appCommands, to: &message.bytes)
    }
    return (snapshot.sequence, message.finish(opcode: 0x2))
  }

  private func encodeState(_ state: State) throws(LiveLinkError) -> [UInt8] {
    do {
      return try CBOREncoder(deterministic: true).encode(state)
    } catch {
      throw LiveLinkError(
        .protocolViolation, "the store's state does not encode: \(error)", cause: error)
    }
  }

  /// The frames for a batch, how many actions they carry, and the states to hash.
  private func build(
    _ batch: borrowing Batch
  ) -> (frames: Data, actions: Int, checkpoints: [(UInt64, State)]) {
    var frames = Data()
    var actionCount = 0
    var checkpoints: [(UInt64, State)] = []
    // Actions encoded by the sender (no hand-written encoding), one after another.
    var extra: [UInt8] = []
    let encoder = CBOREncoder()
    batch.encoded.withBytes { encoded in
      var run: [(sequence: UInt64, time: Double, inQueue: Bool, range: Range<Int>)] = []
      func flush() {
        guard let first = run.first else { return }
        var message = FrameBuilder(capacity: run.count * 64 + 64)
        AppMessage.appendActionsHead(first: first.sequence, count: run.count, to: &message.bytes)
        for entry in run { AppMessage.appendTime(entry.time, to: &message.bytes) }
        AppMessage.appendActionsArrayHead(count: run.count, to: &message.bytes)
        for entry in run {
          if entry.inQueue {
            AppMessage.appendAction(
              UnsafeRawBufferPointer(rebasing: encoded[entry.range]), to: &message.bytes)
          } else {
            extra.withUnsafeBytes {
              AppMessage.appendAction(
                UnsafeRawBufferPointer(rebasing: $0[entry.range]), to: &message.bytes)
            }
          }
        }
        message.finish(opcode: 0x2, appendingTo: &frames)
        actionCount += run.count
        run.removeAll(keepingCapacity: true)
      }
      func add(_ sequence: UInt64, _ time: Double, inQueue: Bool, _ range: Range<Int>) {
        if let last = run.last,
          last.sequence &+ 1 != sequence || run.count >= Self.actionsPerMessage
        {
          flush()
        }
        run.append((sequence, time, inQueue, range))
      }
      var start = 0
      for item in batch.items {
        switch item {
        case .encoded(let sequence, let time, let end):
          add(sequence, time, inQueue: true, start..<end)
          start = end
        case .other(let index):
          switch batch.others[index] {
          case .action(let sequence, let time, let action):
            let from = extra.count
            do {
              try encoder.encode(action, appendingTo: &extra)
              add(sequence, time, inQueue: false, from..<extra.count)
            } catch {
              // An action that does not encode leaves a hole: resynchronize after it.
              extra.removeSubrange(from...)
              wakeSender { q in
                q.dropped += 1
                q.accepting = false
                q.needsResync = true
              }
            }
          case .checkpoint(let sequence, let state):
            flush()
            checkpoints.append((sequence, state))
          case .jump(let sequence, let time, let state):
            flush()
            if let bytes = try? CBOREncoder(deterministic: true).encode(state) {
              var message = FrameBuilder(capacity: bytes.count + 64)
              bytes.withUnsafeBytes {
                AppMessage.appendJump(
                  sequence: sequence, time: time, state: $0, to: &message.bytes)
              }
              message.finish(opcode: 0x2, appendingTo: &frames)
            }
          case .frame(let frame):
            flush()
            frames.append(frame)
          }
        }
      }
      flush()
    }
    return (frames, actionCount, checkpoints)
  }

  /// Takes the store's state for a checkpoint of its last action when the sender goes idle
  /// with actions no checkpoint covers, as a trace recorder does: a session shorter than
  /// ``LiveLinkConfiguration/checkpointInterval``, or the actions of a burst after its last
  /// checkpoint, are checked once the app stops acting. None while a checkpoint is being
  /// hashed (the one after it is taken when it is done), after a jump (the Studio was sent
  /// that state whole, and checks a checkpoint against the state the action gave), or with
  /// an interval of 0.
  ///
  /// The state is taken, and the hash claimed, on the main actor: an app that keeps the main
  /// actor busy with a burst of actions takes its periodic checkpoints meanwhile, and this
  /// one after them.
  private func checkpointIfIdle() {
    guard configuration.checkpointInterval != 0 else { return }
    let due = queue.withLock { q in
      q.accepting && !q.needsResync && !q.jumpedSinceAction && q.lastSequence > q.lastChecked
    }
    guard due, nextCheckpoint.load(ordering: .relaxed) != .max,
      let access = store.withLock({ $0 }),
      !idleCheckpointAsked.exchange(true, ordering: .acquiringAndReleasing)
    else { return }
    let connection = generation.load(ordering: .sequentiallyConsistent)
    Task.detached(priority: .utility) { [self] in
      // On the main actor, where `record` runs: the state is the one after the last action
      // queued, and the `checkpoint` is queued after it.
      let taken = await MainActor.run { [self] () -> (UInt64, State)? in
        guard let (sequence, state) = access.read() else { return nil }
        return queue.withLock { q -> (UInt64, State)? in
          guard q.accepting, !q.needsResync, !q.jumpedSinceAction, q.lastSequence == sequence,
            sequence > q.lastChecked, nextCheckpoint.load(ordering: .relaxed) != .max
          else { return nil }
          nextCheckpoint.store(.max, ordering: .relaxed)
          q.lastChecked = sequence
          return (sequence, state)
        }
      }
      idleCheckpointAsked.store(false, ordering: .releasing)
      if let (sequence, state) = taken { hash(state, after: sequence, on: connection) }
    }
  }

  /// Hashes a checkpoint's state on a task of its own and queues the `checkpoint` message;
  /// then waits eleven times as long as hashing took before the store hands over another
  /// state, so that hashing takes at most a twelfth of a core however large the state. The
  /// Studio hashes a checkpoint only when a tenth of the time since its last hash allows
  /// (`docs/LIVE.md`): with the same cost there, the link's twelve parts leave it ten, with
  /// room to spare, so that an idle checkpoint right after a periodic one is checked.
  private func hash(_ state: State, after sequence: UInt64, on connection: Int) {
    Task.detached(priority: .utility) { [self] in
      let start = ContinuousClock.now
      if let hash = try? StateHash(of: state),
        generation.load(ordering: .sequentiallyConsistent) == connection
      {
        var message = FrameBuilder()
        AppMessage.appendCheckpoint(sequence: sequence, hash: hash.rawValue, to: &message.bytes)
        enqueue(frame: message.finish(opcode: 0x2))
      }
      let elapsed = ContinuousClock.now - start
      try? await Task.sleep(for: min(elapsed * 11, .seconds(10)))
      checkpointDone(after: sequence)
      // An idle sender looks again for actions no checkpoint covers.
      wakeSender { _ in }
    }
  }

  /// Reads the Studio's messages on one connection until it ends.
  private func readCommands(_ reader: WebSocketReader, _ connection: Int) async {
    var reader = reader
    let isCurrent = { [self] in
      generation.load(ordering: .sequentiallyConsistent) == connection
    }
    do throws(LiveLinkError) {
      while !Task.isCancelled {
        switch try await reader.next(maximumSize: configuration.maximumMessageSize) {
        case .ping(let payload):
          var pong = FrameBuilder()
          pong.bytes += payload
          enqueue(frame: pong.finish(opcode: 0xA))
        case .pong, .text:
          continue
        case .close(let code):
          var close = FrameBuilder()
          close.bytes += [0x03, 0xe8]
          enqueue(frame: close.finish(opcode: 0x8))
          throw LiveLinkError(
            .connectionFailed,
            "the Studio closed the connection" + (code.map { " (code \($0))" } ?? ""))
        case .binary(let bytes):
          guard isCurrent() else { return }
          try await carryOut(bytes)
        }
      }
    } catch {
      guard isCurrent() else { return }
      wakeSender { q in
        if q.broken == nil { q.broken = error }
      }
    }
  }

  /// Carries out one message from the Studio; throws only when the Studio refuses the
  /// session, which ends the connection.
  private func carryOut(_ bytes: [UInt8]) async throws(LiveLinkError) {
    let message: StudioMessage
    do {
      message = try StudioMessage(decoding: bytes)
    } catch {
      switch error.code {
      case .notAMessage:
        refuse(
          LiveLinkError(.protocolViolation, "the Studio sent \(error.description)", cause: error))
      case .badField, .invalidAddress:
        refuse(LiveLinkError(.commandRefused, error.description, cause: error))
      }
      return
    }
    switch message {
    case .jump(let to, let stateBytes, let expected):
      let state: State
      do {
        state = try CBORDecoder().decode(State.self, from: stateBytes)
      } catch {
        refuse(
          LiveLinkError(
            .commandRefused, "jump to \(to) refused: the state does not decode: \(error)",
            cause: error))
        return
      }
      guard let hash = try? StateHash(of: state), hash.rawValue == expected else {
        let actual = (try? StateHash(of: state))?.description ?? "unknown"
        refuse(
          LiveLinkError(
            .commandRefused,
            "jump to \(to) refused: the state's hash is \(actual), not \(StateHash(rawValue: expected))"
          ))
        return
      }
      guard let access = store.withLock({ $0 }),
        let sequence = await MainActor.run(body: { access.jump(state) })
      else {
        refuse(LiveLinkError(.commandRefused, "jump to \(to) refused: the store is gone"))
        return
      }
      onEvent?(.jumped(sequence: sequence, hash: hash))
    case .dispatch(let bytes):
      let action: Action
      do {
        action = try decodeAction(bytes)
      } catch {
        refuse(
          LiveLinkError(
            .commandRefused, "dispatch refused: the action does not decode: \(error)",
            cause: error))
        return
      }
      guard let access = store.withLock({ $0 }),
        await MainActor.run(body: { access.dispatch(action) })
      else {
        refuse(LiveLinkError(.commandRefused, "dispatch refused: the store is gone"))
        return
      }
    case .error(let text):
      throw LiveLinkError(.refusedByStudio, "the Studio refused the session: \(text)")
    case .other:
      return
    }
  }

  /// Answers a command with an `error` message.
  private func refuse(_ error: LiveLinkError) {
    var message = FrameBuilder()
    AppMessage.appendError(error.message, to: &message.bytes)
    enqueue(frame: message.finish(opcode: 0x2))
    onEvent?(.refused(error))
  }
}
