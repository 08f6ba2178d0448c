import PropertyBased
import RetraceCoordinator
import RetraceExamples
import Testing

@Suite("Every route on every stack")
struct NavigationRoutesTests {
  @Test func routesListTheTabsThenThePresentations() {
    var nav = PostsFlow.initialNavigation
    nav.apply(.push(route: .postDetail(id: 1)), rules: PostsFlow.rules)
    nav.apply(.present(route: .share, style: .sheet), rules: PostsFlow.rules)
    let expected: [PostsRoute] = [.postList, .postDetail(id: 1), .settings, .share]
    #expect(nav.allRoutes == expected)
    #expect(Array(nav.routes) == expected)
    #expect(nav.routes.count == 4)
    #expect(nav.stack(ofTab: "settings") == [.settings])
    #expect(nav.stack(ofTab: "nope") == nil)

    let single = NavigationState(root: PostsRoute.postList)
    #expect(single.allRoutes == [.postList])
    #expect(Array(single.routes) == [.postList])
  }

  /// `routes` and `allRoutes` agree on any state that navigation reaches.
  @Test func routesAndAllRoutesAgree() async {
    await propertyCheck(count: 100, input: Gen.int(in: 0...100_000).array(of: 1...60)) { seeds in
      var nav = PostsFlow.initialNavigation
      for seed in seeds {
        nav.apply(postsNavigationAction(seed), rules: .allowingEverything)
        #expect(Array(nav.routes) == nav.allRoutes)
        #expect(nav.routes.count == nav.allRoutes.count)
      }
    }
  }
}
