import FlyingFox
import Foundation
import Retrace
import RetraceDebugger
import RetraceLiveProtocol
import RetraceLog
import Synchronization

/// A segment of a live session, as the hub that reads its connection sees it, whatever its
/// domain.
protocol LiveSegment: StudioSession {
  /// Takes an app's message after the segment's `hello`: records actions and jumps, checks
  /// checkpoints.
  ///
  /// - Throws: ``LiveProtocolError`` when the message cannot be taken (an action that does
  ///   not decode, a gap in the sequence numbers); the hub then closes the connection.
  func receive(_ message: AppMessage) throws(LiveProtocolError)
  /// The connection ended, or a new `hello` started another segment: commands can no longer
  /// be sent, the recording is closed, and the states held for the app are let go of.
  func disconnect()
  /// Whether the app is connected: the segment has not ended.
  var isConnected: Bool { get }
  /// The trace the segment is recorded to.
  var recordedTo: String { get }
  /// How many states the segment holds for the app; none once it has ended.
  var heldStates: Int { get }
  /// Sends the app the `jump` command to the state after action `sequence` (`nil`: the state
  /// after its last action), and returns that sequence number.
  ///
  /// - Throws: `SessionError`: `conflict` when the app is not connected, `invalidRequest`
  ///   for a sequence number outside the segment.
  func jump(to sequence: UInt64?) async throws -> UInt64
  /// Sends the app the `dispatch` command with `json`, an action in the domain's JSON form
  /// (as the actions endpoint shows it), once it decodes as the domain's action; returns
  /// the action's case.
  ///
  /// - Throws: `SessionError`: `invalidRequest` when the text is not JSON or not one of the
  ///   domain's actions, `conflict` when the app is not connected or does not take
  ///   `dispatch`.
  func dispatch(json: String) async throws -> String
}

/// A segment of a running app's session, streamed over the live link: from one `hello` to
/// the next (or to the end of the connection).
///
/// The segment keeps the app's current state by reducing every action it receives with the
/// domain's reducer, checks the app's checkpoint hashes against it, and records the actions
/// to a trace with a `TraceRecorder`. Every request of the page is answered by a
/// ``FileSession`` over that growing trace, reopened (after a flush) when the session has
/// changed since it was last opened, at most four times a second.
final class LiveSession<D: Domain>: LiveSegment {
  /// The segment's id in the API's paths: `DOMAIN-live-SESSION`, then `-segment-N`.
  let id: String
  /// The domain the app's `hello` named.
  let domain: D
  /// The segment's number among the segments of its session id, from 1.
  let segment: Int
  /// The link's session id, the same across reconnections.
  let sessionID: String
  /// The trace the segment is recorded to.
  let recordedTo: String
  /// The facts about the app its `hello` gave.
  let app: [String: String]
  /// When the app's session started, in seconds since 1970, as its `hello` gave it.
  let startTime: Double
  /// The app's sequence number at the `hello`: the first action recorded is the next.
  let startSequence: UInt64
  private let flow: NavigationFlow?
  /// The commands the app carries out, from its `hello`.
  private let commands: Set<String>
  private let recorder: TraceRecorder<D.State, D.Action>
  private let live: Mutex<Live>
  private let opened = Mutex<Opened?>(nil)
  private let reopening = Mutex<Task<FileSession<D>, any Error>?>(nil)
  /// Where the connection's outgoing messages go while this is its current segment.
  private let outgoing: Mutex<AsyncStream<WSMessage>.Continuation?>

  /// How often the trace is reopened at most.
  static var reopenInterval: Duration { .milliseconds(250) }
  /// Every how many actions a state is kept to check a checkpoint that comes later.
  static var keptStateSpacing: UInt64 { 16 }
  /// How many kept states at most.
  static var keptStateLimit: Int { 1_024 }
  /// The estimated bytes the kept states may hold together: 64 MiB of JSON
  /// (``StatePreview/estimatedBytes``), of which a state holds about a third in memory. The
  /// estimate counts each state whole, though the kept states share what the actions between
  /// them did not change, so the memory they hold is at most this.
  static var keptStateBudget: Int { 64 << 20 }
  /// Every how many kept states the size of one is estimated again (an estimate walks the
  /// state's preview, too dear to make for each).
  static var keptStateEstimateSpacing: Int { 64 }

