import IdentifiedCollections
import OrderedCollections

/// Runs an element reducer on one element of an identified collection, then the parent
/// reducer; see ``Reducer/forEach(_:action:element:)``.
public struct ForEachReducer<Parent: Reducer, ID: Hashable & Sendable, Element: Reducer>: Reducer {
  @usableFromInline let parent: Parent
  @usableFromInline let toElements:
    WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>> & Sendable
  @usableFromInline let toElementAction: ActionCase<Parent.Action, (id: ID, action: Element.Action)>
  @usableFromInline let element: Element

  @inlinable
  init(
    parent: Parent,
    toElements: WritableKeyPath<Parent.State, IdentifiedArray<ID, Element.State>> & Sendable,
    toElementAction: ActionCase<Parent.Action, (id: ID, action: Element.Action)>,
    element: Element
  ) {
    self.parent = parent
    self.toElements = toElements
    self.toElementAction = toElementAction
    self.element = element
  }

  /// Runs the element reducer on the addressed element (if it exists), then the parent;
  /// cancels the effects of the elements that the action removed.
  ///
  /// An action addressed to an identifier that is not in the collection leaves the elements
  /// unchanged; the parent reducer still sees it.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    // Shares the identifiers' storage: no copy unless the action adds or removes elements.
    let idsBefore = state[keyPath: toElements].ids
    var elementEffect = Effect<Parent.Action>.none
    if let (id, elementAction) = toElementAction.extract(action) {
      guard let index = state[keyPath: toElements].index(id: id) else {
        reportActionForMissingElement(id)
        return finish(parent.reduce(into: &state, action: action), state, idsBefore)
      }
      let embed = toElementAction.embed
      elementEffect = element.reduce(
        into: &state[keyPath: toElements][index], action: elementAction
      )
      .map { embed((id: id, action: $0)) }
      if !elementEffect.isNone {
        // The element's identifiers are its own: a row's timer never stops another row's.
        let scope = effectID(of: id)
        elementEffect = elementEffect.scopingIDs(in: scope).cancellable(id: scope)
      }
    }
    return finish(
      elementEffect.merge(with: parent.reduce(into: &state, action: action)), state, idsBefore)
  }

  /// `effect`, with the cancellation of the effects of the elements gone since `idsBefore`.
  @inlinable
  func finish(
    _ effect: Effect<Parent.Action>, _ state: Parent.State, _ idsBefore: OrderedSet<ID>
  ) -> Effect<Parent.Action> {
    let idsAfter = state[keyPath: toElements].ids
    if idsAfter == idsBefore { return effect }
    let removed = idsBefore.subtracting(idsAfter)
    if removed.isEmpty { return effect }
    return effect.merge(with: .merge(removed.map { .cancel(id: effectID(of: $0)) }))
  }

  /// Reports, under a test store only (``ReducerMistakes``), that an element action arrived
  /// for an identifier not in the collection.
  @usableFromInline
  func reportActionForMissingElement(_ id: ID) {
    guard let report = ReducerMistakes.report else { return }
    report(
      "A forEach on \(toElements) received an action for a missing element, id \(id); "
        + "the element reducer did not run. An effect of a removed element that was not "
        + "cancelled, or a view that sends to an element no longer shown, sends such actions.")
  }

  /// The identifier under which the element `id` runs its effects: the one an `ifLet` uses,
  /// with the collection's key path and the element's `id`.
  @inlinable
  func effectID(of id: ID) -> ChildEffectID {
    ChildEffectID(toElements, id: id)
  }
}

extension ForEachReducer: Sendable where Parent: Sendable, Element: Sendable {}

extension Reducer {
  /// Runs `element` on one element of an identified collection in this reducer's state.
  ///
  /// ```swift
  /// BankReducer()
  ///   .forEach(\.accounts, action: .account, element: AccountReducer())
  /// ```
  ///
  /// The element reducer runs first, in place (no copy of the element or the collection),
  /// then this reducer.
  ///
  /// Each element's effects are cancellable under an identifier private to this `forEach`
  /// (the collection's key path and the element's `id`). When an action removes an element,
  /// whether the parent or the element removed it, the element's running effects are
  /// cancelled, including those the removing action started, as an `ifLet` cancels a
  /// dismissed child's. An element that stays keeps its effects, even when it moves or the
  /// parent replaces its state.
  ///
  /// The identifiers an element's effects use are its own, as TCA scopes them: a row's
  /// `cancel(id: TimerID())` stops that row's timer, not another row's, and two rows debounce
  /// their searches apart. The parent cannot cancel an element's effect by the element's
  /// identifier; it removes the element, or sends the element an action that cancels it.
  ///
  /// - Parameters:
  ///   - elements: Where the identified collection lives in the state.
  ///   - action: How an element's action and its identifier are embedded in this reducer's actions.
  ///   - element: The reducer to run on the addressed element.
  /// - Returns: A reducer that runs both.
  @inlinable
  public func forEach<ID: Hashable & Sendable, Element: Reducer>(
    _ elements: WritableKeyPath<State, IdentifiedArray<ID, Element.State>> & Sendable,
    action: ActionCase<Action, (id: ID, action: Element.Action)>,
    element: Element
  ) -> ForEachReducer<Self, ID, Element> {
    ForEachReducer(parent: self, toElements: elements, toElementAction: action, element: element)
  }
}
