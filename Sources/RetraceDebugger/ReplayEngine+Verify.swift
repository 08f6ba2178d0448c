import Retrace

/// The result of ``ReplayEngine/verify(progress:)``: whether the domain's reducer still
/// produces the states the session recorded, and if not, where it first stopped doing so.
///
/// A hash covers every action up to it: the replayed state after action N has the recorded
/// hash only if the reducer reproduced the effect of every action before. So a session is
/// verified when every recorded hash was reproduced *and* its last action is covered by
/// one; actions after the last hash (a crashed session's tail, a session recorded without
/// a final hash, JSON Lines, which hold no hashes) were replayed but not checked, and
/// ``uncoveredActions`` counts them.
public struct VerificationReport: Sendable {
  /// The number of actions replayed (all of them when verified; up to the divergence when not).
  public var actionsReplayed: Int
  /// The number of recorded checkpoint hashes compared.
  public var checkpointsChecked: Int
  /// The number of recorded snapshot hashes compared.
  public var snapshotsChecked: Int
  /// The time-travel jumps the replay followed (`RecordedSession.jumps`): states the app
  /// was set to without an action, each checked against its own hash when it was read.
  public var jumpsFollowed = 0
  /// The first place where the replayed state differs from the recorded one; `nil` when the
  /// replay reproduced every recorded hash.
  public var divergence: Divergence?
  /// The sequence number of the last action covered by a reproduced hash (the session's
  /// start when none is): every action up to it was checked. In a session with time-travel
  /// jumps, actions before a jump that no hash covers count as uncovered, and this stops
  /// before the first of them.
  public var coveredThrough: UInt64
  /// The actions after the last reproduced hash, which nothing checked (0 when diverged:
  /// the replay stopped at the divergence).
  public var uncoveredActions: Int

  /// The number of recorded hashes compared, checkpoints and snapshots.
  public var hashesChecked: Int { checkpointsChecked + snapshotsChecked }

  /// Whether every recorded hash was reproduced and every action is covered by one.
  public var isVerified: Bool { divergence == nil && uncoveredActions == 0 }
}

/// Where a replay first stopped reproducing the recorded states.
public struct Divergence: Sendable, Equatable {
  /// What kind of record the mismatch was found at.
  public enum Kind: String, Sendable, Equatable, Codable {
    /// A checkpoint: a recorded hash only.
    case checkpoint
    /// A snapshot: a recorded state with its hash.
    case snapshot
  }

  /// The sequence number of the checkpoint or snapshot whose hash did not match.
  public var sequence: UInt64
  /// Whether it was a checkpoint or a snapshot.
  public var kind: Kind
  /// The hash the recorder wrote.
  public var recordedHash: UInt64
  /// The hash of the replayed state.
  public var replayedHash: UInt64
  /// The actions among which the divergence happened: those after the last record whose
  /// hash matched, up to and including ``sequence``.
  public var window: ClosedRange<UInt64>
  /// The sequence number of the last record whose hash matched (or of the last
  /// time-travel jump, which sets the state), before ``window``; `nil` when nothing came
  /// before the mismatch: the hash of the state the session starts from did not match.
  public var lastMatch: UInt64?
  /// The difference from the recorded state to the replayed one, when a snapshot at
  /// ``sequence`` holds the recorded state; `nil` otherwise.
  public var stateDiff: String?
}

