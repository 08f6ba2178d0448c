import Retrace

/// The result of ``ReplayEngine/shrink(invariant:progress:)``: a 1-minimal subsequence of a
/// session's actions that still breaks an invariant.
public struct ShrinkResult<D: Domain>: Sendable {
  /// The invariant's name.
  public var invariant: String
  /// The number of actions in the session that was shrunk.
  public var originalCount: Int
  /// The actions that still break the invariant, with their original sequence numbers and
  /// times, in their original order. Removing any one of them makes the invariant hold.
  public var actions: [TimedAction<D.Action>]
  /// The number of replays the search took.
  public var replays: Int
  /// The session the actions were taken from.
  public var source: RecordedSession<D>

  /// The shrunk actions as a session of their own, numbered from 1, with the source's
  /// facts and initial state and no checkpoints or snapshots.
  public var session: RecordedSession<D> {
    var info = source.info
    info.sessionID += "-shrunk"
    return RecordedSession(
      info: info, startSequence: 0, initialState: source.initialState,
      actions: actions.enumerated().map {
        TimedAction(
          sequence: UInt64($0.offset + 1), time: $0.element.time, action: $0.element.action)
      })
  }
}

extension ReplayEngine {
  /// Shrinks the session to a 1-minimal sequence of its actions that still breaks the
  /// invariant called `name`, by delta debugging (Zeller and Hildebrandt's *ddmin*).
  ///
  /// A candidate "still breaks the invariant" when replaying it from the session's initial
  /// state makes the invariant fail after some action. The search first cuts the session
  /// after its first violation (found exactly, as ``bisect(invariant:progress:)`` does), then
  /// removes ever smaller chunks for as long as the failure persists. The result is
  /// 1-minimal: removing any single action from it makes the invariant hold throughout.
  ///
  /// ```swift
  /// // 10,000 counter actions that never go below zero, but for one extra decrement.
  /// let result = try debugger.shrink(invariant: "non-negative")!
  /// print(result.actions.map { actionCaseName(of: $0.action) })
  /// ```
  ///
  /// ```
  /// ["decrement"]
  /// ```
  ///
  /// - Parameters:
  ///   - name: The name of one of the domain's invariants.
  ///   - progress: Called after every replay with the current candidate's length and the
  ///     original length.
  /// - Returns: The shrunk actions, or `nil` when the invariant never fails.
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/unknownInvariant``) listing the known
  ///   invariants; ``DebuggerError/Code/unsupported`` for a session with time-travel jumps
  ///   (`RecordedSession.jumps`), whose states the actions alone do not give.
  public func shrink(
    invariant name: String, progress: ((_ candidate: Int, _ original: Int) -> Void)? = nil
  ) throws(DebuggerError) -> ShrinkResult<D>? {
    let holds = try invariant(named: name).holds
    if let jump = session.jumps.first {
      throw DebuggerError(
        .unsupported,
        "the session holds \(session.jumps.count) time-travel jump(s), the first after action \(jump.sequence); shrink replays the actions alone, so it cannot shrink such a session",
        sequence: jump.sequence)
    }
    let bisection = try bisect(invariant: name)
    guard let violation = bisection.firstViolation else { return nil }
    let actions = session.actions
    var replays = 0
    func fails(_ indices: [Int]) -> Bool {
      replays += 1
      return self.fails(holds, replaying: indices.lazy.map { actions[$0].action })
    }
    // Everything after the first violation is irrelevant to it.
    let candidate = deltaDebug(
      Array(0..<(violation == session.startSequence ? 0 : session.index(of: violation) + 1)),
      fails: fails, progress: { progress?($0, actions.count) })
    return ShrinkResult(
      invariant: name, originalCount: actions.count, actions: candidate.map { actions[$0] },
      replays: replays, source: session)
  }
}
