/// A pure function that applies an action to a state.
///
/// A reducer is the only place where state changes. It takes the state `inout`, so that
/// copy-on-write never copies the state on the hot path, and it returns an ``Effect``: the
/// asynchronous work (if any) that the action starts. Everything nondeterministic (dates,
/// random identifiers, network results) arrives in the action's payload, so that replaying
/// the same actions from the same initial state always gives the same state.
///
/// ```swift
/// struct Counter: Reducer {
///   func reduce(into state: inout Int, action: CounterAction) -> Effect<CounterAction> {
///     switch action {
///     case .increment: state += 1
///     case .decrement: state -= 1
///     }
///     return .none
///   }
/// }
/// ```
///
/// Reducers compose: ``combined(with:)`` runs two reducers on the same state, ``Scope`` runs a
/// child reducer on part of the state, ``forEach(_:action:element:)`` runs a reducer on one
/// element of an identified collection and `ifLet(_:action:then:)` on an optional child.
public protocol Reducer<State, Action> {
  /// The state this reducer changes.
  associatedtype State
  /// The actions this reducer understands.
  associatedtype Action

  /// Applies `action` to `state` and returns the effect it starts.
  ///
  /// - Parameters:
  ///   - state: The state to change in place.
  ///   - action: The action to apply.
  /// - Returns: The effect the action starts, or ``Effect/none``.
  func reduce(into state: inout State, action: Action) -> Effect<Action>
}

/// A reducer made from a closure.
///
/// ```swift
/// let counter = Reduce<Int, CounterAction> { count, action in
///   switch action {
///   case .increment: count += 1
///   case .decrement: count -= 1
///   }
///   return .none
/// }
/// ```
///
/// The closure is `@Sendable` because a reducer is pure: it captures no mutable state, so the
/// debugger may replay traces with it on several threads at once.
public struct Reduce<State, Action>: Reducer, Sendable {
  @usableFromInline
  let body: @Sendable (inout State, Action) -> Effect<Action>

  /// Creates a reducer from a closure.
  ///
  /// - Parameter reduce: A pure function that applies an action to a state.
  @inlinable
  public init(_ reduce: @escaping @Sendable (inout State, Action) -> Effect<Action>) {
    self.body = reduce
  }

  /// Creates a reducer that forwards to another reducer.
  ///
  /// - Parameter reducer: The reducer to wrap.
  @inlinable
  public init<R: Reducer & Sendable>(_ reducer: R) where R.State == State, R.Action == Action {
    self.body = { reducer.reduce(into: &$0, action: $1) }
  }

  /// Applies `action` to `state` by calling the closure.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body(&state, action)
  }
}
