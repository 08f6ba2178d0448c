import RetraceCoordinator
import RetraceExamples

/// The banking app's navigation as the issue describes it, to show that the module fits it:
/// an accounts list at the root, an account's transactions pushed, sheets for a new account
/// and a new transaction, and a transaction sheet only from an account's screen.
enum BankingRoute: Routable {
  case accounts
  case account(iban: String)
  case newAccount
  case newTransaction(iban: String)

  var name: String {
    switch self {
    case .accounts: "accounts"
    case .account: "account"
    case .newAccount: "newAccount"
    case .newTransaction: "newTransaction"
    }
  }

  static let rules = FlowRules<BankingRoute>()
    .root("accounts")
    .allowPush(from: "accounts", to: "account")
    .allowPresent(from: "accounts", to: "newAccount")
    .allowPresent(from: "account", to: "newTransaction")

  static let links = RouteTable<BankingRoute>(scheme: "bank")
    .route(.accounts, pattern: "accounts")
    .route(
      "newAccount", pattern: "new", presentedAs: .sheet,
      build: { _ in .newAccount },
      parameters: { $0 == .newAccount ? [] : nil }
    )
    .route(
      "account", pattern: ":iban",
      build: { .account(iban: $0[0]) },
      parameters: { if case .account(let iban) = $0 { [iban] } else { nil } }
    )
    .route(
      "newTransaction", pattern: "transactions/new/:iban", presentedAs: .sheet,
      build: { .newTransaction(iban: $0[0]) },
      parameters: { if case .newTransaction(let iban) = $0 { [iban] } else { nil } }
    )

  /// One value of each case.
  static let samples: [BankingRoute] = [
    .accounts, .account(iban: "DE89 3704 0044 0532 0130 00"), .newAccount,
    .newTransaction(iban: "DE89 3704 0044 0532 0130 00"),
  ]
}

extension PostsRoute {
  /// One or two values of each case.
  static let samples: [PostsRoute] = [
    .postList, .postDetail(id: 1), .postDetail(id: 2), .share, .settings, .about,
  ]
}

/// A navigation action for a number, so that property tests can shrink plain integers.
///
/// The pool contains allowed and forbidden moves, known and unknown tabs, and paths both
/// valid and invalid.
func postsNavigationAction(_ seed: Int) -> NavigationAction<PostsRoute> {
  let routes = PostsRoute.samples
  let route = routes[(seed / 11) % routes.count]
  let tabs = ["feed", "settings", "nope"]
  switch seed % 11 {
  case 0, 1: return .push(route: route)
  case 2: return .pop
  case 3: return .popTo(route: route)
  case 4: return .popToRoot
  case 5: return .present(route: route, style: (seed / 11) % 2 == 0 ? .sheet : .fullScreen)
  case 6: return .dismiss
  case 7: return .selectTab(tab: tabs[(seed / 11) % tabs.count])
  case 8:
    let other = routes[(seed / 77) % routes.count]
    return .setPath(path: RoutePath(tab: tabs[(seed / 7) % 2], stack: [route, other]))
  case 9:
    return .setPath(
      path: RoutePath(
        tab: "feed", stack: [.postList, .postDetail(id: seed % 5)],
        presentations: (seed / 11) % 2 == 0 ? [Presentation(.share)] : []))
  default: return .push(route: .postDetail(id: seed % 5))
  }
}
