extension NavigationState {
  /// Checks that the state is well formed and that the rules allow every stack and
  /// presentation in it.
  ///
  /// Actions keep a state valid, so this matters for states that come from elsewhere: a
  /// decoded snapshot, a restored session, a test's hand-built value. It is what the
  /// `valid-navigation` invariants of the examples check.
  ///
  /// ```swift
  /// try state.navigation.validate(rules: postsRules)
  /// ```
  ///
  /// - Parameter rules: The flow rules the state must obey.
  /// - Throws: A ``CoordinatorError`` with code ``CoordinatorError/Code/invalidState`` that
  ///   names the first problem found.
  @inlinable
  public func validate(rules: FlowRules<Route>) throws(CoordinatorError) {
    if let problem = Self.structuralProblem(
      tabs: tabs, selectedTab: selectedTab, presentations: presentations)
    {
      throw CoordinatorError(code: .invalidState, message: problem)
    }
    for tab in tabs {
      guard rules.allowsTab(tab.name) else {
        throw CoordinatorError(
          code: .invalidState, message: "tab \(tab.name) is not declared by the rules",
          refusalReason: NavigationRefusal<Route>.Reason.unknownTab.rawValue)
      }
      if let problem = Self.check(tab.stack, tab: tab.name, rules: rules) {
        throw Self.error(problem, where: "tab \(tab.name)", tab: tab.name)
      }
    }
    let selectedStack = tabs[selectedTabIndex].stack
    if let problem = Self.check(presentations, above: selectedStack.last, rules: rules) {
      throw Self.error(problem, where: "the presentations", tab: selectedTab)
    }
  }

  /// Whether ``validate(rules:)`` finds no problem.
  ///
  /// - Parameter rules: The flow rules the state must obey.
  /// - Returns: `true` when the state is well formed and obeys `rules`.
  ///
  /// Inlinable, with what it calls, so that an invariant checked after every action
  /// (`retrace bisect`) runs code compiled for the app's routes: through generic code, most
  /// of its cost was looking up generic metadata.
  @inlinable
  public func isValid(under rules: FlowRules<Route>) -> Bool {
    do {
      try validate(rules: rules)
      return true
    } catch {
      return false
    }
  }

  @usableFromInline
  static func error(_ problem: PathProblem<Route>, where place: String, tab: String)
    -> CoordinatorError
  {
    let refusal = problem.refusal(action: "validate", tab: tab)
    return CoordinatorError(
      code: .invalidState, message: "in \(place): \(refusal.message)",
      refusalReason: refusal.reason.rawValue)
  }

  /// The first structural problem of the parts of a state, or `nil` if they are well formed.
  @inlinable
  static func structuralProblem(
    tabs: [NavigationTab<Route>],
    selectedTab: String,
    presentations: [Presentation<Route>]
  ) -> String? {
    if tabs.isEmpty { return "there are no tabs" }
    var names = Set<String>()
    for tab in tabs {
      if !names.insert(tab.name).inserted { return "two tabs are called \(tab.name)" }
      if tab.stack.isEmpty { return "the stack of tab \(tab.name) is empty" }
    }
    if !names.contains(selectedTab) { return "the selected tab \(selectedTab) does not exist" }
    if let index = presentations.firstIndex(where: { $0.stack.isEmpty }) {
      return "presentation \(index) has an empty stack"
    }
    return nil
  }
}
