/// Runs a child reducer on optional child state when it is present, then the parent reducer;
/// see ``Reducer/ifLet(_:action:then:)``.
public struct IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  @usableFromInline let parent: Parent
  @usableFromInline let toChildState: WritableKeyPath<Parent.State, Child.State?> & Sendable
  @usableFromInline let toChildAction: ActionCase<Parent.Action, Child.Action>
  @usableFromInline let child: Child

  @inlinable
  init(
    parent: Parent,
    toChildState: WritableKeyPath<Parent.State, Child.State?> & Sendable,
    toChildAction: ActionCase<Parent.Action, Child.Action>,
    child: Child
  ) {
    self.parent = parent
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.child = child
  }

  /// Runs the child reducer when the action carries a child action and the child state is
  /// present, then the parent reducer.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    var childEffect = Effect<Parent.Action>.none
    if let childAction = toChildAction.extract(action), state[keyPath: toChildState] != nil {
      childEffect = child.reduce(into: &state[keyPath: toChildState]!, action: childAction)
        .map(toChildAction.embed)
    }
    return childEffect.merge(with: parent.reduce(into: &state, action: action))
  }
}

extension IfLetReducer: Sendable where Parent: Sendable, Child: Sendable {}

extension Reducer {
  /// Runs `child` on an optional part of this reducer's state while it is present.
  ///
  /// ```swift
  /// AppReducer()
  ///   .ifLet(\.detail, action: .detail, then: DetailReducer())
  /// ```
  ///
  /// A child action that arrives while the child state is `nil` leaves the state unchanged;
  /// the parent reducer still sees it.
  ///
  /// - Parameters:
  ///   - child: Where the optional child state lives.
  ///   - action: How child actions are embedded in this reducer's actions.
  ///   - childReducer: The reducer to run on the child state.
  /// - Returns: A reducer that runs both.
  @inlinable
  public func ifLet<Child: Reducer>(
    _ child: WritableKeyPath<State, Child.State?> & Sendable,
    action: ActionCase<Action, Child.Action>,
    then childReducer: Child
  ) -> IfLetReducer<Self, Child> {
    IfLetReducer(parent: self, toChildState: child, toChildAction: action, child: childReducer)
  }
}
