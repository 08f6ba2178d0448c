import Retrace

/// Predicates and an invariant about navigation that a domain whose state holds a
/// ``NavigationState`` declares for a model checker (`retrace check`).
///
/// ``screenPredicates(_:navigation:)`` names each screen, so that
/// `retrace check posts --reach shows-share` finds a shortest way to it;
/// ``returnsToRoot(reducer:navigation:action:)`` checks in every state that going back
/// leads home.
///
/// ```swift
/// public let postsDomain = DomainDefinition(
///   …,
///   invariants: postsInvariants + [
///     NavigationChecks.returnsToRoot(
///       reducer: PostsReducer(loader: { [] }), navigation: \.navigation,
///       action: { PostsAction.navigation(action: $0) })
///   ],
///   predicates: NavigationChecks.screenPredicates(
///     ["postList", "postDetail", "share", "settings", "about"], navigation: \.navigation))
/// ```
public enum NavigationChecks {
  /// The name of the predicate that holds while the route called `routeName` shows:
  /// `shows-` and the route's name, such as `shows-postDetail`.
  ///
  /// - Parameter routeName: A route's ``Routable/name``.
  /// - Returns: The predicate's name.
  public static func screenPredicateName(_ routeName: String) -> String {
    "shows-\(routeName)"
  }

  /// One predicate a screen, `shows-<name>`, that holds while a route with that name is on
  /// top: the visible route (``NavigationState/visibleRoute``), the top of the topmost
  /// presentation if something is presented, else of the selected tab's stack.
  ///
  /// - Parameters:
  ///   - routeNames: The screens, by route name (``Routable/name``), in the order the
  ///     predicates are listed.
  ///   - navigation: Reads the navigation state out of the domain's state.
  /// - Returns: The predicates, one for each name.
  public static func screenPredicates<State, Route: Routable>(
    _ routeNames: [String],
    navigation: @escaping @Sendable (State) -> NavigationState<Route>
  ) -> [StatePredicate<State>] {
    routeNames.map { name in
      StatePredicate(screenPredicateName(name), "The \(name) screen is on top.") {
        navigation($0).visibleRoute.name == name
      }
    }
  }

  /// The name of the invariant ``returnsToRoot(reducer:navigation:action:)`` makes.
  public static let returnsToRootName = "returns-to-root"

  /// An invariant, `returns-to-root`, that holds when going back from the state leads to
  /// the selected tab's root with nothing presented.
  ///
  /// From the state checked, it sends the back action of the top layer through `reducer`:
  /// ``NavigationAction/pop`` while the top layer's stack has more than its root, else
  /// ``NavigationAction/dismiss`` while something is presented. It sends at most as many
  /// as there are routes above the root (the selected tab's, and every presentation's), so
  /// a reducer that refuses or ignores one, or that pushes or presents in answer to one,
  /// breaks the invariant instead of looping. Effects the reducer returns are not run.
  ///
  /// - Parameters:
  ///   - reducer: The domain's reducer.
  ///   - navigation: Reads the navigation state out of the domain's state.
  ///   - action: Embeds a navigation action in the domain's actions.
  /// - Returns: The invariant.
  public static func returnsToRoot<R: Reducer & Sendable, Route: Routable>(
    reducer: R,
    navigation: @escaping @Sendable (R.State) -> NavigationState<Route>,
    action: @escaping @Sendable (NavigationAction<Route>) -> R.Action
  ) -> Invariant<R.State> {
    Invariant(
      returnsToRootName,
      "Going back (pop, then dismiss) from any screen leads to the selected tab's root with nothing presented."
    ) { start in
      var state = start
      let before = navigation(state)
      let budget =
        before.presentations.reduce(0) { $0 + $1.stack.count }
        + (before.stack(ofTab: before.selectedTab)?.count ?? 1) - 1
      for _ in 0..<budget {
        let current = navigation(state)
        if current.presentations.isEmpty && current.currentStack.count == 1 { break }
        let back: NavigationAction<Route> = current.currentStack.count > 1 ? .pop : .dismiss
        _ = reducer.reduce(into: &state, action: action(back))
      }
      let after = navigation(state)
      return after.presentations.isEmpty && after.currentStack.count == 1
    }
  }
}
