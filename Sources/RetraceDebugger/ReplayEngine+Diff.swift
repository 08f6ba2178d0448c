import Foundation
import Retrace

/// The first place where two sessions of one domain differ: the answer of
/// ``ReplayEngine/firstDifference(with:)``. Session A is the debugger's own session, session B
/// the one it is compared with.
public struct SessionDifference<D: Domain>: Sendable {
  /// Why the sessions differ at ``sequence``.
  public enum Reason: String, Sendable, Equatable, Codable {
    /// They start from different states (or at different sequence numbers).
    case initialState
    /// Their actions with this sequence number differ.
    case action
    /// Session A (the debugger's own) has this action; session B has ended.
    case onlyInFirst
    /// Session B (the other) has this action; session A has ended.
    case onlyInSecond
    /// After this action, a time-travel jump (`RecordedSession.jumps`) is in one session
    /// only, or sets another state in each.
    case jump
  }

  /// The first sequence number at which the sessions differ (their start when their
  /// initial states differ).
  public var sequence: UInt64
  /// Why they differ there.
  public var reason: Reason
  /// Session A's action at ``sequence``, if it has one.
  public var first: TimedAction<D.Action>?
  /// Session B's action at ``sequence``, if it has one.
  public var second: TimedAction<D.Action>?
  /// The difference from session A's state after ``sequence`` to session B's (each
  /// session's last state when it has ended); `nil` when the states are equal.
  public var stateDiff: String?
  /// Session A's state after ``sequence`` and session B's, which ``stateDiff`` compares:
  /// what `retrace diff --json` lists the changes of.
  package var states: (first: D.State, second: D.State)
  /// The sequence numbers that session A's and session B's compared states are after:
  /// ``sequence`` for both, except when the sessions start at different sequence numbers
  /// (``Reason/initialState``), where each state is the one after the later start, or each
  /// session's starting state when one session does not hold the other's start.
  public var statesAfter: (first: UInt64, second: UInt64)
}

extension ReplayEngine {
  /// What changed in the state from sequence number `from` to sequence number `to`.
  ///
  /// ```swift
  /// print(try debugger.diff(from: 1, to: 2) ?? "no change")
  /// ```
  ///
  /// ```
  /// - CounterState(count: 1)
  /// + CounterState(count: 2)
  /// ```
  ///
  /// - Parameters:
  ///   - from: The earlier point (it may also be the later one).
  ///   - to: The other point.
  /// - Returns: The field-by-field diff (``stateDiff(_:_:)``), or `nil` when the states are
  ///   equal.
  /// - Throws: ``DebuggerError`` for a sequence number outside the session.
  public func diff(from: UInt64, to: UInt64) throws(DebuggerError) -> String? {
    try diff(from: from, to: to, maxNodes: .max)?.text
  }

  /// What changed in the state from sequence number `from` to sequence number `to`, in
  /// about `maxNodes` values at most (``stateDiff(_:_:maxNodes:)``): what the CLI and the
  /// debugger show, so that a jump across a million actions prints a readable part of what
  /// changed instead of the whole state.
  ///
  /// - Parameters:
  ///   - from: The earlier point (it may also be the later one).
  ///   - to: The other point.
  ///   - maxNodes: About how many values to write at most.
  /// - Returns: The diff and whether it is all there, or `nil` when the states are equal.
  /// - Throws: ``DebuggerError`` for a sequence number outside the session.
  public func diff(from: UInt64, to: UInt64, maxNodes: Int) throws(DebuggerError) -> (
    text: String, isComplete: Bool
  )? {
    let (old, new) = try states(from: from, to: to)
    return stateDiff(old, new, maxNodes: maxNodes)
  }

  /// The states at sequence numbers `from` and `to`, both checked before either is
  /// replayed; the later one goes on from the earlier when `to` is not before `from`.
  ///
  /// - Throws: ``DebuggerError`` for a sequence number outside the session.
  public func states(from: UInt64, to: UInt64) throws(DebuggerError) -> (old: D.State, new: D.State)
  {
    try checkInRange(from)
    try checkInRange(to)
    let old = try state(at: from)
    var new = old
    if to >= from {
      advance(&new, from: from, to: to)
    } else {
      new = try state(at: to)
    }
    return (old, new)
  }

