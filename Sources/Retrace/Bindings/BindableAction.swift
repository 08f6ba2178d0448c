/// A feature action with a case that carries ``BindingAction``s, as TCA's `BindableAction`.
///
/// ```swift
/// enum NoteFormAction: BindableAction, Codable, Equatable, Sendable {
///   case binding(BindingAction<NoteForm>)
///   case save
///
///   var binding: BindingAction<NoteForm>? {
///     if case .binding(let action) = self { action } else { nil }
///   }
/// }
/// ```
///
/// The enum case satisfies ``binding(_:)``; the property is the way back, which TCA derives
/// with a macro and Retrace, which builds without macros, asks you to write (one line).
/// Together they make the ``ActionCase`` `.binding` (``ActionCase/binding``).
public protocol BindableAction<State>: Sendable {
  /// The state whose declared fields the binding actions set.
  associatedtype State: BindableState

  /// Embeds a binding action: the `binding` case.
  ///
  /// - Parameter action: The binding action.
  /// - Returns: The feature action that carries it.
  static func binding(_ action: BindingAction<State>) -> Self

  /// The binding action this action carries, if it is the `binding` case.
  var binding: BindingAction<State>? { get }
}

extension ActionCase where Root: BindableAction, Value == BindingAction<Root.State> {
  /// The `binding` case of a ``BindableAction``.
  public static var binding: Self {
    ActionCase(embed: { Root.binding($0) }, extract: { $0.binding })
  }
}

/// Applies the binding actions of a ``BindableAction`` to the state; other actions pass
/// through untouched. It starts no effect.
///
/// Combine it with the feature's reducer, before it, so that the feature's reducer sees the
/// state the binding produced and can react to the edit (validate, start a search):
///
/// ```swift
/// let noteForm = BindingReducer().combined(with: NoteFormReducer())
/// ```
///
/// and in the feature's reducer:
///
/// ```swift
/// case .binding(let edit) where edit.field == "title":
///   state.isSaveEnabled = !state.title.isEmpty
///   return .none
/// case .binding:
///   return .none
/// ```
public struct BindingReducer<State: BindableState, Action: BindableAction>: Reducer, Sendable
where Action.State == State {
  /// Creates the reducer; the state and action types come from what it is combined with.
  @inlinable
  public init() {}

  /// Sets the field a binding action names; does nothing for other actions.
  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    action.binding?.apply(to: &state)
    return .none
  }
}
