extension NavigationState {
  /// Applies a navigation action under `rules`, or refuses it.
  ///
  /// An applied action clears ``lastRefusal``. A refused action leaves the navigation
  /// unchanged, sets ``lastRefusal`` and increments ``refusalCount``; it never traps.
  ///
  /// ```swift
  /// var nav = NavigationState(root: BankingRoute.accounts)
  /// nav.apply(.present(route: .newTransaction(iban: "DE89"), style: .sheet), rules: rules)
  /// // NavigationRefusal(action: "present", reason: .presentNotAllowed,
  /// //                   from: .accounts, to: .newTransaction(iban: "DE89"))
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action to apply.
  ///   - rules: The flow rules that decide which transitions are allowed.
  /// - Returns: The refusal, or `nil` when the action was applied.
  @inlinable
  @discardableResult
  public mutating func apply(
    _ action: NavigationAction<Route>,
    rules: FlowRules<Route>
  ) -> NavigationRefusal<Route>? {
    let refusal: NavigationRefusal<Route>? =
      switch action {
      case .push(let route): push(route, rules: rules)
      case .pop: pop()
      case .popTo(let route): pop(to: route)
      case .popToRoot: popToRoot()
      case .present(let route, let style): present(route, style: style, rules: rules)
      case .dismiss: dismiss()
      case .selectTab(let tab): selectTab(tab, rules: rules)
      case .setPath(let path): setPath(path, rules: rules)
      }
    if let refusal {
      _lastRefusal = refusal
      _refusalCount &+= 1
    } else if _lastRefusal != nil {
      _lastRefusal = nil
    }
    return refusal
  }

  // Each action's change, or its refusal. They leave `lastRefusal` to `apply`.

  @inlinable
  mutating func push(_ route: Route, rules: FlowRules<Route>) -> NavigationRefusal<Route>? {
    let from = visibleRoute
    guard rules.allowsPush(from: from, to: route) else {
      return NavigationRefusal(action: "push", reason: .pushNotAllowed, from: from, to: route)
    }
    modifyCurrentStack { $0.append(route) }
    return nil
  }

  @inlinable
  mutating func pop() -> NavigationRefusal<Route>? {
    modifyCurrentStack { stack in
      guard stack.count > 1 else {
        return NavigationRefusal(action: "pop", reason: .cannotPopRoot, from: stack[0])
      }
      stack.removeLast()
      return nil
    }
  }

  @inlinable
  mutating func pop(to route: Route) -> NavigationRefusal<Route>? {
    modifyCurrentStack { stack in
      guard let index = stack.lastIndex(of: route) else {
        return NavigationRefusal(
          action: "popTo", reason: .notOnStack, from: stack[stack.count - 1], to: route)
      }
      stack.removeLast(stack.count - 1 - index)
      return nil
    }
  }

  @inlinable
  mutating func popToRoot() -> NavigationRefusal<Route>? {
    modifyCurrentStack { $0.removeLast($0.count - 1) }
    return nil
  }

  @inlinable
  mutating func present(
    _ route: Route, style: PresentationStyle, rules: FlowRules<Route>
  ) -> NavigationRefusal<Route>? {
    let from = visibleRoute
    guard rules.allowsPresent(from: from, to: route) else {
      return NavigationRefusal(
        action: "present", reason: .presentNotAllowed, from: from, to: route)
    }
    _presentations.append(Presentation(style: style, stack: [route]))
    return nil
  }

  @inlinable
  mutating func dismiss() -> NavigationRefusal<Route>? {
    guard !_presentations.isEmpty else {
      return NavigationRefusal(action: "dismiss", reason: .nothingPresented, from: visibleRoute)
    }
    _presentations.removeLast()
    return nil
  }

  @inlinable
  mutating func selectTab(_ tab: String, rules: FlowRules<Route>) -> NavigationRefusal<Route>? {
    guard _presentations.isEmpty else {
      return NavigationRefusal(
        action: "selectTab", reason: .presentationActive, from: visibleRoute, tab: tab)
    }
    guard rules.allowsTab(tab), _tabs.contains(where: { $0.name == tab }) else {
      return NavigationRefusal(
        action: "selectTab", reason: .unknownTab, from: visibleRoute, tab: tab)
    }
    _selectedTab = tab
    return nil
  }

