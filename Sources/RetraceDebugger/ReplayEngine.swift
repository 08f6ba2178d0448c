import Retrace

/// The debugger engine for one recorded session of one domain: replay, state at any point,
/// diffs, verification, bisection, shrinking and benchmarks.
///
/// A `ReplayEngine` pairs the data (a `RecordedSession`) with the code (the `Domain`, whose
/// reducer and invariants it uses). It never runs effects: replaying the recorded actions
/// through the reducer is enough to rebuild every state, because everything an effect
/// produced was recorded as an action.
///
/// ```swift
/// let session = RecordedSession(domain: counterDomain,
///                               actions: [.increment, .increment, .decrement])
/// let debugger = ReplayEngine(domain: counterDomain, session: session)
/// print(try debugger.state(at: 2).count, try debugger.state(at: 3).count)
/// ```
///
/// ```
/// 2 1
/// ```
///
/// The engine's loops do no per-action work beyond the reducer's (and, where asked for, the
/// invariant's), so a million actions replay in well under a second in a release build.
public struct ReplayEngine<D: Domain>: Sendable {
  /// The domain whose reducer and invariants the debugger uses.
  public let domain: D
  /// The session being debugged.
  public let session: RecordedSession<D>
  /// The hash function the recorder used for checkpoints and snapshots.
  public let stateHash: @Sendable (D.State) -> UInt64
  /// The state each time-travel jump set after an action (``RecordedSession/jumps``; the
  /// last one after each action), by sequence number. Empty for most sessions, and then the
  /// replay loops skip it with one check.
  let jumpAfter: [UInt64: D.State]

  /// Creates a debugger for a session.
  ///
  /// - Parameters:
  ///   - domain: The domain whose reducer and invariants to use; usually the one the session
  ///     was recorded with, but it may be a newer version of it.
  ///   - session: The recorded session.
  ///   - stateHash: The state hash the recorder used, for ``verify(progress:)``.
  public init(
    domain: D, session: RecordedSession<D>, stateHash: @escaping @Sendable (D.State) -> UInt64
  ) {
    self.domain = domain
    self.session = session
    self.stateHash = stateHash
    var jumps: [UInt64: D.State] = [:]
    for jump in session.jumps {
      if let state = jump.state { jumps[jump.sequence] = state }
    }
    self.jumpAfter = jumps
  }

  /// The state at the session's start: its initial state, or the state a jump set there.
  var startState: D.State { jumpAfter[session.startSequence] ?? session.initialState }

  /// Sets `state` to the one a time-travel jump set after action `sequence`, if one did. Hot
  /// loops call it only when the session has jumps (a hoisted `!jumpAfter.isEmpty`).
  @inline(__always)
  func applyJump(_ state: inout D.State, after sequence: UInt64) {
    if let jumped = jumpAfter[sequence] { state = jumped }
  }

  /// Whether a time-travel jump set the state after action `sequence` (the state there is
  /// the jump's, not the action's alone): what an answer about that action says with it.
  public func jumped(after sequence: UInt64) -> Bool {
    jumpAfter[sequence] != nil
  }

  /// Creates a debugger for a session that hashes states with the core's `StateHash`,
  /// as the trace recorder does.
  ///
  /// - Parameters:
  ///   - domain: The domain whose reducer and invariants to use.
  ///   - session: The recorded session.
  public init(domain: D, session: RecordedSession<D>) {
    self.init(domain: domain, session: session, stateHash: Self.recorderStateHash)
  }

  /// The hash the trace recorder writes into checkpoints and snapshots: XXH64 of the
  /// state's deterministic CBOR encoding (`StateHash`); 0 for a state that cannot be encoded.
  public static var recorderStateHash: @Sendable (D.State) -> UInt64 {
    { (try? StateHash(of: $0))?.rawValue ?? 0 }
  }

  // MARK: - State at a point

  /// Throws ``DebuggerError/Code/outOfRange`` unless the session can give the state at
  /// `sequence`.
  ///
  /// - Parameter sequence: A sequence number.
  /// - Throws: ``DebuggerError`` naming the valid range.
  public func checkInRange(_ sequence: UInt64) throws(DebuggerError) {
    guard session.sequenceRange.contains(sequence) else {
      throw DebuggerError(
        .outOfRange,
        "out of range \(session.startSequence)...\(session.endSequence)",
        sequence: sequence)
    }
  }