  /// Finds the first sequence number at which this debugger's session and `other` differ:
  /// in their initial state, in an action, or because one has ended.
  ///
  /// Two sessions that start at different sequence numbers (a recorder attached later in
  /// one) differ from the earlier start on. Their states are compared after the later start
  /// when both hold it: when they are equal there, their actions after it are compared as
  /// for two sessions that start together, and the first difference among them is the
  /// answer; when none differs, or the states after the later start differ, the answer is
  /// ``SessionDifference/Reason/initialState`` at the earlier start, with the states
  /// compared (``SessionDifference/statesAfter``).
  ///
  /// Both are replayed with this debugger's reducer. Since the reducer is deterministic, two
  /// sessions that start from equal states and have equal actions up to a point have equal
  /// states up to that point too; so only actions are compared on the way, and states only
  /// where the first difference is found.
  ///
  /// ```swift
  /// let a = RecordedSession(domain: counterDomain, actions: [.increment, .increment])
  /// let b = RecordedSession(domain: counterDomain, actions: [.increment, .decrement])
  /// let difference = ReplayEngine(domain: counterDomain, session: a).firstDifference(with: b)!
  /// print(difference.sequence, difference.reason)
  /// ```
  ///
  /// ```
  /// 2 action
  /// ```
  ///
  /// - Parameter other: Another session of the same domain.
  /// - Returns: The first difference, or `nil` when the sessions are identical.
  public func firstDifference(with other: RecordedSession<D>) -> SessionDifference<D>? {
    let otherDebugger = ReplayEngine(domain: domain, session: other, stateHash: stateHash)
    let later = max(session.startSequence, other.startSequence)
    // Of sessions that start at different points, when their states after the later start
    // are equal: the answer if nothing after it differs.
    var startsDiffer: SessionDifference<D>?
    if session.startSequence != other.startSequence {
      // They differ from the earlier start on: one holds what the other does not. Their
      // states are compared where both have one, after the later start; each session's
      // starting state when one ends before the other starts.
      let earlier = min(session.startSequence, other.startSequence)
      var states = (first: session.initialState, second: other.initialState)
      var statesAfter = (first: session.startSequence, second: other.startSequence)
      if later <= session.endSequence, later <= other.endSequence,
        let first = try? state(at: later), let second = try? otherDebugger.state(at: later)
      {
        states = (first, second)
        statesAfter = (later, later)
      }
      let difference = SessionDifference<D>(
        sequence: earlier, reason: .initialState, first: nil, second: nil,
        stateDiff: stateDiff(states.first, states.second), states: states,
        statesAfter: statesAfter)
      // Their actions after the later start are compared only from equal states there.
      guard statesAfter == (later, later), states.first == states.second else { return difference }
      startsDiffer = difference
    } else if session.initialState != other.initialState {
      return SessionDifference(
        sequence: session.startSequence, reason: .initialState, first: nil, second: nil,
        stateDiff: stateDiff(session.initialState, other.initialState),
        states: (session.initialState, other.initialState),
        statesAfter: (session.startSequence, session.startSequence))
    }
    // From the later start on, where both sessions hold the same state.
    let offsets = (Int(later - session.startSequence), Int(later - other.startSequence))
    let (mine, theirs) = (session.actions.count - offsets.0, other.actions.count - offsets.1)
    let equal = ActionEquality<D.Action>()
    let common = min(mine, theirs)
    var index = 0
    while index < common
      && equal(
        session.actions[offsets.0 + index].action, other.actions[offsets.1 + index].action)
    {
      index += 1
    }
    var sequence = later + UInt64(index) + 1
    // The first jump that differs, if it comes before the actions do (a jump after action
    // s changes the state before action s + 1).
    let jumps = session.jumps.filter { $0.sequence >= later }.map { [$0.sequence, $0.hash] }
    let otherJumps = other.jumps.filter { $0.sequence >= later }.map { [$0.sequence, $0.hash] }
    let sameJumps = zip(jumps, otherJumps).prefix { $0 == $1 }.count
    let jumpDifference =
      sameJumps < max(jumps.count, otherJumps.count)
      ? min(
        jumps.dropFirst(sameJumps).first?[0] ?? .max,
        otherJumps.dropFirst(sameJumps).first?[0] ?? .max)
      : nil
    let reason: SessionDifference<D>.Reason
    if let jump = jumpDifference, jump < sequence,
      jump <= max(session.endSequence, other.endSequence)
    {
      reason = .jump
      sequence = jump
    } else if index < common {
      reason = .action
    } else if mine > common {
      reason = .onlyInFirst
    } else if theirs > common {
      reason = .onlyInSecond
    } else {
      return startsDiffer
    }
    // Both sequence numbers are in range: each session holds its start and its end.
    let firstState = (try? state(at: min(sequence, session.endSequence))) ?? session.initialState
    let secondState =
      (try? otherDebugger.state(at: min(sequence, other.endSequence))) ?? other.initialState
    return SessionDifference(
      sequence: sequence, reason: reason, first: session.action(at: sequence),
      second: other.action(at: sequence), stateDiff: stateDiff(firstState, secondState),
      states: (firstState, secondState),
      statesAfter: (min(sequence, session.endSequence), min(sequence, other.endSequence)))
  }
}

/// Compares two actions: with `==` when the action type is `Equatable`, otherwise by their
/// JSON encodings with sorted keys.
struct ActionEquality<Action: Encodable> {
  private let equatable: (any Equatable.Type)?
  private let encoder: JSONEncoder

  init() {
    equatable = Action.self as? any Equatable.Type
    encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
  }

  func callAsFunction(_ a: Action, _ b: Action) -> Bool {
    if let equatable {
      return Self.equal(equatable, a, b)
    }
    return (try? encoder.encode(a)) == (try? encoder.encode(b))
  }

  private static func equal<T: Equatable>(_ type: T.Type, _ a: Any, _ b: Any) -> Bool {
    (a as? T) == (b as? T)
  }
}