  /// What the segment knows of the app, guarded by one lock.
  private struct Live {
    /// The app's sequence number: its last action.
    var sequence: UInt64
    /// The app's state as the Studio reduced it (or set it, after a jump).
    var state: D.State
    /// The state after the last action when a jump has set ``state`` since (what resume
    /// goes back to); `nil` when ``state`` is that.
    var beforeJump: D.State?
    /// The states kept for checkpoints that have not arrived yet.
    var kept: [(sequence: UInt64, state: D.State)] = []
    /// The estimated size of the last kept state whose size was estimated, in bytes.
    var keptStateBytes = 0
    /// Kept states since the last estimate, up to ``keptStateEstimateSpacing``.
    var keptSinceEstimate = 0
    var checkpointsMatched = 0
    var checkpointsUnchecked = 0
    /// The last action whose state the app's checkpoint matched (or the `hello`'s, whose
    /// state the app sent whole), before any divergence: the states after it are the
    /// Studio's replay, not checked against the app's.
    var checkedThrough: UInt64
    /// The last checkpoint hashed, when its hash was done, and what it cost.
    var lastHashedSequence: UInt64 = 0
    var lastHashEnded: ContinuousClock.Instant?
    var lastHashCost: Duration = .zero
    /// The first checkpoint whose hash is not the Studio's.
    var divergence: (sequence: UInt64, app: StateHash, studio: StateHash)?
    var connected = true
    var closed = false
    /// Bumped by every message that changes the recording.
    var changes = 0
    /// The actions recorded, and the times of the first and the last: what the session list
    /// shows while the app is connected, without reading the recording.
    var actionCount = 0
    var firstTime: Double?
    var lastTime: Double?
    /// The last `error` the app sent.
    var appError: String?
    /// Why the Studio ended the segment, when it did.
    var problem: String?
    /// The app's jumps, in order: after which action, to the state after which action
    /// (`nil` when it is not a state the Studio sent), and when.
    var jumps: [(after: UInt64, to: UInt64?, time: Double)] = []
    /// The jumps sent and not answered yet, in order: their target and the state's hash (at
    /// most 64: an app that refuses them all does not grow it).
    var pendingJumps: [(to: UInt64, hash: StateHash)] = []
    /// Commands sent since the app last sent actions or a `jump`: an app that reads them
    /// answers with one or the other, and one that does not is sent no more than
    /// ``LiveHub/unreadMessageLimit`` (FlyingFox queues what the socket cannot take yet
    /// without limit).
    var unanswered = 0
    /// The action whose state the app shows since its last jump, or `nil` while it shows the
    /// state after its last action (or was moved to a state the Studio did not send:
    /// ``jumpedElsewhere``).
    var movedTo: UInt64?
    /// Whether the app's last jump took it to a state the Studio did not send.
    var jumpedElsewhere = false
  }

  /// The file session over the trace as it was when last opened.
  private struct Opened {
    var changes: Int
    /// The last action the trace held when it was opened.
    var lastSequence: UInt64
    var time: ContinuousClock.Instant
    var session: FileSession<D>
    var file: SessionFile
  }

