import Retrace

/// The result of ``ReplayEngine/bisect(invariant:progress:)``.
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

extension ReplayEngine {
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
    // Hoisted: checked in the loop, it cost the loop 5% (a million actions).
    let hasJumps = !jumpAfter.isEmpty
    var state = startState
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
        if hasJumps { applyJump(&state, after: actions[index].sequence) }
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

  /// Every stretch of the session in which the invariant called `name` fails: where it
  /// starts to fail and where it holds again, in order, at most `limit` of them.
  ///
  /// Like ``bisect(invariant:progress:)`` it checks the invariant after every action, in one
  /// pass; ``bisect(invariant:progress:)``'s `firstViolation` and `healedAt` are the first
  /// stretch's.
  ///
  /// ```swift
  /// // increment, decrement, decrement (-1), increment (0), decrement (-1)
  /// let stretches = try debugger.violations(invariant: "non-negative")
  /// print(stretches.map { "\($0.fails)..\($0.healedAt.map(String.init) ?? "end")" })
  /// ```
  ///
  /// ```
  /// ["3..4", "5..end"]
  /// ```
  ///
  /// - Parameters:
  ///   - name: The name of one of the domain's invariants.
  ///   - limit: The most stretches to return.
  /// - Returns: The stretches; empty when the invariant holds throughout.
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/unknownInvariant``) listing the known
  ///   invariants.
  public func violations(invariant name: String, limit: Int = 1_000) throws(DebuggerError)
    -> [Violation]
  {
    let holds = try invariant(named: name).holds
    var stretches: [Violation] = []
    let hasJumps = !jumpAfter.isEmpty
    var state = startState
    var failing = !holds(state)
    if failing { stretches.append(Violation(fails: session.startSequence)) }
    for action in session.actions {
      _ = domain.reduce(into: &state, action: action.action)
      if hasJumps { applyJump(&state, after: action.sequence) }
      let fails = !holds(state)
      if fails != failing {
        if fails {
          guard stretches.count < limit else { break }
          stretches.append(Violation(fails: action.sequence))
        } else {
          stretches[stretches.count - 1].healedAt = action.sequence
        }
        failing = fails
      }
    }
    return stretches
  }

  /// The first sequence number after `sequence` at which `holds` is true again.
  private func firstHealing(after sequence: UInt64, state: D.State, holds: (D.State) -> Bool)
    -> UInt64?
  {
    var state = state
    let actions = session.actions
    let hasJumps = !jumpAfter.isEmpty
    var index = sequence == session.startSequence ? 0 : session.index(of: sequence) + 1
    while index < actions.count {
      _ = domain.reduce(into: &state, action: actions[index].action)
      if hasJumps { applyJump(&state, after: actions[index].sequence) }
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

/// A stretch of a session in which an invariant fails, from
/// ``ReplayEngine/violations(invariant:limit:)``.
public struct Violation: Sendable, Equatable {
  /// The sequence number of the action after which the invariant starts to fail (the
  /// session's start when it fails in the initial state).
  public var fails: UInt64
  /// The sequence number of the action after which it holds again; `nil` when it stays
  /// broken to the end.
  public var healedAt: UInt64?

  /// Creates a stretch.
  ///
  /// - Parameters:
  ///   - fails: Where the invariant starts to fail.
  ///   - healedAt: Where it holds again, if it does.
  public init(fails: UInt64, healedAt: UInt64? = nil) {
    self.fails = fails
    self.healedAt = healedAt
  }
}

extension BisectResult {
  init(invariant: String) {
    self.invariant = invariant
  }
}
