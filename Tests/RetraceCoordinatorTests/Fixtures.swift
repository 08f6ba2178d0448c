import RetraceCoordinator
import RetraceExamples

extension BankingRoute {
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