  /// Starts a segment at `hello`: decodes its state and starts recording to `path`.
  ///
  /// - Throws: ``LiveProtocolError`` when the state does not decode or the trace cannot be
  ///   created.
  init(
    id: String, domain: D, hello: AppMessage.Hello, segment: Int, path: String,
    flow: NavigationFlow?, outgoing: AsyncStream<WSMessage>.Continuation
  ) throws(LiveProtocolError) {
    self.id = id
    self.domain = domain
    self.segment = segment
    self.sessionID = hello.sessionID
    self.recordedTo = path
    self.app = hello.app
    self.startTime = hello.startTime
    self.startSequence = hello.sequence
    self.flow = flow
    self.commands = hello.commands
    let state: D.State
    do {
      state = try hello.state.withUnsafeBytes { try CBORDecoder().decode(D.State.self, from: $0) }
    } catch {
      throw LiveProtocolError("the hello's state does not decode as \(domain.name)'s: \(error)")
    }
    do {
      recorder = try TraceRecorder(
        path: path, domain: domain, sessionID: hello.sessionID, startTime: hello.startTime,
        app: hello.app)
    } catch {
      throw LiveProtocolError("the Studio cannot record the session: \(error.message)")
    }
    recorder.attached(sequence: hello.sequence, state: state)
    live = Mutex(Live(sequence: hello.sequence, state: state, checkedThrough: hello.sequence))
    self.outgoing = Mutex(outgoing)
  }

  // MARK: - The app's messages

  func receive(_ message: AppMessage) throws(LiveProtocolError) {
    switch message {
    case .actions, .jump: live.withLock { $0.unanswered = 0 }
    default: break
    }
    switch message {
    case .actions(let actions):
      try record(actions)
    case .checkpoint(let sequence, let hash):
      check(sequence: sequence, hash: StateHash(rawValue: hash))
    case .jump(let sequence, let time, let bytes):
      let state: D.State
      do {
        state = try bytes.withUnsafeBytes { try CBORDecoder().decode(D.State.self, from: $0) }
      } catch {
        throw LiveProtocolError("the jump's state does not decode as \(domain.name)'s: \(error)")
      }
      // The Studio's command this jump answers, if any: the oldest one sent whose state it
      // is (by hash). Those sent before it were refused by the app (an `error`) and are
      // let go of with it.
      var target: UInt64? = nil
      if live.withLock({ !$0.pendingJumps.isEmpty }), let hash = try? StateHash(of: state) {
        target = live.withLock { live in
          guard let index = live.pendingJumps.firstIndex(where: { $0.hash == hash }) else {
            return nil
          }
          let to = live.pendingJumps[index].to
          live.pendingJumps.removeFirst(index + 1)
          return to
        }
      }
      try live.withLock { live throws(LiveProtocolError) in
        // A jump comes in its place among the actions: after the last one received.
        guard sequence == live.sequence else {
          throw LiveProtocolError(
            "a jump after action \(sequence), but the session's last action is \(live.sequence)")
        }
        if live.beforeJump == nil { live.beforeJump = live.state }
        let previous = live.state
        // The app's checkpoint of this action, which may come after the jump, is of the
        // state the action gave: kept for it.
        if !live.kept.contains(where: { $0.sequence == sequence }) {
          Self.keep(previous, at: sequence, in: &live)
        }
        live.state = state
        live.sequence = sequence
        live.changes += 1
        live.jumps.append((after: sequence, to: target, time: time))
        live.movedTo = target == sequence ? nil : target
        live.jumpedElsewhere = target == nil
        recorder.jumped(sequence: sequence, time: time, from: previous, to: state)
      }
    case .error(let text):
      live.withLock { $0.appError = text }
    case .hello, .unknown:
      return
    }
  }

  private func record(_ actions: AppMessage.Actions) throws(LiveProtocolError) {
    let first = actions.first
    try live.withLock { live throws(LiveProtocolError) in
      guard live.sequence < UInt64(Int64.max), first == live.sequence + 1,
        UInt64(actions.count) <= UInt64(Int64.max) - live.sequence
      else {
        live.problem =
          "actions from \(first) after action \(live.sequence): the actions between are missing"
        throw LiveProtocolError(live.problem!)
      }
      try actions.forEach { offset, time, bytes throws(LiveProtocolError) in
        let sequence = first + UInt64(offset)
        let action: D.Action
        do {
          action = try domain.decodeAction(from: bytes)
        } catch {
          live.problem = "action \(sequence) does not decode as a \(domain.name) action: \(error)"
          throw LiveProtocolError(live.problem!)
        }
        _ = domain.reduce(into: &live.state, action: action)
        live.beforeJump = nil
        live.movedTo = nil
        live.jumpedElsewhere = false
        live.sequence = sequence
        live.actionCount += 1
        if live.firstTime == nil { live.firstTime = time }
        live.lastTime = time
        let wanted = recorder.wantsStateAfter(sequence: sequence)
        recorder.record(
          sequence: sequence, time: time, action: action, stateBefore: nil,
          stateAfter: wanted ? live.state : nil)
        if sequence % Self.keptStateSpacing == 0 {
          Self.keep(live.state, at: sequence, in: &live)
        }
      }
      live.changes += 1
    }
  }

