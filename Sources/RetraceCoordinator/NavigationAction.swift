/// A change of navigation: the actions a ``NavigationReducer`` applies to a
/// ``NavigationState``.
///
/// Navigation actions are actions like any other: an app's action enum carries them in one
/// case, so they are recorded in traces, replayed and diffed. They encode with Swift's
/// synthesized `Codable`, with labelled values so that the JSON reads well:
///
/// ```swift
/// enum PostsAction: Codable { case navigation(action: NavigationAction<PostsRoute>), load }
///
/// let action = PostsAction.navigation(action: .push(route: .postDetail(id: 42)))
/// // {"navigation":{"action":{"push":{"route":{"postDetail":{"id":42}}}}}}
/// ```
///
/// Pushes, pops and dismissals act on the top layer: the topmost presentation's stack if
/// something is presented, else the selected tab's stack. An action that the flow rules or
/// the shape of the state forbid is refused: the state is left unchanged and the refusal is
/// reported in ``NavigationState/lastRefusal``.
public enum NavigationAction<Route: Routable>: Hashable, Codable, Sendable {
  /// Pushes `route` onto the top layer's stack.
  ///
  /// Refused unless the rules allow the visible route to push `route`.
  case push(route: Route)
  /// Pops the top route off the top layer's stack.
  ///
  /// Refused at the root of a stack: dismiss a presentation instead.
  case pop
  /// Pops the top layer's stack back to the last occurrence of `route`.
  ///
  /// Refused when `route` is not on that stack.
  case popTo(route: Route)
  /// Pops the top layer's stack back to its root.
  case popToRoot
  /// Presents `route` modally, as a new layer with its own stack.
  ///
  /// Refused unless the rules allow the visible route to present `route`.
  case present(route: Route, style: PresentationStyle)
  /// Dismisses the topmost presentation with its stack.
  ///
  /// Refused when nothing is presented.
  case dismiss
  /// Selects the tab called `tab`, which keeps its own stack.
  ///
  /// Refused for a tab the state does not have, and while something is presented (a modal
  /// covers the tab bar).
  case selectTab(tab: String)
  /// Sets the whole path at once: a tab's stack and the presentations above it.
  ///
  /// This is how deep links and state restoration navigate. Every step of the path must be
  /// allowed by the rules, as if it had been pushed and presented one by one; otherwise the
  /// whole action is refused and nothing changes.
  case setPath(path: RoutePath<Route>)

  /// The case's name, as it appears in the encoded action (`push`, `setPath`, …).
  @inlinable
  public var name: String {
    switch self {
    case .push: "push"
    case .pop: "pop"
    case .popTo: "popTo"
    case .popToRoot: "popToRoot"
    case .present: "present"
    case .dismiss: "dismiss"
    case .selectTab: "selectTab"
    case .setPath: "setPath"
    }
  }

  /// The names of all the cases, in declaration order.
  public static var caseNames: [String] {
    ["push", "pop", "popTo", "popToRoot", "present", "dismiss", "selectTab", "setPath"]
  }
}

/// A whole navigation path: which tab, its stack, and the presentations above it.
///
/// The value of a ``NavigationAction/setPath(path:)`` action, the result of parsing a deep
/// link with ``RouteTable/path(for:rules:)``, and what ``NavigationState/path`` returns for
/// state restoration.
///
/// ```swift
/// let path = RoutePath(tab: "feed", stack: [.postList, .postDetail(id: 42)],
///                      presentations: [Presentation(.share(postID: 42))])
/// store.send(.navigation(.setPath(path: path)))
/// ```
public struct RoutePath<Route: Routable>: Hashable, Codable, Sendable {
  /// The tab whose stack ``stack`` replaces and which becomes selected; `nil` for the
  /// selected tab.
  public var tab: String?
  /// The tab's new stack, root first.
  public var stack: [Route]
  /// The presentations above the stack, bottom first; they replace the current ones.
  public var presentations: [Presentation<Route>]

  /// Creates a path.
  ///
  /// - Parameters:
  ///   - tab: The tab to select and whose stack to replace; `nil` for the selected tab.
  ///   - stack: The tab's new stack, root first.
  ///   - presentations: The presentations above it, bottom first.
  @inlinable
  public init(tab: String? = nil, stack: [Route], presentations: [Presentation<Route>] = []) {
    self.tab = tab
    self.stack = stack
    self.presentations = presentations
  }

  /// The screen the path shows: the top of its topmost stack.
  @inlinable
  public var visibleRoute: Route? {
    presentations.last?.stack.last ?? stack.last
  }
}
