import Retrace

extension ReplayEngine {
  /// The state after action `sequence` in the session replayed without the actions in
  /// `skipped`: what the app would have shown had those actions never been sent, as Redux
  /// DevTools' Skip shows it.
  ///
  /// The replay starts from the state before the first skipped action (a snapshot, if one
  /// is near) and reduces every later action but the skipped ones; a time-travel jump still
  /// sets the state it set. Skipped sequence numbers after `sequence`, or outside the
  /// session, change nothing.
  ///
  /// ```swift
  /// // Without the payment at 4, the balance at 10 never went negative.
  /// let state = try debugger.state(at: 10, skipping: [4])
  /// ```
  ///
  /// - Parameters:
  ///   - sequence: A sequence number in `RecordedSession.sequenceRange`.
  ///   - skipped: The sequence numbers of the actions to leave out.
  /// - Returns: The state after action `sequence`, with the skipped actions left out.
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/outOfRange``) for a sequence number
  ///   outside the session.
  public func state(at sequence: UInt64, skipping skipped: Set<UInt64>) throws(DebuggerError)
    -> D.State
  {
    try checkInRange(sequence)
    guard let first = skipped.filter({ $0 > session.startSequence && $0 <= sequence }).min()
    else { return try state(at: sequence) }
    var state = try self.state(at: first - 1)
    let actions = session.actions
    for index in session.index(of: first)...session.index(of: sequence) {
      let action = actions[index]
      if !skipped.contains(action.sequence) {
        _ = domain.reduce(into: &state, action: action.action)
      }
      if !jumpAfter.isEmpty { applyJump(&state, after: action.sequence) }
    }
    return state
  }
}