  /// Keeps `state`, the state after `sequence`, for a checkpoint that comes later, and lets
  /// the oldest kept states go while there are more than ``keptStateLimit`` or they pass
  /// ``keptStateBudget`` (a checkpoint for one of those counts as unchecked).
  private static func keep(_ state: D.State, at sequence: UInt64, in live: inout Live) {
    live.kept.append((sequence, state))
    if live.keptSinceEstimate == 0 {
      live.keptStateBytes = (try? StatePreview(state).estimatedBytes) ?? 0
    }
    live.keptSinceEstimate = (live.keptSinceEstimate + 1) % keptStateEstimateSpacing
    // States grow as actions come, so the latest estimate holds for the older ones too.
    let most = max(1, min(keptStateLimit, keptStateBudget / max(1, live.keptStateBytes)))
    if live.kept.count > most {
      live.kept.removeFirst(live.kept.count - most)
    }
  }

  /// How many states the segment holds for the app: its current state, the one before a
  /// jump, and those kept for checkpoints. None once it has ended.
  var heldStates: Int {
    live.withLock { live in
      live.closed ? 0 : 1 + (live.beforeJump == nil ? 0 : 1) + live.kept.count
    }
  }

  var isConnected: Bool { live.withLock { $0.connected } }

  /// Compares the app's hash of its state after `sequence` with the Studio's: a state the
  /// Studio holds at that sequence number, or kept there; a checkpoint for a state it no
  /// longer has counts as unchecked.
  private func check(sequence: UInt64, hash: StateHash) {
    live.withLock { live in
      // A state kept at that action first: after a jump there, it is the one the action gave.
      let state =
        live.kept.first { $0.sequence == sequence }?.state
        ?? (sequence == live.sequence ? live.state : nil)
      live.kept.removeAll { $0.sequence <= sequence }
      // Hashing a state costs its size: a checkpoint that comes again for a state already
      // checked, or sooner than a tenth of the time since the last hash allows, is counted
      // as unchecked rather than hashed, so that an app (or anyone with the token) sending
      // checkpoints as fast as it can keeps the Studio at most a tenth busy with them.
      let now = ContinuousClock.now
      let affordable =
        sequence > live.lastHashedSequence
        && (live.lastHashEnded.map { now - $0 >= live.lastHashCost * 10 } ?? true)
      guard affordable, let state, let ours = try? StateHash(of: state) else {
        live.checkpointsUnchecked += 1
        return
      }
      live.lastHashedSequence = sequence
      live.lastHashEnded = ContinuousClock.now
      live.lastHashCost = live.lastHashEnded! - now
      if ours == hash {
        live.checkpointsMatched += 1
        if live.divergence == nil { live.checkedThrough = max(live.checkedThrough, sequence) }
      } else if live.divergence == nil {
        live.divergence = (sequence, hash, ours)
      }
    }
  }

  func disconnect() {
    let wasConnected = live.withLock { live in
      defer { live.connected = false }
      return live.connected
    }
    guard wasConnected else { return }
    outgoing.withLock { $0 = nil }
    // The recording ends with a checkpoint of the state as reduced, and its index. Then the
    // states held for the app (its state, the one before a jump, those kept for late
    // checkpoints) are let go of: from now on the recording answers every request, and a
    // checkpoint can no longer come.
    let held = live.withLock { live in
      recorder.checkpoint(state: live.state, after: live.sequence)
      try? recorder.close()
      live.closed = true
      live.changes += 1
      let held = (live.state, live.beforeJump, live.kept)
      live.state = domain.initialState
      live.beforeJump = nil
      live.kept = []
      return held
    }
    releaseInBackground(held, returningMemory: true)
    // The file session opened while the app was connected (with the whole session and its
    // checkpoints, if the page loaded them) is opened again from the closed recording when
    // it is next asked for.
    releaseInBackground(
      opened.withLock { opened in
        defer { opened = nil }
        return opened?.session
      }, returningMemory: true)
  }

