import PropertyBased
import Retrace
import RetraceCoordinator
import RetraceExamples
import Testing

@Suite("Navigation validity")
struct NavigationPropertyTests {
  /// Random navigation under the posts rules: every stack starts at its tab's root, every
  /// step on every stack is allowed, and a refused action changes nothing but the refusal.
  @Test func randomActionsKeepTheNavigationValid() async {
    await propertyCheck(count: 200, input: Gen.int(in: 0...100_000).array(of: 1...80)) { seeds in
      var nav = PostsFlow.initialNavigation
      for seed in seeds {
        let before = nav
        let action = postsNavigationAction(seed)
        let refusal = nav.apply(action, rules: PostsFlow.rules)
        #expect(nav.isValid(under: PostsFlow.rules), "after \(action)")
        if refusal != nil {
          #expect(nav.path == before.path && nav.tabs == before.tabs)
          #expect(nav.refusalCount == before.refusalCount + 1)
        } else {
          #expect(nav.lastRefusal == nil && nav.refusalCount == before.refusalCount)
        }
      }
    }
  }

  /// Without rules, random navigation keeps the structure: tabs, non-empty stacks.
  @Test func randomActionsWithoutRulesKeepTheStructure() async {
    await propertyCheck(count: 200, input: Gen.int(in: 0...100_000).array(of: 1...80)) { seeds in
      var nav = PostsFlow.initialNavigation
      for seed in seeds {
        nav.apply(postsNavigationAction(seed), rules: .allowingEverything)
        #expect(nav.isValid(under: .allowingEverything))
        #expect(
          nav.tabs.allSatisfy { !$0.stack.isEmpty }
            && nav.presentations.allSatisfy { !$0.stack.isEmpty })
      }
    }
  }

  /// Random posts actions through the posts reducer: every screen state belongs to a route
  /// on a stack, and both invariants of the domain hold.
  @Test func randomPostsActionsKeepScreensInStep() async {
    let reducer = PostsReducer(loader: { [] })
    await propertyCheck(count: 200, input: Gen.int(in: 0...100_000).array(of: 1...80)) { seeds in
      var state = PostsState()
      for seed in seeds {
        let action: PostsAction
        switch seed % 7 {
        case 0: action = .toggleLike(postID: seed % 5)
        case 1:
          action =
            seed % 2 == 0 ? .postsLoaded(posts: Post.samples) : .loadFailed(message: "offline")
        default: action = .navigation(action: postsNavigationAction(seed / 7))
        }
        _ = reducer.reduce(into: &state, action: action)
        for invariant in postsInvariants {
          #expect(invariant.holds(state), "\(invariant.name) after \(action)")
        }
        for route in state.screens.screens.keys {
          #expect(state.navigation.contains(route))
        }
      }
    }
  }

  @Test func randomBankingNavigationStaysValid() async {
    await propertyCheck(count: 100, input: Gen.int(in: 0...100_000).array(of: 1...60)) { seeds in
      var nav = NavigationState(root: BankingRoute.accounts)
      for seed in seeds {
        let route = BankingRoute.samples[seed % BankingRoute.samples.count]
        let action: NavigationAction<BankingRoute> =
          switch (seed / 4) % 5 {
          case 0: .push(route: route)
          case 1: .present(route: route, style: .sheet)
          case 2: .pop
          case 3: .dismiss
          default: .setPath(path: RoutePath(stack: [.accounts, route]))
          }
        nav.apply(action, rules: BankingRoute.rules)
        #expect(nav.isValid(under: BankingRoute.rules))
      }
    }
  }
}
