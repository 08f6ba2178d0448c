import Retrace

/// The result of ``Debugger/bisect(invariant:progress:)``.
public struct BisectResult<D: Domain>: Sendable {
  /// The invariant's name.
  public var invariant: String
  /// The sequence number of the first action after which the invariant fails; the
  /// session's `RecordedSession.startSequence` when it fails already in the initial
  /// state; `nil` when it never fails.
  public var firstViolation: UInt64?
  /// The first action after which the invariant fails; `nil` when it never fails or fails
  /// already in the initial state.
  public var action: TimedAction<D.Action>?
  /// The state before ``action``.
  public var stateBefore: D.State?
  /// The state after ``action``: the first state that breaks the invariant.
  public var stateAfter: D.State?
  /// The first sequence number after ``firstViolation`` at which the invariant holds
  /// again, if it heals; `nil` when it stays broken to the end (or never fails).
  public var healedAt: UInt64?

  /// What changed across ``action``, field by field; `nil` when it changed nothing.
  public var stateDiff: String? {
    guard let stateBefore, let stateAfter else { return nil }
    return RetraceDebugger.stateDiff(stateBefore, stateAfter)
  }
}

extension Debugger {
  /// Finds the first action after which the invariant called `name` fails.
  ///
  /// The search is exact: it checks the invariant after every action, in one pass from the
  /// initial state, so it finds a violation that heals later, which a binary search over
  /// checkpoints would miss. The pass costs one reducer call and one invariant check per
  /// action, and nothing else.
  ///
  /// ```swift
  /// // increment, decrement, decrement (count -1), increment (count 0 again)
  /// let result = try debugger.bisect(invariant: "non-negative")
  /// print(result.firstViolation!, result.healedAt!)
  /// ```
  ///
  /// ```
  /// 3 4
  /// ```
  ///
  /// - Parameters:
  ///   - name: The name of one of the domain's invariants.
  ///   - progress: Called now and then with the number of actions checked and the total.
  /// - Returns: The first violation, or a result whose ``BisectResult/firstViolation`` is
  ///   `nil` when the invariant holds throughout.
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/unknownInvariant``) listing the known
  ///   invariants.
  public func bisect(
    invariant name: String, progress: ((_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(DebuggerError) -> BisectResult<D> {
    let invariant = try invariant(named: name)
    var result = BisectResult<D>(invariant: name)
    let holds = invariant.holds
    var state = session.initialState
    guard holds(state) else {
      result.firstViolation = session.startSequence
      result.stateAfter = state
      result.healedAt = firstHealing(after: session.startSequence, state: state, holds: holds)
      return result
    }
    let actions = session.actions
    let total = actions.count
    var index = 0
    while index < total {
      let stop = min(total, index + progressStride)
      while index < stop {
        _ = domain.reduce(into: &state, action: actions[index].action)
        if !holds(state) {
          let sequence = actions[index].sequence
          result.firstViolation = sequence
          result.action = actions[index]
          result.stateAfter = state
          // Rebuilding the state before the violation costs at most one snapshot interval;
          // keeping a copy of every state before would cost a copy per action.
          result.stateBefore = try? self.state(at: sequence - 1)
          result.healedAt = firstHealing(after: sequence, state: state, holds: holds)
          return result
        }
        index += 1
      }
      progress?(index, total)
    }
    return result
  }

  /// The first sequence number after `sequence` at which `holds` is true again.
  private func firstHealing(after sequence: UInt64, state: D.State, holds: (D.State) -> Bool)
    -> UInt64?
  {
    var state = state
    let actions = session.actions
    var index = sequence == session.startSequence ? 0 : session.index(of: sequence) + 1
    while index < actions.count {
      _ = domain.reduce(into: &state, action: actions[index].action)
      if holds(state) { return actions[index].sequence }
      index += 1
    }
    return nil
  }

  /// Whether the invariant fails at some point when `actions` are reduced from the
  /// session's initial state; stops at the first failure.
  func fails(_ holds: (D.State) -> Bool, replaying actions: some Sequence<D.Action>) -> Bool {
    var state = session.initialState
    if !holds(state) { return true }
    for action in actions {
      _ = domain.reduce(into: &state, action: action)
      if !holds(state) { return true }
    }
    return false
  }
}

extension BisectResult {
  init(invariant: String) {
    self.invariant = invariant
  }
}
