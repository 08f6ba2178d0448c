import OrderedCollections

/// Which screens may lead to which: the tabs, the roots, and the allowed pushes and
/// presentations, by route name (``Routable/name``).
///
/// Declared rules are a closed world: a push or presentation that no rule allows is refused
/// (and reported in ``NavigationState/lastRefusal``). ``allowingEverything`` is the open
/// world, for apps that do not declare rules.
///
/// ```swift
/// let rules = FlowRules<PostsRoute>()
///   .tab("feed", root: "postList")
///   .tab("settings", root: "settings")
///   .allowPush(from: "postList", to: "postDetail")
///   .allowPush(from: "settings", to: "about")
///   .allowPresent(from: "postDetail", to: "share")
/// ```
///
/// A banking app without a tab bar declares its root and its sheets; "a transaction sheet
/// only from an account's screen" is one line:
///
/// ```swift
/// let rules = FlowRules<BankingRoute>()
///   .root("accounts")
///   .allowPush(from: "accounts", to: "account")
///   .allowPresent(from: "accounts", to: "newAccount")
///   .allowPresent(from: "account", to: "newTransaction")
/// ```
///
/// Lookups are hashed (a dictionary of sets), so checking a rule costs two hash lookups.
public struct FlowRules<Route: Routable>: Sendable {
  /// Whether every transition is allowed (``allowingEverything``).
  public private(set) var allowsEverything: Bool
  /// The declared tabs, in order, with the name of each tab's root route.
  public private(set) var tabs: OrderedDictionary<String, String> = [:]
  /// The names of the routes that may start a tab's stack (tab roots included).
  public private(set) var roots: OrderedSet<String> = []
  /// The allowed pushes: route name to the names it may push.
  public private(set) var pushes: OrderedDictionary<String, OrderedSet<String>> = [:]
  /// The allowed presentations: route name to the names it may present.
  public private(set) var presents: OrderedDictionary<String, OrderedSet<String>> = [:]

  /// Creates empty rules, which allow nothing until transitions are declared.
  public init() {
    self.allowsEverything = false
  }

  /// Rules that allow every push, presentation, root and tab: what an app gets when it
  /// declares no rules.
  public static var allowingEverything: FlowRules {
    var rules = FlowRules()
    rules.allowsEverything = true
    return rules
  }

  /// Returns rules with a tab called `name` whose stack starts at `root`.
  ///
  /// `root` becomes a root too. Once a tab is declared, only declared tabs may be selected.
  ///
  /// - Parameters:
  ///   - name: The tab's name.
  ///   - root: The name of the tab's root route.
  /// - Returns: The extended rules.
  public func tab(_ name: String, root: String) -> FlowRules {
    var rules = self
    rules.tabs[name] = root
    rules.roots.append(root)
    return rules
  }

  /// Returns rules in which the named routes may start a stack.
  ///
  /// - Parameter names: Route names.
  /// - Returns: The extended rules.
  public func root(_ names: String...) -> FlowRules {
    var rules = self
    for name in names { rules.roots.append(name) }
    return rules
  }

  /// Returns rules in which the route called `from` may push the routes called `to`.
  ///
  /// - Parameters:
  ///   - from: The name of the pushing route.
  ///   - to: The names of the routes it may push.
  /// - Returns: The extended rules.
  public func allowPush(from: String, to: String...) -> FlowRules {
    var rules = self
    for name in to { rules.pushes[from, default: []].append(name) }
    return rules
  }

  /// Returns rules in which the route called `from` may present the routes called `to`.
  ///
  /// - Parameters:
  ///   - from: The name of the presenting route.
  ///   - to: The names of the routes it may present.
  /// - Returns: The extended rules.
  public func allowPresent(from: String, to: String...) -> FlowRules {
    var rules = self
    for name in to { rules.presents[from, default: []].append(name) }
    return rules
  }

  /// Whether `from` may push `to`.
  @inlinable
  public func allowsPush(from: Route, to: Route) -> Bool {
    allowsPush(fromName: from.name, toName: to.name)
  }

  /// Whether `from` may present `to`.
  @inlinable
  public func allowsPresent(from: Route, to: Route) -> Bool {
    allowsPresent(fromName: from.name, toName: to.name)
  }

  /// Whether the route called `from` may push the route called `to`.
  @inlinable
  public func allowsPush(fromName from: String, toName to: String) -> Bool {
    allowsEverything || pushes[from]?.contains(to) == true
  }

  /// Whether the route called `from` may present the route called `to`.
  @inlinable
  public func allowsPresent(fromName from: String, toName to: String) -> Bool {
    allowsEverything || presents[from]?.contains(to) == true
  }

  /// Whether `route` may start the stack of the tab called `tab`.
  ///
  /// A declared tab accepts only its declared root; otherwise any declared root will do.
  ///
  /// - Parameters:
  ///   - route: The first route of a stack.
  ///   - tab: The tab whose stack it starts.
  /// - Returns: `true` when the rules allow it.
  @inlinable
  public func allowsRoot(_ route: Route, ofTab tab: String) -> Bool {
    allowsRoot(named: route.name, ofTab: tab)
  }

  /// Whether the route called `name` may start the stack of the tab called `tab`, or of
  /// any tab when `tab` is `nil`.
  @inlinable
  public func allowsRoot(named name: String, ofTab tab: String?) -> Bool {
    if allowsEverything { return true }
    if let tab, let root = tabs[tab] { return name == root }
    return roots.contains(name)
  }

  /// Whether the rules allow a tab called `name` (any tab, if they declare none).
  @inlinable
  public func allowsTab(_ name: String) -> Bool {
    allowsEverything || tabs.isEmpty || tabs[name] != nil
  }

  /// The name of the tab whose declared root is called `rootName`, if there is one.
  public func tab(withRoot rootName: String) -> String? {
    tabs.first { $0.value == rootName }?.key
  }

  /// Every route name the rules mention, in declaration order.
  public var routeNames: OrderedSet<String> {
    var names = roots
    for (from, targets) in pushes {
      names.append(from)
      names.append(contentsOf: targets)
    }
    for (from, targets) in presents {
      names.append(from)
      names.append(contentsOf: targets)
    }
    return names
  }
}
