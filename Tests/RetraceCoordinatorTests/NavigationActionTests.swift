import Foundation
import RetraceCoordinator
import RetraceExamples
import Testing

@Suite("Navigation actions")
struct NavigationActionTests {
  let rules = PostsFlow.rules
  var nav = PostsFlow.initialNavigation

  @Test func pushAddsToTheSelectedTabsStack() {
    var nav = nav
    let refusal = nav.apply(.push(route: .postDetail(id: 42)), rules: rules)
    #expect(refusal == nil)
    #expect(nav.currentStack == [.postList, .postDetail(id: 42)])
    #expect(nav.visibleRoute == .postDetail(id: 42))
    #expect(nav.stack(ofTab: "settings") == [.settings])
    #expect(nav.lastRefusal == nil)
  }

  @Test func popRemovesTheTopRoute() {
    var nav = nav
    nav.apply(.push(route: .postDetail(id: 1)), rules: rules)
    #expect(nav.apply(.pop, rules: rules) == nil)
    #expect(nav.currentStack == [.postList])
  }

  @Test func popAtTheRootIsRefused() {
    var nav = nav
    let before = nav
    let refusal = nav.apply(.pop, rules: rules)
    #expect(refusal == NavigationRefusal(action: "pop", reason: .cannotPopRoot, from: .postList))
    #expect(nav.tabs == before.tabs)
    #expect(nav.lastRefusal == refusal)
    #expect(nav.refusalCount == 1)
  }

  @Test func popToARouteOnTheStack() {
    var nav = NavigationState(root: PostsRoute.postList)
    for id in 1...4 { nav.apply(.push(route: .postDetail(id: id)), rules: .allowingEverything) }
    #expect(nav.apply(.popTo(route: .postDetail(id: 2)), rules: .allowingEverything) == nil)
    #expect(nav.currentStack == [.postList, .postDetail(id: 1), .postDetail(id: 2)])
  }

  @Test func popToARouteThatIsNotOnTheStackIsRefused() {
    var nav = nav
    nav.apply(.push(route: .postDetail(id: 1)), rules: rules)
    let refusal = nav.apply(.popTo(route: .postDetail(id: 9)), rules: rules)
    #expect(refusal?.reason == .notOnStack)
    #expect(refusal?.to == .postDetail(id: 9))
    #expect(nav.currentStack == [.postList, .postDetail(id: 1)])
  }

  @Test func popToRootKeepsOnlyTheRoot() {
    var nav = NavigationState(root: PostsRoute.postList)
    for id in 1...3 { nav.apply(.push(route: .postDetail(id: id)), rules: .allowingEverything) }
    #expect(nav.apply(.popToRoot, rules: .allowingEverything) == nil)
    #expect(nav.currentStack == [.postList])
    // At the root already, it is applied and changes nothing.
    #expect(nav.apply(.popToRoot, rules: .allowingEverything) == nil)
  }

  @Test func presentAddsALayerThatPushesAndPopsActOn() {
    var nav = NavigationState(root: PostsRoute.postList)
    let all = FlowRules<PostsRoute>.allowingEverything
    nav.apply(.push(route: .postDetail(id: 1)), rules: all)
    nav.apply(.present(route: .share, style: .fullScreen), rules: all)
    #expect(nav.presentations == [Presentation(.share, style: .fullScreen)])
    nav.apply(.push(route: .about), rules: all)
    #expect(nav.presentations[0].stack == [.share, .about])
    #expect(nav.currentStack == [.share, .about])
    #expect(nav.stack(ofTab: "main") == [.postList, .postDetail(id: 1)])
    // Nested presentation.
    nav.apply(.present(route: .settings, style: .sheet), rules: all)
    #expect(nav.presentations.count == 2)
    #expect(nav.visibleRoute == .settings)
    // The presented route is the root of its layer: pop is refused there.
    #expect(nav.apply(.pop, rules: all)?.reason == .cannotPopRoot)
    nav.apply(.dismiss, rules: all)
    nav.apply(.pop, rules: all)
    #expect(nav.currentStack == [.share])
  }

  @Test func dismissRemovesTheTopmostPresentation() {
    var nav = nav
    nav.apply(.push(route: .postDetail(id: 1)), rules: rules)
    nav.apply(.present(route: .share, style: .sheet), rules: rules)
    #expect(nav.apply(.dismiss, rules: rules) == nil)
    #expect(nav.presentations.isEmpty)
    #expect(nav.visibleRoute == .postDetail(id: 1))
  }

  @Test func dismissWithNothingPresentedIsRefused() {
    var nav = nav
    #expect(nav.apply(.dismiss, rules: rules)?.reason == .nothingPresented)
  }

