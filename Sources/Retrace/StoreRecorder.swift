/// One action as a store reduced it: what a ``StoreRecorder`` sees.
public struct Transition<State, Action> {
  /// The action's sequence number: 1 for the first action a store reduces, then 2, 3, …
  public let sequence: UInt64
  /// When the action was reduced, in seconds since 1970, from the store's ``StoreClock``.
  public let time: Double
  /// The action.
  public let action: Action
  /// The state before the action; `nil` unless a recorder asked for it with
  /// ``StoreRecorder/wantsStateBefore``.
  public let stateBefore: State?
  /// The state after the action; `nil` when the recorder said it does not need it for this
  /// action (``StoreRecorder/wantsStateAfter(sequence:)``).
  public let stateAfter: State?

  /// Creates a transition.
  @inlinable
  public init(
    sequence: UInt64, time: Double, action: Action, stateBefore: State?, stateAfter: State?
  ) {
    self.sequence = sequence
    self.time = time
    self.action = action
    self.stateBefore = stateBefore
    self.stateAfter = stateAfter
  }
}

extension Transition: Sendable where State: Sendable, Action: Sendable {}

/// A hook that sees every action a store reduces, without changing the reducer.
///
/// This is where middleware goes: a trace recorder, a logger, an analytics sink. The store
/// calls ``record(_:)`` on its actor, right after the reducer returned and before observers
/// are notified, so a recorder must return quickly: append to a buffer and do the real work
/// elsewhere.
///
/// ```swift
/// final class PrintRecorder: StoreRecorder {
///   func record(_ transition: Transition<Int, CounterAction>) {
///     print(transition.sequence, transition.action)
///   }
/// }
/// store.attach(PrintRecorder())
/// ```
public protocol StoreRecorder<State, Action>: AnyObject, Sendable {
  /// The state of the store this recorder attaches to.
  associatedtype State: Sendable
  /// The actions of the store this recorder attaches to.
  associatedtype Action: Sendable

  /// Whether this recorder needs ``Transition/stateBefore``.
  ///
  /// Keeping the state before an action alive makes the reducer's in-place mutation copy
  /// what it changes (copy-on-write), so ask for it only if you use it. The default is `false`.
  var wantsStateBefore: Bool { get }

  /// Whether ``record(_:)`` needs ``Transition/stateAfter`` for the action numbered
  /// `sequence`; the store asks before every action. The default is `true`.
  ///
  /// Handing over the state costs the store a copy of it (a retain of each collection it
  /// holds; see W4 in `Benchmarks/`), and a recorder that keeps it
  /// makes the reducer's next change copy what it changes. A recorder that needs the state
  /// only now and then, as a trace recorder at its checkpoints, says so here.
  func wantsStateAfter(sequence: UInt64) -> Bool

  /// Called once when the recorder is attached, with the store's current sequence number
  /// (the number of actions reduced so far) and state.
  ///
  /// A trace recorder writes this state as the trace's starting snapshot.
  func attached(sequence: UInt64, state: State)

  /// Called once when the recorder is attached, right after
  /// ``attached(sequence:state:)``, on the main actor, with the store itself.
  ///
  /// A recorder that needs the store's state at moments of its own choosing keeps the
  /// store (weakly) and reads ``Store/sequence`` and ``Store/withState(_:)`` on the main
  /// actor: a trace recorder hashes the state when it is flushed or closed, so that the
  /// session's last actions are covered by a hash. The default does nothing.
  func attached(to store: Store<State, Action>)

  /// Called when the recorder is detached (``Store/detach(_:)``), on the main actor, with
  /// the store's sequence number and state after the last action the recorder saw. The
  /// default does nothing.
  func detached(sequence: UInt64, state: State)

  /// Called when the store's state is set without an action (``Store/jump(to:)``: time
  /// travel), on the store's actor, in order with the actions.
  ///
  /// A trace recorder writes the new state as a jump record, so that the trace replays the
  /// states the app really showed. The default does nothing: a recorder that needs the
  /// state after each action gets the jumped-to one with the next action.
  ///
  /// - Parameters:
  ///   - sequence: The store's sequence number: the last action reduced before the jump.
  ///     The next action is `sequence + 1` and applies to `state`.
  ///   - time: When the jump happened, in seconds since 1970, from the store's clock.
  ///   - previous: The state before the jump: after action `sequence`, as reduced (a trace
  ///     recorder hashes it, so that the actions before the jump are covered by a hash).
  ///   - state: The state the store now holds.
  func jumped(sequence: UInt64, time: Double, from previous: State, to state: State)

  /// Called for every reduced action, in order, on the store's actor.
  func record(_ transition: Transition<State, Action>)

  /// Called for every reduced action, in order, on the store's actor, with the parts of its
  /// ``Transition`` lent for the call: this is what the store calls.
  ///
  /// The default builds the ``Transition`` and calls ``record(_:)``, which is all most
  /// recorders need. Building it copies the action and destroys the copy afterwards, which
  /// a recorder on the hot path (as the trace recorder is, see W4) avoids by implementing
  /// this instead and reading the parts in place.
  ///
  /// - Parameters:
  ///   - sequence: The action's sequence number (``Transition/sequence``).
  ///   - time: When it was reduced (``Transition/time``).
  ///   - action: The action.
  ///   - stateBefore: The state before it, if a recorder asked (``Transition/stateBefore``).
  ///   - stateAfter: The state after it, if this recorder asked (``Transition/stateAfter``).
  func record(
    sequence: UInt64, time: Double, action: Action, stateBefore: State?, stateAfter: State?)
}

extension StoreRecorder {
  /// Recorders do not need the state before an action unless they say so.
  public var wantsStateBefore: Bool { false }

  /// Recorders get the state after every action unless they say otherwise.
  public func wantsStateAfter(sequence: UInt64) -> Bool { true }

  /// By default a recorder ignores the state it is attached at.
  public func attached(sequence: UInt64, state: State) {}

  /// By default a recorder does not keep the store it is attached to.
  public func attached(to store: Store<State, Action>) {}

  /// By default a recorder ignores being detached.
  public func detached(sequence: UInt64, state: State) {}

  /// By default a recorder ignores jumps.
  public func jumped(sequence: UInt64, time: Double, from previous: State, to state: State) {}

  /// Builds the ``Transition`` and calls ``record(_:)``.
  @inlinable
  public func record(
    sequence: UInt64, time: Double, action: Action, stateBefore: State?, stateAfter: State?
  ) {
    record(
      Transition(
        sequence: sequence, time: time, action: action, stateBefore: stateBefore,
        stateAfter: stateAfter))
  }
}
