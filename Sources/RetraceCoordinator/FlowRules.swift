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
/// A rule that knows only names cannot tell one note from another. A rule with a condition
/// sees the route values, so an app can allow editing only the note that is shown:
///
/// ```swift
/// let rules = FlowRules<NotesRoute>()
///   .root("list")
///   .allowPush(from: "list", to: "detail")
///   .allowPresent(from: "detail", to: "edit") { from, to in
///     from.noteID == to.noteID   // edit(n2) from detail(n1) is refused
///   }
/// ```
///
/// Lookups are hashed (a dictionary of sets), so checking a rule costs two hash lookups,
/// and one more for a transition between routes whose names a condition covers.
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

  /// Decides whether a transition between two routes whose names a rule allows is allowed
  /// for these values: it sees the route the transition starts from and the one it leads to.
  public typealias Condition = @Sendable (_ from: Route, _ to: Route) -> Bool

  // The conditions of the pushes and presentations that are allowed only when one of them
  // holds, by pair of names. A pair that is in `pushes` (`presents`) but not here is allowed
  // whatever the values.
  @usableFromInline var pushConditions: [NamePair: [Condition]] = [:]
  @usableFromInline var presentConditions: [NamePair: [Condition]] = [:]

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
    for name in to {
      rules.pushes[from, default: []].append(name)
      rules.pushConditions[NamePair(from, name)] = nil
    }
    return rules
  }

  /// Returns rules in which the route called `from` may push the route called `to` when
  /// `condition` holds for the two route values.
  ///
  /// ```swift
  /// .allowPush(from: "account", to: "transaction") { from, to in
  ///   from.iban == to.iban
  /// }
  /// ```
  ///
  /// Several conditions for one pair of names allow the push when any of them holds; a rule
  /// without a condition for the same pair (``allowPush(from:to:)``) allows it always. A push
  /// that a condition refuses is reported as ``NavigationRefusal/Reason/pushNotAllowed``,
  /// and deep links (``RouteTable/path(for:rules:)``) and ``NavigationState/validate(rules:)``
  /// check it too. Conditions hold even in ``allowingEverything``.
  ///
  /// - Parameters:
  ///   - from: The name of the pushing route.
  ///   - to: The name of the route it may push.
  ///   - condition: Whether the route `from` may push the route `to`. It must be a pure
  ///     function of the two routes, as the reducer that calls it is.
  /// - Returns: The extended rules.
  public func allowPush(from: String, to: String, when condition: @escaping Condition)
    -> FlowRules
  {
    var rules = self
    let pair = NamePair(from, to)
    let isUnconditional = pushes[from]?.contains(to) == true && pushConditions[pair] == nil
    rules.pushes[from, default: []].append(to)
    if !isUnconditional { rules.pushConditions[pair, default: []].append(condition) }
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
    for name in to {
      rules.presents[from, default: []].append(name)
      rules.presentConditions[NamePair(from, name)] = nil
    }
    return rules
  }

  /// Returns rules in which the route called `from` may present the route called `to` when
  /// `condition` holds for the two route values.
  ///
  /// ```swift
  /// .allowPresent(from: "detail", to: "edit") { from, to in
  ///   from.noteID == to.noteID
  /// }
  /// ```
  ///
  /// Several conditions for one pair of names allow the presentation when any of them
  /// holds; a rule without a condition for the same pair (``allowPresent(from:to:)``) allows
  /// it always. A presentation that a condition refuses is reported as
  /// ``NavigationRefusal/Reason/presentNotAllowed``, and deep links
  /// (``RouteTable/path(for:rules:)``) and ``NavigationState/validate(rules:)`` check it too.
  /// Conditions hold even in ``allowingEverything``.
  ///
  /// - Parameters:
  ///   - from: The name of the presenting route.
  ///   - to: The name of the route it may present.
  ///   - condition: Whether the route `from` may present the route `to`. It must be a pure
  ///     function of the two routes, as the reducer that calls it is.
  /// - Returns: The extended rules.
  public func allowPresent(from: String, to: String, when condition: @escaping Condition)
    -> FlowRules
  {
    var rules = self
    let pair = NamePair(from, to)
    let isUnconditional = presents[from]?.contains(to) == true && presentConditions[pair] == nil
    rules.presents[from, default: []].append(to)
    if !isUnconditional { rules.presentConditions[pair, default: []].append(condition) }
    return rules
  }

  /// Whether `from` may push `to`: a rule allows their names, and, where the rule has
  /// conditions, one of them holds for these values.
  @inlinable
  public func allowsPush(from: Route, to: Route) -> Bool {
    let (fromName, toName) = (from.name, to.name)
    guard allowsPush(fromName: fromName, toName: toName) else { return false }
    return pushConditions.isEmpty
      || Self.holds(pushConditions[NamePair(fromName, toName)], from: from, to: to)
  }

  /// Whether `from` may present `to`: a rule allows their names, and, where the rule has
  /// conditions, one of them holds for these values.
  @inlinable
  public func allowsPresent(from: Route, to: Route) -> Bool {
    let (fromName, toName) = (from.name, to.name)
    guard allowsPresent(fromName: fromName, toName: toName) else { return false }
    return presentConditions.isEmpty
      || Self.holds(presentConditions[NamePair(fromName, toName)], from: from, to: to)
  }

  /// Whether the route called `from` may push the route called `to`, for some values of
  /// the two routes (a rule's condition may still refuse particular ones).
  @inlinable
  public func allowsPush(fromName from: String, toName to: String) -> Bool {
    allowsEverything || pushes[from]?.contains(to) == true
  }

  /// Whether the route called `from` may present the route called `to`, for some values of
  /// the two routes (a rule's condition may still refuse particular ones).
  @inlinable
  public func allowsPresent(fromName from: String, toName to: String) -> Bool {
    allowsEverything || presents[from]?.contains(to) == true
  }

  /// Whether a push from the route called `from` to the route called `to` is allowed only
  /// when a condition holds (``allowPush(from:to:when:)``).
  ///
  /// - Parameters:
  ///   - from: The name of the pushing route.
  ///   - to: The name of the pushed route.
  /// - Returns: `true` when a condition decides it.
  public func hasCondition(pushFrom from: String, to: String) -> Bool {
    pushConditions[NamePair(from, to)] != nil
  }

  /// Whether a presentation from the route called `from` of the route called `to` is
  /// allowed only when a condition holds (``allowPresent(from:to:when:)``).
  ///
  /// - Parameters:
  ///   - from: The name of the presenting route.
  ///   - to: The name of the presented route.
  /// - Returns: `true` when a condition decides it.
  public func hasCondition(presentFrom from: String, to: String) -> Bool {
    presentConditions[NamePair(from, to)] != nil
  }

  /// Whether `conditions` is `nil` (the pair is allowed whatever the values) or one holds.
  @inlinable
  static func holds(_ conditions: [Condition]?, from: Route, to: Route) -> Bool {
    guard let conditions else { return true }
    for condition in conditions where condition(from, to) { return true }
    return false
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
  @inlinable
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

/// A pair of route names: the key of a rule's conditions.
@usableFromInline
struct NamePair: Hashable, Sendable {
  @usableFromInline var from: String
  @usableFromInline var to: String

  @inlinable
  init(_ from: String, _ to: String) {
    self.from = from
    self.to = to
  }
}