  // MARK: - Commands

  func jump(to sequence: UInt64?) async throws -> UInt64 {
    guard live.withLock({ $0.connected }), outgoing.withLock({ $0 != nil }) else {
      throw SessionError(.conflict, "the app of live session '\(id)' is not connected")
    }
    // A diverged session's states past the last one checked are the Studio's replay with a
    // reducer that is not the app's: the app would be given a state its own reducer never
    // produced.
    let (divergence, checked, last) = live.withLock {
      ($0.divergence, $0.checkedThrough, $0.sequence)
    }
    if let divergence, (sequence ?? last) > checked {
      throw SessionError(
        .conflict,
        "live session '\(id)' has diverged (the app's state after action \(divergence.sequence) is not the Studio's replay): the Studio's states after action \(checked) may be states the app's own reducer never produced, so the app is not moved there; move it to action \(checked) or before"
      )
    }
    let target: UInt64
    let state: D.State
    if let sequence {
      let session = try await current(fresh: true)
      let file = session.file
      let domain = self.domain
      state = try await offload {
        let source = try file.source(as: domain)
        guard (source.startSequence...source.lastSequence).contains(sequence) else {
          throw SessionError(
            .invalidRequest,
            "'to' must be from \(source.startSequence) to \(source.lastSequence) or last, not \(sequence)"
          )
        }
        return try source.state(at: sequence)
      }
      target = sequence
    } else {
      (target, state) = live.withLock { ($0.sequence, $0.beforeJump ?? $0.state) }
    }
    // Encoding and hashing a large state takes long: on a worker thread.
    let (bytes, hash) = try await offload {
      (try CBOREncoder(deterministic: true).encode(state), try StateHash(of: state))
    }
    let message = Data(StudioMessage.jump(to: target, state: bytes, hash: hash.rawValue).encoded())
    live.withLock { live in
      live.pendingJumps.append((to: target, hash: hash))
      if live.pendingJumps.count > 64 { live.pendingJumps.removeFirst() }
    }
    do {
      try send(message)
    } catch {
      live.withLock { _ = $0.pendingJumps.popLast() }
      throw error
    }
    return target
  }

  func dispatch(json: String) async throws -> String {
    guard live.withLock({ $0.connected }), outgoing.withLock({ $0 != nil }) else {
      throw SessionError(.conflict, "the app of live session '\(id)' is not connected")
    }
    guard commands.contains("dispatch") else {
      throw SessionError(
        .conflict,
        "the app of live session '\(id)' does not take dispatch: its link is older (its hello lists no 'dispatch' command)"
      )
    }
    let (bytes, action) = try ActionJSON.decode(json, as: domain)
    try send(Data(StudioMessage.dispatch(action: bytes).encoded()))
    return actionCaseName(of: action)
  }

  // MARK: - The file session over the recording

  /// The file session over the trace, reopened first when the session has changed since
  /// it was opened and the last opening is at least ``reopenInterval`` old, or when it lacks
  /// action `sequence`, which the session list (counted as actions come) may already show.
  /// With `fresh`, it is reopened whenever the session has changed: a command computes its
  /// state from every action received.
  func current(fresh: Bool = false, through sequence: UInt64? = nil) async throws
    -> FileSession<D>
  {
    let (changes, last) = live.withLock { ($0.changes, $0.sequence) }
    let needed = sequence.map { min($0, last) } ?? 0
    if let opened = opened.withLock({ $0 }), needed <= opened.lastSequence,
      opened.changes == changes
        || (!fresh && ContinuousClock.now - opened.time < Self.reopenInterval)
    {
      return opened.session
    }
    let session = try await reopened()
    // A reopening that was under way may have flushed before the action asked for came.
    guard let opened = opened.withLock({ $0 }), opened.lastSequence < needed else {
      return session
    }
    return try await reopened()
  }