extension ReplayEngine {
  /// Replays the whole session from its initial state and compares the hash of the
  /// replayed state with every recorded checkpoint and snapshot hash.
  ///
  /// This is how a changed reducer is caught: replaying an old session with new code, the
  /// first checkpoint after the actions whose handling changed no longer matches. The report
  /// names that checkpoint, the window of actions since the last matching one, and, when
  /// the session holds a snapshot there, what differs between the recorded and the replayed
  /// state.
  ///
  /// ```swift
  /// let report = debugger.verify()
  /// if let divergence = report.divergence {
  ///   print("diverged at \(divergence.sequence), among actions \(divergence.window)")
  /// }
  /// ```
  ///
  /// ```
  /// diverged at 2000, among actions 1001...2000
  /// ```
  ///
  /// - Parameter progress: Called now and then with the number of actions replayed and the
  ///   total.
  /// - Returns: The report; it stops at the first mismatch.
  public func verify(progress: ((_ done: Int, _ total: Int) -> Void)? = nil) -> VerificationReport {
    let marks = verificationMarks()
    var report = VerificationReport(
      actionsReplayed: 0, checkpointsChecked: 0, snapshotsChecked: 0,
      coveredThrough: session.startSequence,
      uncoveredActions: 0)
    // Time-travel jumps, each taken after the hashes recorded at its sequence number (which
    // are of the state before it). A hash after a jump covers only the actions since it: the
    // actions before a jump that no hash there covers stay unchecked.
    let jumps = jumpAfter.keys.sorted()
    var nextJump = 0
    var uncoveredBeforeJumps = 0
    var firstGap: UInt64?
    var state = session.initialState
    var position = session.startSequence
    var lastMatch = session.startSequence
    let total = session.actions.count
    func replay(to end: UInt64) {
      while position < end {
        let stop = min(end, position + UInt64(progressStride))
        advance(&state, from: position, to: stop, jumpAtEnd: false)
        position = stop
        progress?(Int(position - session.startSequence), total)
      }
    }
    func takeJumps(before limit: UInt64?) {
      while nextJump < jumps.count, limit.map({ jumps[nextJump] < $0 }) ?? true {
        let sequence = jumps[nextJump]
        replay(to: sequence)
        if lastMatch < sequence {
          uncoveredBeforeJumps += Int(sequence - lastMatch)
          if firstGap == nil { firstGap = lastMatch }
        }
        state = jumpAfter[sequence]!
        lastMatch = sequence
        nextJump += 1
      }
    }
    // The states are hashed on a lane of their own while the replay goes on to the next
    // mark; the answers are taken in order, each with what the report says if it is the
    // first mismatch (the marks before it matched, or it would not be the first).
    let lane = marks.count > 1 ? HashLane<D.State>(hash: stateHash) : nil
    defer { lane?.close() }
    var pending: [PendingHash<D.State>] = []
    var given = 0
    var taken = 0
    func divergence(of first: PendingHash<D.State>, hash: UInt64) -> VerificationReport {
      let mark = first.mark
      let recordedState =
        (mark.snapshotIndex.flatMap { session.snapshots[$0].state }
          ?? session.snapshots.first { $0.sequence == mark.sequence && $0.state != nil }?.state)
        ?? (session.snapshots.contains { $0.sequence == mark.sequence }
          ? session.loadSnapshotState?(mark.sequence) : nil)
      var report = first.report
      report.divergence = Divergence(
        sequence: mark.sequence, kind: mark.kind, recordedHash: mark.hash, replayedHash: hash,
        window: min(first.lastMatch + 1, mark.sequence)...mark.sequence,
        lastMatch: first.lastMatch < mark.sequence ? first.lastMatch : nil,
        stateDiff: recordedState.flatMap { RetraceDebugger.stateDiff($0, first.state) })
      return report
    }
    /// The report of the first mismatch among the oldest pending marks, taken until at most
    /// `limit` are left.
    func takeAnswers(leaving limit: Int) -> VerificationReport? {
      while pending.count > limit {
        let first = pending.removeFirst()
        let hash = lane?.answer(taken) ?? stateHash(first.state)
        taken += 1
        if hash != first.mark.hash { return divergence(of: first, hash: hash) }
      }
      return nil
    }
    for mark in marks {
      takeJumps(before: mark.sequence)
      replay(to: mark.sequence)
      switch mark.kind {
      case .checkpoint: report.checkpointsChecked += 1
      case .snapshot: report.snapshotsChecked += 1
      }
      var asOfHere = report
      asOfHere.actionsReplayed = Int(position - session.startSequence)
      asOfHere.coveredThrough = firstGap ?? lastMatch
      pending.append(PendingHash(mark: mark, state: state, report: asOfHere, lastMatch: lastMatch))
      lane?.give(given, state)
      given += 1
      if let diverged = takeAnswers(leaving: Self.hashesAhead) { return diverged }
      lastMatch = mark.sequence
    }
    // Every answer before the tail, which no hash checks: the replay goes at most two marks
    // past the first mismatch, never to the session's end.
    if let diverged = takeAnswers(leaving: 0) { return diverged }
    takeJumps(before: nil)
    replay(to: session.endSequence)
    report.actionsReplayed = total
    report.jumpsFollowed = session.jumps.count
    report.coveredThrough = firstGap ?? lastMatch
    report.uncoveredActions = uncoveredBeforeJumps + Int(session.endSequence - lastMatch)
    return report
  }