  @Test func selectTabKeepsEachTabsStack() {
    var nav = nav
    nav.apply(.push(route: .postDetail(id: 7)), rules: rules)
    #expect(nav.apply(.selectTab(tab: "settings"), rules: rules) == nil)
    #expect(nav.visibleRoute == .settings)
    nav.apply(.push(route: .about), rules: rules)
    nav.apply(.selectTab(tab: "feed"), rules: rules)
    #expect(nav.visibleRoute == .postDetail(id: 7))
    #expect(nav.stack(ofTab: "settings") == [.settings, .about])
  }

  @Test func selectingAnUnknownTabIsRefused() {
    var nav = nav
    let refusal = nav.apply(.selectTab(tab: "profile"), rules: rules)
    #expect(refusal?.reason == .unknownTab)
    #expect(refusal?.tab == "profile")
    #expect(nav.selectedTab == "feed")
  }

  @Test func selectingATabUnderAPresentationIsRefused() {
    var nav = nav
    nav.apply(.push(route: .postDetail(id: 1)), rules: rules)
    nav.apply(.present(route: .share, style: .sheet), rules: rules)
    #expect(nav.apply(.selectTab(tab: "settings"), rules: rules)?.reason == .presentationActive)
    #expect(nav.selectedTab == "feed")
  }

  @Test func setPathReplacesTheTabsStackAndPresentations() {
    var nav = nav
    nav.apply(.selectTab(tab: "settings"), rules: rules)
    let path = RoutePath<PostsRoute>(
      tab: "feed", stack: [.postList, .postDetail(id: 42)], presentations: [Presentation(.share)])
    #expect(nav.apply(.setPath(path: path), rules: rules) == nil)
    #expect(nav.selectedTab == "feed")
    #expect(nav.path == path)
    #expect(nav.visibleRoute == .share)
  }

  @Test func setPathWithAForbiddenStepIsRefusedWhole() {
    var nav = nav
    let before = nav
    let path = RoutePath<PostsRoute>(tab: "feed", stack: [.postList, .postDetail(id: 1), .about])
    let refusal = nav.apply(.setPath(path: path), rules: rules)
    #expect(
      refusal
        == NavigationRefusal(
          action: "setPath", reason: .pushNotAllowed, from: .postDetail(id: 1), to: .about,
          tab: "feed"))
    #expect(nav.path == before.path)
  }

  @Test func setPathMustStartAtTheTabsRoot() {
    var nav = nav
    let refusal = nav.apply(
      .setPath(path: RoutePath(tab: "feed", stack: [.settings])), rules: rules)
    #expect(refusal?.reason == .notARoot)
    #expect(refusal?.message == "setPath to settings refused: settings is not the root of tab feed")
    #expect(
      nav.apply(.setPath(path: RoutePath(tab: "feed", stack: [])), rules: rules)?.reason
        == .emptyStack)
    #expect(
      nav.apply(.setPath(path: RoutePath(tab: "nope", stack: [.postList])), rules: rules)?.reason
        == .unknownTab)
  }

  @Test func anAppliedActionClearsTheLastRefusal() {
    var nav = nav
    nav.apply(.pop, rules: rules)
    nav.apply(.pop, rules: rules)
    #expect(nav.refusalCount == 2)
    #expect(nav.lastRefusal != nil)
    nav.apply(.push(route: .postDetail(id: 1)), rules: rules)
    #expect(nav.lastRefusal == nil)
    #expect(nav.refusalCount == 2)
  }

  @Test func refusalMessagesNameTheActionTheRoutesAndTheRule() {
    var nav = nav
    let refusal = nav.apply(.push(route: .settings), rules: rules)
    #expect(
      refusal?.message
        == "push from postList to settings refused: no rule lets postList push settings")
    #expect(refusal.map(String.init(describing:)) == refusal?.message)
  }

  @Test func actionsEncodeWithLabelledValues() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    func json(_ action: NavigationAction<PostsRoute>) throws -> String {
      String(decoding: try encoder.encode(action), as: UTF8.self)
    }
    #expect(
      try json(.push(route: .postDetail(id: 42))) == #"{"push":{"route":{"postDetail":{"id":42}}}}"#
    )
    #expect(try json(.pop) == #"{"pop":{}}"#)
    #expect(
      try json(.present(route: .share, style: .sheet))
        == #"{"present":{"route":{"share":{}},"style":"sheet"}}"#)
    #expect(try json(.selectTab(tab: "feed")) == #"{"selectTab":{"tab":"feed"}}"#)
    for seed in 0..<200 {
      let action = postsNavigationAction(seed)
      #expect(
        try JSONDecoder().decode(NavigationAction<PostsRoute>.self, from: encoder.encode(action))
          == action)
    }
  }

  @Test func caseNamesMatchTheEncoding() throws {
    for seed in 0..<50 {
      let action = postsNavigationAction(seed)
      let object =
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(action)) as? [String: Any]
      #expect(object?.keys.first == action.name)
      #expect(NavigationAction<PostsRoute>.caseNames.contains(action.name))
    }
  }
}
