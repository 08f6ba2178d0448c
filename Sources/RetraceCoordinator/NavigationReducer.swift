import Retrace

/// The reducer that applies ``NavigationAction``s to a ``NavigationState`` under
/// ``FlowRules``.
///
/// An app composes it with its own reducer: its action enum has a case that carries
/// navigation actions, and a `Scope` runs this reducer on the navigation part of
/// the state.
///
/// ```swift
/// enum AppAction: Codable, Sendable {
///   case navigation(action: NavigationAction<AppRoute>)
///   case load
///
///   static let navigationCase = ActionCase<AppAction, NavigationAction<AppRoute>>(
///     embed: { .navigation(action: $0) },
///     extract: { if case .navigation(let action) = $0 { action } else { nil } }
///   )
/// }
///
/// let app = Scope(state: \AppState.navigation, action: AppAction.navigationCase,
///                 child: NavigationReducer(rules: appRules))
///   .combined(with: AppReducer())   // sees .navigation too, e.g. to sync screen states
/// ```
///
/// It starts no effects. A refused action leaves the state unchanged apart from
/// ``NavigationState/lastRefusal`` and ``NavigationState/refusalCount``.
public struct NavigationReducer<Route: Routable>: Reducer, Sendable {
  /// The rules that decide which transitions are allowed.
  public let rules: FlowRules<Route>

  /// Creates a navigation reducer.
  ///
  /// - Parameter rules: The flow rules; by default everything is allowed.
  public init(rules: FlowRules<Route> = .allowingEverything) {
    self.rules = rules
  }

  /// Applies a navigation action, or records why it was refused.
  ///
  /// - Parameters:
  ///   - state: The navigation state.
  ///   - action: The navigation action.
  /// - Returns: `Effect.none`.
  @inlinable
  public func reduce(
    into state: inout NavigationState<Route>,
    action: NavigationAction<Route>
  ) -> Effect<NavigationAction<Route>> {
    state.apply(action, rules: rules)
    return .none
  }
}
