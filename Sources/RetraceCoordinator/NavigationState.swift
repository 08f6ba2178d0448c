/// Screen and navigation state as a value: the tabs with a stack each, the selected tab,
/// the modal presentations above it, and the outcome of the last navigation action.
///
/// It changes only through ``NavigationAction``s, applied by ``NavigationReducer`` (or
/// ``apply(_:rules:)`` inside an app's reducer), so navigation is recorded, replayed, diffed
/// and checked like any other state.
///
/// ```swift
/// var nav = NavigationState(tabs: ["feed": PostsRoute.postList, "settings": .settings])
/// nav.apply(.push(route: .postDetail(id: 42)), rules: rules)
/// nav.visibleRoute      // .postDetail(id: 42)
/// nav.apply(.push(route: .settings), rules: rules)
/// nav.visibleRoute      // still .postDetail(id: 42)
/// nav.lastRefusal?.reason  // .pushNotAllowed
/// ```
///
/// ## Layers
///
/// The selected tab's stack is the bottom layer. Each presentation in ``presentations`` is a
/// layer above it with its own stack, bottom first, so nested presentations are simply later
/// elements. Pushes, pops and dismissals act on the top layer.
///
/// ## Invariants
///
/// There is at least one tab, tab names are unique, the selected tab exists, and no stack is
/// empty. Actions keep these; a decoded state can be checked with ``validate(rules:)``.
public struct NavigationState<Route: Routable>: Hashable, Codable, Sendable {
  // Stored under other names so that the inlinable hot path (``apply(_:rules:)``, which
  // apps specialize for their own routes) can change them while users can only read them.
  @usableFromInline var _tabs: [NavigationTab<Route>]
  @usableFromInline var _selectedTab: String
  @usableFromInline var _presentations: [Presentation<Route>]
  @usableFromInline var _lastRefusal: NavigationRefusal<Route>?
  @usableFromInline var _refusalCount: Int

  /// The tabs, in tab-bar order, each with its stack.
  @inlinable public var tabs: [NavigationTab<Route>] { _tabs }
  /// The name of the selected tab.
  @inlinable public var selectedTab: String { _selectedTab }
  /// The modal presentations above the selected tab's stack, bottom first.
  @inlinable public var presentations: [Presentation<Route>] { _presentations }
  /// Why the last navigation (or screen) action was refused; `nil` after one was applied.
  @inlinable public var lastRefusal: NavigationRefusal<Route>? { _lastRefusal }
  /// How many actions have been refused so far.
  ///
  /// It tells two refusals in a row apart: a tool that compares the states before and
  /// after an action sees a refusal whenever this count went up.
  @inlinable public var refusalCount: Int { _refusalCount }

  /// Creates the state of an app without a tab bar: one tab, called `main`, at `root`.
  ///
  /// - Parameter root: The root route.
  public init(root: Route) {
    self.init(tabs: [NavigationTab(name: "main", stack: [root])], selectedTab: "main")
  }

  /// Creates the state of an app with a tab bar, each tab at its root.
  ///
  /// - Parameters:
  ///   - tabs: The tabs' names and roots, in tab-bar order; at least one.
  ///   - selectedTab: The selected tab; the first tab if `nil`.
  public init(tabs: KeyValuePairs<String, Route>, selectedTab: String? = nil) {
    precondition(!tabs.isEmpty, "NavigationState needs at least one tab")
    self.init(
      tabs: tabs.map { NavigationTab(name: $0.key, stack: [$0.value]) },
      selectedTab: selectedTab ?? tabs[tabs.startIndex].key
    )
  }

  /// Creates a state from its parts.
  ///
  /// - Parameters:
  ///   - tabs: The tabs, each with a non-empty stack; at least one, with unique names.
  ///   - selectedTab: The name of the selected tab, which must be one of `tabs`.
  ///   - presentations: The presentations above the selected tab, bottom first.
  public init(
    tabs: [NavigationTab<Route>],
    selectedTab: String,
    presentations: [Presentation<Route>] = []
  ) {
    precondition(!tabs.isEmpty, "NavigationState needs at least one tab")
    precondition(tabs.allSatisfy { !$0.stack.isEmpty }, "every tab's stack needs a root")
    precondition(Set(tabs.map(\.name)).count == tabs.count, "tab names must be unique")
    precondition(tabs.contains { $0.name == selectedTab }, "unknown selected tab \(selectedTab)")
    precondition(presentations.allSatisfy { !$0.stack.isEmpty }, "a presentation needs a route")
    self._tabs = tabs
    self._selectedTab = selectedTab
    self._presentations = presentations
    self._lastRefusal = nil
    self._refusalCount = 0
  }

  /// The index of the selected tab in ``tabs``.
  @inlinable
  public var selectedTabIndex: Int {
    // Tab bars are short; a linear scan of small strings beats hashing.
    for index in _tabs.indices where _tabs[index].name == _selectedTab { return index }
    preconditionFailure("selected tab \(_selectedTab) is not among the tabs")
  }