  /// How many states ``verify(progress:)`` may have given to be hashed and not yet taken the
  /// answer for: each is kept alive, and the replay's next change copies what it shares. The
  /// replay may go this many marks past the first mismatch (its progress too) before the
  /// report names it.
  private static var hashesAhead: Int { 2 }

  /// Every recorded hash in the session, in sequence order (a snapshot before a checkpoint
  /// at the same sequence number).
  private func verificationMarks() -> [Mark] {
    var marks: [Mark] = []
    marks.reserveCapacity(session.checkpoints.count + session.snapshots.count)
    for (index, snapshot) in session.snapshots.enumerated()
    where session.sequenceRange.contains(snapshot.sequence) {
      marks.append(
        Mark(
          sequence: snapshot.sequence, hash: snapshot.hash, kind: .snapshot, snapshotIndex: index))
    }
    for checkpoint in session.checkpoints where session.sequenceRange.contains(checkpoint.sequence)
    {
      marks.append(
        Mark(
          sequence: checkpoint.sequence, hash: checkpoint.hash, kind: .checkpoint,
          snapshotIndex: nil))
    }
    marks.sort {
      ($0.sequence, $0.kind == .snapshot ? 0 : 1) < ($1.sequence, $1.kind == .snapshot ? 0 : 1)
    }
    return marks
  }

  /// Returns this debugger's session with a checkpoint every `checkpointInterval` actions
  /// and a snapshot every `snapshotInterval` actions, computed by replaying it: what a
  /// recorder running this domain's reducer would have written.
  ///
  /// Useful to build sessions in tests and to give an imported session its checkpoints.
  ///
  /// - Parameters:
  ///   - checkpointInterval: Actions between two checkpoints (0 for none).
  ///   - snapshotInterval: Actions between two snapshots (0 for none).
  /// - Returns: The session with its checkpoints and snapshots replaced.
  public func recordingCheckpoints(
    every checkpointInterval: Int, snapshotEvery snapshotInterval: Int
  )
    -> RecordedSession<D>
  {
    var session = self.session
    session.checkpoints = []
    session.snapshots = []
    var state = startState
    var position = session.startSequence
    let step = [checkpointInterval, snapshotInterval].filter { $0 > 0 }.min() ?? 0
    guard step > 0 else { return session }
    while position < session.endSequence {
      // The next multiple of either interval.
      var next = session.endSequence
      for interval in [checkpointInterval, snapshotInterval] where interval > 0 {
        let multiple = (position / UInt64(interval) + 1) * UInt64(interval)
        next = min(next, multiple)
      }
      // Hashes after an action are of the state before a jump there, as a recorder's are.
      advance(&state, from: position, to: next, jumpAtEnd: false)
      position = next
      defer { applyJump(&state, after: position) }
      let isCheckpoint = checkpointInterval > 0 && position % UInt64(checkpointInterval) == 0
      let isSnapshot = snapshotInterval > 0 && position % UInt64(snapshotInterval) == 0
      guard isCheckpoint || isSnapshot else { continue }
      let hash = stateHash(state)
      if isCheckpoint { session.checkpoints.append(Checkpoint(sequence: position, hash: hash)) }
      if isSnapshot {
        session.snapshots.append(Snapshot(sequence: position, hash: hash, state: state))
      }
    }
    return session
  }
}

/// A recorded hash to compare during verification.
private struct Mark {
  var sequence: UInt64
  var hash: UInt64
  var kind: Divergence.Kind
  var snapshotIndex: Int?
}

/// A state given to be hashed, with what ``ReplayEngine/verify(progress:)`` reports if its
/// hash is the first that does not match.
private struct PendingHash<State> {
  var mark: Mark
  var state: State
  /// The report as of this mark.
  var report: VerificationReport
  /// The last sequence number whose hash matched (or a jump) before this mark.
  var lastMatch: UInt64
}