  /// The state after the action with sequence number `sequence`.
  ///
  /// It replays from the nearest recorded snapshot at or before `sequence` (or from the
  /// session's initial state), so its cost is bounded by the snapshot interval, not by the
  /// session's length. Pass `usingSnapshots: false` to replay from the initial state and
  /// trust no recorded state, as ``verify(progress:)`` does.
  ///
  /// ```swift
  /// try debugger.state(at: 0)        // the initial state
  /// try debugger.state(at: session.endSequence)  // the final state
  /// ```
  ///
  /// - Parameters:
  ///   - sequence: A sequence number in `RecordedSession.sequenceRange`.
  ///   - usingSnapshots: Whether to start from the nearest recorded snapshot.
  /// - Returns: The state after action `sequence`.
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/outOfRange``) for a sequence number
  ///   outside the session.
  public func state(at sequence: UInt64, usingSnapshots: Bool = true) throws(DebuggerError)
    -> D.State
  {
    try checkInRange(sequence)
    var (state, position) = startingPoint(atOrBefore: sequence, usingSnapshots: usingSnapshots)
    advance(&state, from: position, to: sequence)
    return state
  }

  /// The final state: the state after the last action.
  public var finalState: D.State {
    var state = startState
    advance(&state, from: session.startSequence, to: session.endSequence)
    return state
  }

  /// The nearest known state at or before `sequence`: a snapshot, a jump or the initial
  /// state (with the jump after its action, if one came there).
  func startingPoint(atOrBefore sequence: UInt64, usingSnapshots: Bool) -> (D.State, UInt64) {
    var start = (startState, session.startSequence)
    if usingSnapshots, let snapshot = nearestSnapshot(atOrBefore: sequence),
      snapshot.sequence >= session.startSequence, let state = snapshot.state
    {
      start = (jumpAfter[snapshot.sequence] ?? state, snapshot.sequence)
    }
    // The last jump at or before `sequence`, if it is later: the state there is known.
    if !session.jumps.isEmpty,
      let jump = session.jumps.last(where: { $0.sequence <= sequence && $0.state != nil }),
      jump.sequence > start.1, jump.sequence >= session.startSequence
    {
      start = (jumpAfter[jump.sequence]!, jump.sequence)
    }
    return start
  }

  /// The last decoded snapshot at or before `sequence`, found by binary search.
  func nearestSnapshot(atOrBefore sequence: UInt64) -> Snapshot<D.State>? {
    let snapshots = decodedSnapshots
    var low = 0
    var high = snapshots.count
    while low < high {
      let middle = (low + high) / 2
      if snapshots[middle].sequence <= sequence { low = middle + 1 } else { high = middle }
    }
    return low == 0 ? nil : snapshots[low - 1]
  }

  /// The snapshots whose state is in memory.
  private var decodedSnapshots: [Snapshot<D.State>] {
    session.snapshots.allSatisfy { $0.state != nil }
      ? session.snapshots : session.snapshots.filter { $0.state != nil }
  }

  /// Applies the actions after `start` up to and including `end` to `state`, and the
  /// time-travel jumps after them (after `end` too, unless `jumpAtEnd` is `false`: a
  /// recorded hash there is of the state before the jump).
  @inline(__always)
  func advance(_ state: inout D.State, from start: UInt64, to end: UInt64, jumpAtEnd: Bool = true) {
    guard end > start else { return }
    let actions = session.actions
    if jumpAfter.isEmpty {
      for index in session.index(of: start + 1)...session.index(of: end) {
        _ = domain.reduce(into: &state, action: actions[index].action)
      }
      return
    }
    for index in session.index(of: start + 1)...session.index(of: end) {
      _ = domain.reduce(into: &state, action: actions[index].action)
      let sequence = actions[index].sequence
      if sequence != end || jumpAtEnd { applyJump(&state, after: sequence) }
    }
  }

  // MARK: - Replay

  /// Replays the session from its initial state up to `sequence` (the end by default),
  /// trusting no recorded snapshot, and returns the state there.
  ///
  /// - Parameters:
  ///   - sequence: Where to stop; the session's end when `nil`.
  ///   - progress: Called now and then with the number of actions replayed and the total.
  /// - Returns: The replayed state.
  /// - Throws: ``DebuggerError`` for a sequence number outside the session.
  public func replay(
    to sequence: UInt64? = nil, progress: ((_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(DebuggerError) -> D.State {
    let end = sequence ?? session.endSequence
    try checkInRange(end)
    var state = startState
    let total = Int(end - session.startSequence)
    var position = session.startSequence
    while position < end {
      let stop = min(end, position + UInt64(progressStride))
      advance(&state, from: position, to: stop)
      position = stop
      progress?(Int(position - session.startSequence), total)
    }
    return state
  }

  /// How many actions the engine's loops replay between two progress reports.
  var progressStride: Int { 65_536 }

  // MARK: - Invariants

  /// The invariant called `name`.
  ///
  /// - Parameter name: The invariant's name.
  /// - Returns: The domain's invariant.
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/unknownInvariant``) that lists the
  ///   known invariants.
  public func invariant(named name: String) throws(DebuggerError) -> Invariant<D.State> {
    guard let invariant = domain.invariant(named: name) else {
      let known = domain.invariants.map(\.name)
      throw DebuggerError(
        .unknownInvariant,
        "unknown invariant '\(name)' for domain \(domain.name); known: "
          + (known.isEmpty ? "none" : known.joined(separator: ", ")))
    }
    return invariant
  }
}

/// The replay engine's former name.
@available(*, deprecated, renamed: "ReplayEngine")
public typealias Debugger<D: Domain> = ReplayEngine<D>
