import RetraceCoordinator
import RetraceExamples
import Testing

@Suite("Flow rules")
struct FlowRulesTests {
  /// The navigation without the refusal bookkeeping, to tell states apart.
  struct Shape<Route: Routable>: Hashable {
    var tabs: [NavigationTab<Route>]
    var selectedTab: String
    var presentations: [Presentation<Route>]

    init(_ nav: NavigationState<Route>) {
      tabs = nav.tabs
      selectedTab = nav.selectedTab
      presentations = nav.presentations
    }
  }

  /// Every state reachable from `initial` within `depth` applied actions drawn from `routes`
  /// and `tabs`.
  static func reachable<Route: Routable>(
    from initial: NavigationState<Route>,
    rules: FlowRules<Route>,
    routes: [Route],
    tabs: [String],
    depth: Int
  ) -> [NavigationState<Route>] {
    var actions: [NavigationAction<Route>] = [.pop, .dismiss, .popToRoot]
    actions += routes.flatMap { [.push(route: $0), .present(route: $0, style: .sheet)] }
    actions += tabs.map { .selectTab(tab: $0) }
    var seen: Set<Shape<Route>> = [Shape(initial)]
    var frontier = [initial]
    var all = [initial]
    for _ in 0..<depth {
      var next: [NavigationState<Route>] = []
      for state in frontier {
        for action in actions {
          var copy = state
          guard copy.apply(action, rules: rules) == nil, seen.insert(Shape(copy)).inserted else {
            continue
          }
          next.append(copy)
          all.append(copy)
        }
      }
      frontier = next
    }
    return all
  }

  /// Checks every push and presentation of every route from every reachable state: those
  /// the app's declared rules allow are applied, all others are refused, reported, and leave
  /// the navigation unchanged.
  static func checkEveryTransition<Route: Routable>(
    initial: NavigationState<Route>,
    rules: FlowRules<Route>,
    routes: [Route],
    tabs: [String],
    allowedPushes: Set<[String]>,
    allowedPresents: Set<[String]>
  ) -> Int {
    var refusals = 0
    for state in reachable(from: initial, rules: rules, routes: routes, tabs: tabs, depth: 5) {
      let from = state.visibleRoute
      for target in routes {
        for isPush in [true, false] {
          var after = state
          let action: NavigationAction<Route> =
            isPush ? .push(route: target) : .present(route: target, style: .sheet)
          let refusal = after.apply(action, rules: rules)
          let allowed = (isPush ? allowedPushes : allowedPresents).contains([
            from.name, target.name,
          ])
          if allowed {
            #expect(refusal == nil, "\(action) from \(from) should be allowed")
            #expect(after.visibleRoute == target)
          } else {
            refusals += 1
            let expected = NavigationRefusal(
              action: isPush ? "push" : "present",
              reason: isPush ? .pushNotAllowed : .presentNotAllowed,
              from: from, to: target)
            #expect(refusal == expected)
            #expect(after.lastRefusal == expected)
            #expect(after.refusalCount == state.refusalCount + 1)
            #expect(Shape(after) == Shape(state))
          }
        }
      }
    }
    return refusals
  }

  @Test func everyForbiddenTransitionOfThePostsExampleIsRefusedAndReported() {
    let refusals = Self.checkEveryTransition(
      initial: PostsFlow.initialNavigation,
      rules: PostsFlow.rules,
      routes: PostsRoute.samples,
      tabs: ["feed", "settings"],
      allowedPushes: [["postList", "postDetail"], ["settings", "about"]],
      allowedPresents: [["postDetail", "share"]]
    )
    #expect(refusals > 50)
  }

  @Test func everyForbiddenTransitionOfTheBankingNavigationIsRefusedAndReported() {
    let refusals = Self.checkEveryTransition(
      initial: NavigationState(root: BankingRoute.accounts),
      rules: BankingRoute.rules,
      routes: BankingRoute.samples,
      tabs: [],
      allowedPushes: [["accounts", "account"]],
      allowedPresents: [["accounts", "newAccount"], ["account", "newTransaction"]]
    )
    #expect(refusals > 20)
  }

  @Test func aTransactionSheetOnlyFromAnAccountsScreen() {
    let iban = "DE89 3704 0044 0532 0130 00"
    var nav = NavigationState(root: BankingRoute.accounts)
    let refused = nav.apply(
      .present(route: .newTransaction(iban: iban), style: .sheet), rules: BankingRoute.rules)
    #expect(refused?.reason == .presentNotAllowed)
    #expect(refused?.from == .accounts)
    nav.apply(.push(route: .account(iban: iban)), rules: BankingRoute.rules)
    #expect(
      nav.apply(
        .present(route: .newTransaction(iban: iban), style: .sheet), rules: BankingRoute.rules)
        == nil
    )
    #expect(nav.visibleRoute == .newTransaction(iban: iban))
  }

  @Test func withoutRulesEverythingIsAllowed() {
    var nav = NavigationState(root: PostsRoute.about)
    let all = FlowRules<PostsRoute>.allowingEverything
    for route in PostsRoute.samples {
      #expect(nav.apply(.push(route: route), rules: all) == nil)
      #expect(nav.apply(.present(route: route, style: .sheet), rules: all) == nil)
    }
    #expect(nav.apply(.setPath(path: RoutePath(stack: [.share, .settings])), rules: all) == nil)
    #expect(nav.isValid(under: all))
    // Structural refusals remain: there is no root to pop, no such tab.
    var fresh = NavigationState(root: PostsRoute.about)
    #expect(fresh.apply(.pop, rules: all)?.reason == .cannotPopRoot)
    #expect(fresh.apply(.selectTab(tab: "other"), rules: all)?.reason == .unknownTab)
    #expect(NavigationReducer<PostsRoute>().rules.allowsEverything)
  }

  @Test func declaredRulesAreAClosedWorld() {
    let rules = FlowRules<PostsRoute>()
    #expect(!rules.allowsPush(from: .postList, to: .postDetail(id: 1)))
    #expect(!rules.allowsRoot(.postList, ofTab: "main"))
    #expect(rules.allowsTab("anything"))  // no tabs declared: the state's tabs decide
    let tabbed = rules.tab("feed", root: "postList")
    #expect(!tabbed.allowsTab("settings"))
    #expect(tabbed.allowsRoot(.postList, ofTab: "feed"))
    #expect(!tabbed.allowsRoot(.settings, ofTab: "feed"))
    #expect(tabbed.tab(withRoot: "postList") == "feed")
  }

  @Test func validationNamesTheBrokenRule() throws {
    let nav = NavigationState(
      tabs: [
        NavigationTab(name: "feed", stack: [PostsRoute.postList, .about]),
        NavigationTab(name: "settings", stack: [.settings]),
      ], selectedTab: "feed")
    #expect(!nav.isValid(under: PostsFlow.rules))
    let error = try #require(throws: CoordinatorError.self) {
      try nav.validate(rules: PostsFlow.rules)
    }
    #expect(error.code == .invalidState)
    #expect(error.refusalReason == "pushNotAllowed")
    #expect(
      error.message
        == "in tab feed: validate from postList to about refused: no rule lets postList push about")
    #expect(PostsFlow.initialNavigation.isValid(under: PostsFlow.rules))
  }
}
