import RetraceCoordinator
import RetraceExamples
import Testing

@Suite("Screen states")
struct ScreenStatesTests {
  let reducer = PostsReducer(loader: { Post.samples })

  func send(_ actions: PostsAction..., to state: inout PostsState) {
    for action in actions { _ = reducer.reduce(into: &state, action: action) }
  }

  @Test func aScreenIsCreatedWhenItsRouteIsPushedAndDroppedWhenPopped() {
    var state = PostsState()
    #expect(state.screens.count == 1)
    #expect(state.postList == .loading)
    send(.navigation(action: .push(route: .postDetail(id: 2))), to: &state)
    #expect(state.detail(2) == PostDetailState(postID: 2))
    send(.toggleLike(postID: 2), to: &state)
    #expect(state.detail(2)?.isLiked == true)
    send(.navigation(action: .pop), to: &state)
    #expect(state.detail(2) == nil)
    #expect(state.screens.count == 1)
    // Pushed again, it starts fresh.
    send(.navigation(action: .push(route: .postDetail(id: 2))), to: &state)
    #expect(state.detail(2)?.isLiked == false)
  }

  @Test func screensWithoutStateGetNone() {
    var state = PostsState()
    send(
      .navigation(action: .selectTab(tab: "settings")), .navigation(action: .push(route: .about)),
      to: &state)
    #expect(state.screens[.settings] == nil)
    #expect(state.screens[.about] == nil)
    #expect(state.screens.isInStep(with: state.navigation, make: PostsScreen.init(route:)))
  }

  @Test func anActionForAScreenThatIsNotOnAStackIsReportedNotApplied() {
    var state = PostsState()
    send(.navigation(action: .push(route: .postDetail(id: 1))), to: &state)
    let before = state.screens
    send(.toggleLike(postID: 2), to: &state)
    #expect(state.screens == before)
    #expect(
      state.navigation.lastRefusal
        == NavigationRefusal(
          action: "toggleLike", reason: .screenNotOnStack, from: .postDetail(id: 1),
          to: .postDetail(id: 2)))
    #expect(state.navigation.refusalCount == 1)
    #expect(
      state.navigation.lastRefusal?.message
        == "toggleLike from postDetail to postDetail refused: no postDetail screen is on a stack")
    send(.toggleLike(postID: 1), to: &state)
    #expect(state.navigation.lastRefusal == nil)
  }

  @Test func aDeepLinkRebuildsTheScreens() {
    var state = PostsState()
    send(.navigation(action: .push(route: .postDetail(id: 1))), to: &state)
    send(.toggleLike(postID: 1), to: &state)
    let path = RoutePath<PostsRoute>(tab: "feed", stack: [.postList, .postDetail(id: 3)])
    send(.navigation(action: .setPath(path: path)), to: &state)
    #expect(state.detail(1) == nil)
    #expect(state.detail(3) == PostDetailState(postID: 3))
    #expect(Array(state.screens.screens.keys) == [.postList, .postDetail(id: 3)])
  }

  @Test func aRouteOnTwoStacksSharesItsScreenUntilItsLastOccurrenceLeaves() {
    var nav = NavigationState(root: PostsRoute.postList)
    let all = FlowRules<PostsRoute>.allowingEverything
    var screens = ScreenStates<PostsRoute, PostsScreen>(for: nav, make: PostsScreen.init(route:))
    nav.apply(.push(route: .postDetail(id: 1)), rules: all)
    nav.apply(.present(route: .postDetail(id: 1), style: .sheet), rules: all)
    screens.sync(with: nav, make: PostsScreen.init(route:))
    #expect(screens.count == 2)
    nav.apply(.dismiss, rules: all)
    screens.sync(with: nav, make: PostsScreen.init(route:))
    #expect(screens[.postDetail(id: 1)] != nil)
    nav.apply(.pop, rules: all)
    screens.sync(with: nav, make: PostsScreen.init(route:))
    #expect(screens[.postDetail(id: 1)] == nil)
  }
}