  /// The stack of the top layer: the topmost presentation's, else the selected tab's.
  @inlinable
  public var currentStack: [Route] {
    _presentations.last?.stack ?? _tabs[selectedTabIndex].stack
  }

  /// The screen on top: the last route of ``currentStack``.
  @inlinable
  public var visibleRoute: Route {
    if let top = _presentations.last { return top.stack[top.stack.count - 1] }
    let stack = _tabs[selectedTabIndex].stack
    return stack[stack.count - 1]
  }

  /// The stack of the tab called `tab`, if there is one.
  @inlinable
  public func stack(ofTab tab: String) -> [Route]? {
    for index in _tabs.indices where _tabs[index].name == tab { return _tabs[index].stack }
    return nil
  }

  /// The path the user sees: the selected tab, its stack and the presentations.
  ///
  /// Send it back as ``NavigationAction/setPath(path:)`` to restore the navigation, or turn
  /// it into a link with ``RouteTable/url(for:)``.
  @inlinable
  public var path: RoutePath<Route> {
    RoutePath(
      tab: _selectedTab, stack: _tabs[selectedTabIndex].stack, presentations: _presentations)
  }

  /// Whether `route` is on any stack: any tab's or any presentation's.
  @inlinable
  public func contains(_ route: Route) -> Bool {
    _tabs.contains { $0.stack.contains(route) }
      || _presentations.contains { $0.stack.contains(route) }
  }

  /// Every route on every stack: the tabs' in tab order, then the presentations', bottom first.
  ///
  /// It builds an array (one allocation; none when there is one tab and nothing is
  /// presented, whose stack it returns). To look at each route without one, iterate
  /// ``routes``.
  @inlinable
  public var allRoutes: [Route] {
    if _tabs.count == 1, _presentations.isEmpty { return _tabs[0].stack }
    var count = 0
    for tab in _tabs { count += tab.stack.count }
    for presentation in _presentations { count += presentation.stack.count }
    var routes: [Route] = []
    routes.reserveCapacity(count)
    for tab in _tabs { routes.append(contentsOf: tab.stack) }
    for presentation in _presentations { routes.append(contentsOf: presentation.stack) }
    return routes
  }

  /// Every route on every stack, in the order of ``allRoutes``, without building an array.
  ///
  /// ```swift
  /// for route in navigation.routes where route.name == "postDetail" { … }
  /// navigation.routes.allSatisfy { screens[$0] != nil }
  /// ```
  @inlinable
  public var routes: Routes { Routes(tabs: _tabs, presentations: _presentations) }

  private enum CodingKeys: String, CodingKey {
    case tabs, selectedTab, presentations, lastRefusal, refusalCount
  }

  /// Decodes a state, rejecting one whose structure is broken (no tabs, an empty stack,
  /// an unknown selected tab), so that no decoded state can trap later.
  ///
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: `DecodingError.dataCorrupted` for a broken structure, or the decoder's errors.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let tabs = try container.decode([NavigationTab<Route>].self, forKey: .tabs)
    let selectedTab = try container.decode(String.self, forKey: .selectedTab)
    let presentations =
      try container.decodeIfPresent([Presentation<Route>].self, forKey: .presentations) ?? []
    if let problem = Self.structuralProblem(
      tabs: tabs, selectedTab: selectedTab, presentations: presentations)
    {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath, debugDescription: "invalid navigation state: \(problem)"))
    }
    self._tabs = tabs
    self._selectedTab = selectedTab
    self._presentations = presentations
    self._lastRefusal = try container.decodeIfPresent(
      NavigationRefusal<Route>.self, forKey: .lastRefusal)
    self._refusalCount = try container.decodeIfPresent(Int.self, forKey: .refusalCount) ?? 0
  }

  /// Encodes the state as `{"tabs": […], "selectedTab": …, "presentations": […],
  /// "lastRefusal": …, "refusalCount": …}`; `lastRefusal` is left out when it is `nil`.
  ///
  /// - Parameter encoder: The encoder to write to.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(_tabs, forKey: .tabs)
    try container.encode(_selectedTab, forKey: .selectedTab)
    try container.encode(_presentations, forKey: .presentations)
    try container.encodeIfPresent(_lastRefusal, forKey: .lastRefusal)
    try container.encode(_refusalCount, forKey: .refusalCount)
  }
}

extension NavigationState: CustomReflectable {
  /// Shows the state's public names (`tabs`, `selectedTab`, …) to dumps and diffs, rather
  /// than the storage behind them.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "tabs": _tabs as Any, "selectedTab": _selectedTab, "presentations": _presentations,
        "lastRefusal": _lastRefusal as Any, "refusalCount": _refusalCount,
      ],
      displayStyle: .struct)
  }
}