  @inlinable
  mutating func setPath(_ path: RoutePath<Route>, rules: FlowRules<Route>)
    -> NavigationRefusal<Route>?
  {
    let tab = path.tab ?? _selectedTab
    guard let index = _tabs.firstIndex(where: { $0.name == tab }), rules.allowsTab(tab) else {
      return NavigationRefusal(
        action: "setPath", reason: .unknownTab, from: visibleRoute, tab: tab)
    }
    if let problem = Self.check(path.stack, tab: tab, rules: rules)
      ?? Self.check(path.presentations, above: path.stack.last, rules: rules)
    {
      return problem.refusal(action: "setPath", tab: tab)
    }
    _tabs[index].stack = path.stack
    _selectedTab = tab
    _presentations = path.presentations
    return nil
  }

  /// Records that a screen action (or any other action the app checks itself) was refused.
  ///
  /// ``ScreenStates/update(_:in:action:_:)`` calls this for actions addressed to a screen
  /// that is on no stack; an app may call it for refusals of its own.
  ///
  /// - Parameter refusal: The refusal to report.
  @inlinable
  public mutating func report(_ refusal: NavigationRefusal<Route>) {
    _lastRefusal = refusal
    _refusalCount &+= 1
  }

  /// Records that an action was applied: clears ``lastRefusal``.
  @inlinable
  public mutating func clearRefusal() {
    if _lastRefusal != nil { _lastRefusal = nil }
  }

  /// Runs `body` on the top layer's stack, in place.
  @inlinable
  mutating func modifyCurrentStack<Result>(_ body: (inout [Route]) -> Result) -> Result {
    if _presentations.isEmpty {
      return body(&_tabs[selectedTabIndex].stack)
    }
    return body(&_presentations[_presentations.count - 1].stack)
  }
}

/// What is wrong with a stack or a presentation, before it is turned into a refusal or an error.
@usableFromInline
struct PathProblem<Route: Routable> {
  @usableFromInline var reason: NavigationRefusal<Route>.Reason
  @usableFromInline var from: Route?
  @usableFromInline var to: Route?

  @inlinable
  init(reason: NavigationRefusal<Route>.Reason, from: Route? = nil, to: Route? = nil) {
    self.reason = reason
    self.from = from
    self.to = to
  }

  @usableFromInline
  func refusal(action: String, tab: String?) -> NavigationRefusal<Route> {
    NavigationRefusal(action: action, reason: reason, from: from, to: to, tab: tab)
  }
}

extension NavigationState {
  /// Checks that `stack` starts at a root of `tab` and that each route may push the next.
  @inlinable
  static func check(_ stack: [Route], tab: String, rules: FlowRules<Route>) -> PathProblem<Route>? {
    guard let root = stack.first else { return PathProblem(reason: .emptyStack) }
    guard rules.allowsRoot(root, ofTab: tab) else {
      return PathProblem(reason: .notARoot, to: root)
    }
    return forbiddenPush(in: stack, rules: rules)
  }

  /// The first step of `stack` that the rules do not allow as a push.
  @inlinable
  static func forbiddenPush(in stack: [Route], rules: FlowRules<Route>) -> PathProblem<Route>? {
    if rules.allowsEverything, rules.pushConditions.isEmpty { return nil }
    for index in stack.indices.dropFirst() {
      let (from, to) = (stack[index - 1], stack[index])
      if !rules.allowsPush(from: from, to: to) {
        return PathProblem(reason: .pushNotAllowed, from: from, to: to)
      }
    }
    return nil
  }

  /// Checks that each presentation is presented by the route below it and that each of its
  /// routes may push the next.
  @inlinable
  static func check(
    _ presentations: [Presentation<Route>],
    above bottom: Route?,
    rules: FlowRules<Route>
  ) -> PathProblem<Route>? {
    var below = bottom
    for presentation in presentations {
      guard let first = presentation.stack.first else {
        return PathProblem(reason: .emptyStack, from: below)
      }
      if let below, !rules.allowsPresent(from: below, to: first) {
        return PathProblem(reason: .presentNotAllowed, from: below, to: first)
      }
      if let problem = forbiddenPush(in: presentation.stack, rules: rules) { return problem }
      below = presentation.stack.last
    }
    return nil
  }
}