  /// The reopening under way, or a new one.
  private func reopened() async throws -> FileSession<D> {
    let task = reopening.withLock { task in
      if let task { return task }
      let started = Task { [self] in
        defer { reopening.withLock { $0 = nil } }
        return try await offload { try self.reopen() }
      }
      task = started
      return started
    }
    return try await task.value
  }

  /// Flushes the recorder and opens the trace, while no message is recorded, so that the
  /// file is read whole and consistent.
  private func reopen() throws -> FileSession<D> {
    let (changes, last, file) = try live.withLock {
      live throws -> (Int, UInt64, SessionFile) in
      if !live.closed {
        recorder.checkpoint(state: live.state, after: live.sequence)
        try recorder.flush()
      }
      return (
        live.changes, live.sequence, try SessionFile.open(recordedTo, usingIndex: true, key: nil)
      )
    }
    let session = FileSession<D>(id: id, domain: domain, file: file, flow: flow, key: nil)
    opened.withLock {
      $0 = Opened(changes: changes, lastSequence: last, time: .now, session: session, file: file)
    }
    return session
  }

  /// Queues a command for the app.
  ///
  /// - Throws: `SessionError`: `conflict` when the app is not connected, `busy` when it has
  ///   not read the last ``LiveHub/unreadMessageLimit`` commands (they are not queued
  ///   without limit).
  private func send(_ message: Data) throws {
    let answered = live.withLock { live in
      guard live.unanswered < LiveHub.unreadMessageLimit else { return false }
      live.unanswered += 1
      return true
    }
    guard answered else {
      throw SessionError(
        .busy,
        "the app of live session '\(id)' has not answered the last \(LiveHub.unreadMessageLimit) commands"
      )
    }
    switch outgoing.withLock({ $0?.yield(.data(message)) }) {
    case .enqueued?: return
    case .dropped?:
      throw SessionError(
        .busy,
        "the app of live session '\(id)' has not read the last \(LiveHub.unreadMessageLimit) commands"
      )
    default: throw SessionError(.conflict, "the app of live session '\(id)' is not connected")
    }
  }

  // MARK: - Requests

  /// How the session list names the segment, so that apps and launches stand apart: the
  /// domain, `live`, the app's name and version when its `hello` gave them, the time the
  /// session started (this machine's clock and zone), and the segment after the first:
  /// `banking · live · Acme 2.1 · 14:03:12 · segment 2`.
  var displayName: String {
    var parts = [domain.name, "live"]
    let app = [self.app["name"], self.app["version"]].compactMap { $0 }.joined(separator: " ")
    if !app.isEmpty { parts.append(String(app.prefix(60))) }
    if startTime.isFinite, startTime > 0 {
      // On a 24-hour clock whatever the locale (a 12-hour one would need AM/PM).
      let time = Calendar.current.dateComponents(
        [.hour, .minute, .second], from: Date(timeIntervalSince1970: startTime))
      parts.append(
        [time.hour, time.minute, time.second].map { String(format: "%02d", $0 ?? 0) }
          .joined(separator: ":"))
    }
    if segment > 1 { parts.append("segment \(segment)") }
    return parts.joined(separator: " · ")
  }

