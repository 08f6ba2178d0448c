import Retrace

/// Where two reducers first disagree on a session: what ``ReplayEngine/lockstep(against:from:through:)``
/// finds.
public struct LockstepDivergence: Sendable, Equatable {
  /// The sequence number of the first action after which the two states differ.
  public var sequence: UInt64
  /// The action's case name (`addTransaction`).
  public var actionCase: String
  /// The state hash after that action with the other domain's reducer.
  public var otherHash: UInt64
  /// The state hash after that action with the debugger's own domain's reducer.
  public var hash: UInt64
  /// The difference from the other reducer's state (-) to this debugger's (+) after that
  /// action; `nil` when no difference shows in the values (their encodings differ only).
  public var stateDiff: String?
}

extension ReplayEngine {
  /// Replays the session through this debugger's domain and through `other` side by side,
  /// and returns the first action after which their states differ.
  ///
  /// This names a divergence exactly where recorded hashes cannot (they are spaced out, and
  /// a large state is hashed rarely): when an app's old and new reducer are both in one
  /// binary, replay the old trace with both.
  ///
  /// ```swift
  /// let new = ReplayEngine(domain: bankingWithFees, session: session)
  /// if let divergence = new.lockstep(against: banking, from: 1000, through: 2000) {
  ///   print(divergence.sequence, divergence.actionCase)
  /// }
  /// ```
  ///
  /// ```
  /// 1003 addTransaction
  /// ```
  ///
  /// - Parameters:
  ///   - other: The domain to compare with (for example the reducer that recorded the trace).
  ///   - start: Where both start, from the state this debugger gives there (the session's
  ///     start by default); a point where the two are known to agree, such as the last
  ///     recorded hash both reproduce.
  ///   - end: The last action to compare (the session's end by default).
  /// - Returns: The first action after which the states differ (`==`), or `nil` when they
  ///   agree after every action compared.
  /// - Throws: ``DebuggerError`` for a sequence number outside the session.
  public func lockstep<Other: Domain>(
    against other: Other, from start: UInt64? = nil, through end: UInt64? = nil
  ) throws(DebuggerError) -> LockstepDivergence?
  where Other.State == D.State, Other.Action == D.Action {
    let start = start ?? session.startSequence
    let end = end ?? session.endSequence
    try checkInRange(start)
    try checkInRange(end)
    var mine = try state(at: start)
    var theirs = mine
    var sequence = start
    while sequence < end {
      sequence += 1
      let action = session.actions[session.index(of: sequence)].action
      _ = domain.reduce(into: &mine, action: action)
      _ = other.reduce(into: &theirs, action: action)
      guard mine == theirs else {
        return LockstepDivergence(
          sequence: sequence, actionCase: actionCasePath(of: action), otherHash: stateHash(theirs),
          hash: stateHash(mine), stateDiff: RetraceDebugger.stateDiff(theirs, mine))
      }
      if let jumped = jumpAfter[sequence] {
        mine = jumped
        theirs = jumped
      }
    }
    return nil
  }
}
