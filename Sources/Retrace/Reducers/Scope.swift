/// Runs a child reducer on part of a parent's state, for the parent actions that carry a
/// child action.
///
/// ```swift
/// let app = Scope(state: \AppState.counter, action: .counter, child: CounterReducer())
///   .combined(with: AppReducer())
/// ```
///
/// Parent actions that do not carry a child action pass through untouched, and the child's
/// effects are mapped back into parent actions.
public struct Scope<ParentState, ParentAction, Child: Reducer>: Reducer {
  @usableFromInline let toChildState: WritableKeyPath<ParentState, Child.State> & Sendable
  @usableFromInline let toChildAction: ActionCase<ParentAction, Child.Action>
  @usableFromInline let child: Child

  /// Creates a scope.
  ///
  /// - Parameters:
  ///   - state: Where the child state lives inside the parent state.
  ///   - action: How child actions are embedded in parent actions.
  ///   - child: The reducer to run on the child state.
  @inlinable
  public init(
    state: WritableKeyPath<ParentState, Child.State> & Sendable,
    action: ActionCase<ParentAction, Child.Action>,
    child: Child
  ) {
    self.toChildState = state
    self.toChildAction = action
    self.child = child
  }

  /// Runs the child reducer when `action` carries a child action.
  @inlinable
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = toChildAction.extract(action) else { return .none }
    return child.reduce(into: &state[keyPath: toChildState], action: childAction)
      .map(toChildAction.embed)
  }
}

extension Scope: Sendable where Child: Sendable {}