  /// The file session's summary as the live segment's: its recording as its `file`, its
  /// live fields (``LiveStatus``), and an integrity that says `diverged` when a checkpoint did
  /// not match.
  private func withLiveStatus(_ summary: SessionSummary) -> SessionSummary {
    let live = self.live.withLock {
      (
        connected: $0.connected, divergence: $0.divergence, matched: $0.checkpointsMatched,
        unchecked: $0.checkpointsUnchecked, checkedThrough: $0.checkedThrough,
        appError: $0.appError, problem: $0.problem,
        jumps: $0.jumps, appAt: $0.jumpedElsewhere ? nil : ($0.movedTo ?? $0.sequence)
      )
    }
    var summary = summary
    summary.file = recordedTo
    if let divergence = live.divergence {
      summary.integrity.status = "diverged"
      summary.integrity.problem =
        "the app's state after \(divergence.sequence) has hash \(divergence.app), the Studio's replay \(divergence.studio)"
      summary.integrity.sequence = divergence.sequence
    }
    summary.liveStatus = LiveStatus(
      name: displayName, connected: live.connected, diverged: live.divergence != nil,
      recordedTo: recordedTo, checkedThrough: live.checkedThrough, segment: segment,
      liveSessionID: sessionID,
      appCheckpoints: .init(matched: live.matched, unchecked: live.unchecked),
      divergence: live.divergence.map {
        .init(sequence: $0.sequence, app: $0.app.description, studio: $0.studio.description)
      },
      appError: live.appError, commands: commands.sorted(),
      jumps: live.jumps.map { .init(after: $0.after, to: $0.to, time: $0.time) },
      appAt: live.appAt, problem: live.problem)
    return summary
  }

  /// While the app is connected, the summary is made from what the segment counted as it
  /// recorded; once it has ended, from its recording (read once). Reopening the growing
  /// recording for the list (a flush to disk, a hash of the state, a read of every action)
  /// for every connected segment at each of the page's polls took seconds per segment.
  func summary() async throws -> any StudioAnswer {
    if let counted = countedSummary() { return withLiveStatus(counted) }
    return withLiveStatus(try await current().sessionSummary())
  }

  /// The summary from the segment's counts, as the recording would give it (its integrity
  /// `unfinished`, every action in its journal); `nil` once the segment has ended.
  private func countedSummary() -> SessionSummary? {
    live.withLock { live in
      guard !live.closed else { return nil }
      var integrity = IntegrityReport(status: .unfinished, intactActions: live.actionCount)
      integrity.recoveredActions = live.actionCount
      return SessionSummary(
        id: id, file: recordedTo, format: "trace", domain: domain.name,
        actions: live.actionCount, firstSequence: startSequence + 1,
        lastSequence: startSequence + UInt64(live.actionCount), startTime: startTime,
        duration: (live.lastTime ?? 0) - (live.firstTime ?? 0),
        integrity: IntegrityJSON(integrity))
    }
  }

  func detail() async throws -> any StudioAnswer {
    var detail = try await current().sessionDetail()
    detail.summary = withLiveStatus(detail.summary)
    return detail
  }

  func actions(from: UInt64?, to: UInt64?, type: String?, text: String?, limit: Int) async throws
    -> any StudioAnswer
  {
    try await current(through: to ?? from).actions(
      from: from, to: to, type: type, text: text, limit: limit)
  }

  func state(at: UInt64?, window: StateWindow?, full: Bool) async throws -> any StudioAnswer {
    try await current(through: at).state(at: at, window: window, full: full)
  }

  func state(at: UInt64?, skipping skipped: Set<UInt64>) async throws -> any StudioAnswer {
    try await current(through: at).state(at: at, skipping: skipped)
  }

  func search(at: UInt64?, query: String, limit: Int) async throws -> any StudioAnswer {
    try await current(through: at).search(at: at, query: query, limit: limit)
  }

  func diff(from: UInt64?, to: UInt64?) async throws -> any StudioAnswer {
    try await current(through: [from, to].compactMap { $0 }.max()).diff(from: from, to: to)
  }

  func bisect(invariant: String) async throws -> any StudioAnswer {
    try await current().bisect(invariant: invariant)
  }

  func bench(repetitions: Int) async throws -> any StudioAnswer {
    try await current().bench(repetitions: repetitions)
  }

  func flows() async throws -> any StudioAnswer {
    try await current().flows()
  }

  func lanes(buckets: Int, span: ClosedRange<UInt64>?) async throws -> any StudioAnswer {
    try await current().lanes(buckets: buckets, span: span)
  }

  func export(from: UInt64?, to: UInt64?) async throws -> String {
    try await current(through: [from, to].compactMap { $0 }.max()).export(from: from, to: to)
  }

  func shrink(invariant: String) async throws -> any StudioAnswer {
    try await current().shrink(invariant: invariant)
  }
}
