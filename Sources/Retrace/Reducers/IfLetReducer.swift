/// Runs a child reducer on optional child state when it is present, then the parent reducer;
/// see `ifLet(_:action:then:)`.
///
/// The child's effects end with the child: they are cancellable under an identifier private
/// to this `ifLet`, which it cancels when the child state is dismissed.
public struct IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  @usableFromInline let parent: Parent
  @usableFromInline let toChildState: WritableKeyPath<Parent.State, Child.State?> & Sendable
  @usableFromInline let toChildAction: ActionCase<Parent.Action, Child.Action>
  @usableFromInline let child: Child
  /// The identity of the presented child (its `id` when it is `Identifiable`), or `nil` when
  /// only presence counts.
  @usableFromInline let identity: (@Sendable (Child.State) -> any Hashable & Sendable)?

  @inlinable
  init(
    parent: Parent,
    toChildState: WritableKeyPath<Parent.State, Child.State?> & Sendable,
    toChildAction: ActionCase<Parent.Action, Child.Action>,
    child: Child,
    identity: (@Sendable (Child.State) -> any Hashable & Sendable)?
  ) {
    self.parent = parent
    self.toChildState = toChildState
    self.toChildAction = toChildAction
    self.child = child
    self.identity = identity
  }

  /// Runs the child reducer when the action carries a child action and the child state is
  /// present, then the parent reducer; cancels the child's effects when the child state went
  /// from present to `nil` (or to a child of another identity).
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    let before = presentation(in: state)
    var childEffect = Effect<Parent.Action>.none
    if let childAction = toChildAction.extract(action) {
      if before != nil {
        childEffect = child.reduce(into: &state[keyPath: toChildState]!, action: childAction)
          .map(toChildAction.embed)
        if !childEffect.isNone { childEffect = markChildEffect(childEffect, in: state, or: before) }
      } else {
        reportChildActionWithoutState()
      }
    }
    let effect = childEffect.merge(with: parent.reduce(into: &state, action: action))
    guard let before else { return effect }
    let after = presentation(in: state)
    if let after, identity == nil || after == before { return effect }
    return effect.merge(with: .cancel(id: before))
  }

  /// Reports, under a test store only (``ReducerMistakes``), that a child action arrived
  /// while the child state was `nil`.
  @usableFromInline
  func reportChildActionWithoutState() {
    guard let report = ReducerMistakes.report else { return }
    report(
      "An ifLet on \(toChildState) received a child action when its child state was nil; "
        + "the child reducer did not run. An effect of a dismissed child that was not cancelled, "
        + "or a view that sends to a child no longer shown, sends such actions.")
  }

  /// Whether the child is presented: `nil` when it is not, else its effects' identifier.
  @inlinable
  func presentation(in state: Parent.State) -> ChildEffectID? {
    guard let identity else {
      return state[keyPath: toChildState] == nil ? nil : ChildEffectID(toChildState, id: nil)
    }
    return state[keyPath: toChildState].map { ChildEffectID(toChildState, id: identity($0)) }
  }

  /// Marks the child's effect cancellable under the identifier of the child that is presented
  /// after the child reducer ran (the one before, if the child dismissed itself).
  @inlinable
  func markChildEffect(
    _ effect: Effect<Parent.Action>, in state: Parent.State, or before: ChildEffectID?
  ) -> Effect<Parent.Action> {
    guard let id = presentation(in: state) ?? before else { return effect }
    return effect.cancellable(id: id)
  }
}

extension IfLetReducer: Sendable where Parent: Sendable, Child: Sendable {}

/// The identifier under which an ``IfLetReducer`` runs its child's effects, and a
/// ``ForEachReducer`` each element's: the child state's key path and, for an `Identifiable`
/// child or an element, its `id`.
@usableFromInline
struct ChildEffectID: Hashable, Sendable {
  @usableFromInline let keyPath: AnyKeyPath & Sendable
  /// The child's identity, compared as an effect's identifier is: by type, then value.
  @usableFromInline let id: EffectID?

  @inlinable
  init(_ keyPath: AnyKeyPath & Sendable, id: (any Hashable & Sendable)?) {
    self.keyPath = keyPath
    self.id = id.map { EffectID($0) }
  }

  @inlinable
  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.keyPath == rhs.keyPath && lhs.id == rhs.id
  }

  @inlinable
  func hash(into hasher: inout Hasher) {
    hasher.combine(keyPath)
    hasher.combine(id)
  }
}

extension Reducer {
  /// Runs `child` on an optional part of this reducer's state while it is present, and
  /// cancels the child's effects when it is dismissed.
  ///
  /// ```swift
  /// AppReducer()
  ///   .ifLet(\.detail, action: .detail, then: DetailReducer())
  /// ```
  ///
  /// A child action that arrives while the child state is `nil` leaves the state unchanged;
  /// the parent reducer still sees it. In a `TestStore` (`RetraceTesting`) it also fails the
  /// test, as in TCA, since it is usually an effect of a dismissed child left running; a
  /// store and a replay of a recorded session report nothing.
  ///
  /// The child's effects are cancellable under an identifier private to this `ifLet`. When
  /// an action leaves the child state `nil` that was present before it, whether the parent or
  /// the child set it to `nil`, the child's running effects are cancelled, including those
  /// the dismissing action started (its `.send` effects are still delivered). A child that
  /// stays presented keeps its effects, even when the parent replaces its state; for a child
  /// whose state is `Identifiable`, replacing it with a child of another `id` cancels the old
  /// child's effects.
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
    IfLetReducer(
      parent: self, toChildState: child, toChildAction: action, child: childReducer,
      identity: nil)
  }

  /// Runs `child` on an optional, `Identifiable` part of this reducer's state while it is
  /// present, and cancels the child's effects when it is dismissed or replaced by a child of
  /// another `id`.
  ///
  /// ```swift
  /// AppReducer()
  ///   .ifLet(\.sheet, action: .sheet, then: SheetReducer())
  /// ```
  ///
  /// As `ifLet(_:action:then:)`, with the child's `id` in its effects' identifier: a sheet
  /// replaced by another sheet in one action takes its effects with it, and the new sheet's
  /// effects run on.
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
  ) -> IfLetReducer<Self, Child>
  where Child.State: Identifiable & Sendable, Child.State.ID: Sendable {
    // `Child.State: Sendable` lets the identity closure use the state's type: a store's
    // state is `Sendable`, and so is every child state stored in it.
    IfLetReducer(
      parent: self, toChildState: child, toChildAction: action, child: childReducer,
      identity: { $0.id })
  }
}
