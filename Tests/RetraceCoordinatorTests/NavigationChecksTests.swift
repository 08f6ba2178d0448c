import Retrace
import RetraceCheck
import RetraceCoordinator
import RetraceExamples
import Testing

/// The posts reducer with a back button that does nothing: `pop` is dropped.
let postsReducerRefusingPop = Reduce<PostsState, PostsAction> { state, action in
  if case .navigation(.pop) = action { return .none }
  return PostsReducer(loader: { Post.samples }).reduce(into: &state, action: action)
}

/// The posts reducer with a sheet that cannot be closed: `dismiss` is dropped.
let postsReducerRefusingDismiss = Reduce<PostsState, PostsAction> { state, action in
  if case .navigation(.dismiss) = action { return .none }
  return PostsReducer(loader: { Post.samples }).reduce(into: &state, action: action)
}

func returnsToRoot(_ reducer: some Reducer<PostsState, PostsAction> & Sendable)
  -> Invariant<PostsState>
{
  NavigationChecks.returnsToRoot(
    reducer: reducer, navigation: { $0.navigation }, action: { .navigation(action: $0) })
}

/// The posts state after `actions`, reduced by the posts domain.
func postsState(after actions: [PostsAction]) -> PostsState {
  var state = postsDomain.initialState
  for action in actions { _ = postsDomain.reduce(into: &state, action: action) }
  return state
}

@Suite struct NavigationChecksTests {
  @Test func everyPostsScreenIsReachableAlongAShortestPath() async throws {
    let checker = ModelChecker(domain: postsDomain)
    // The list shows at launch; settings is a tab away; a post needs the list loaded first;
    // the share sheet is one more step; about is pushed from settings.
    let expected = ["postList": 0, "settings": 1, "postDetail": 2, "about": 2, "share": 3]
    #expect(Set(expected.keys) == Set(postsScreens))
    for screen in postsScreens {
      let result = try await checker.reach("shows-\(screen)")
      #expect(result.outcome == .reached, "\(screen)")
      let finding = try #require(result.finding)
      #expect(finding.actions.count == expected[screen], "\(screen)")
      #expect(finding.state.navigation.visibleRoute.name == screen)
    }
  }

  @Test func screenPredicatesAreNamedAfterTheRoutesAndHoldForTheVisibleOne() throws {
    let predicates = NavigationChecks.screenPredicates(
      postsScreens, navigation: { (state: PostsState) in state.navigation })
    #expect(predicates.map(\.name) == postsScreens.map { "shows-\($0)" })
    let shared = postsState(after: [
      .postsLoaded(posts: Post.samples),
      .navigation(action: .push(route: .postDetail(id: 1))),
      .navigation(action: .present(route: .share, style: .sheet)),
    ])
    #expect(predicates.filter { $0.holds(shared) }.map(\.name) == ["shows-share"])
  }

  @Test func goingBackFromEveryPostsScreenReachesTheRoot() throws {
    let invariant = returnsToRoot(PostsReducer(loader: { Post.samples }))
    #expect(invariant.name == "returns-to-root")
    let deep = postsState(after: [
      .postsLoaded(posts: Post.samples),
      .navigation(action: .push(route: .postDetail(id: 1))),
      .navigation(action: .present(route: .share, style: .sheet)),
    ])
    #expect(deep.navigation.presentations.count == 1)
    #expect(invariant.holds(deep))
    #expect(invariant.holds(postsDomain.initialState))
  }

  @Test func aReducerThatRefusesToPopIsCaught() async throws {
    let invariant = returnsToRoot(postsReducerRefusingPop)
    let detail = postsState(after: [
      .postsLoaded(posts: Post.samples), .navigation(action: .push(route: .postDetail(id: 2))),
    ])
    #expect(!invariant.holds(detail))
    #expect(invariant.holds(postsDomain.initialState))
    // The model checker finds the shortest way to a screen the back button cannot leave.
    let broken = DomainDefinition(
      name: "posts-stuck", summary: "Posts whose back button does nothing.",
      initialState: PostsState(), reducer: postsReducerRefusingPop,
      actionCases: PostsAction.caseNames, invariants: [invariant],
      explorationActions: PostsExploration.actions)
    let result = try await ModelChecker(domain: broken).check()
    #expect(result.outcome == .violated)
    let finding = try #require(result.finding)
    #expect(finding.name == "returns-to-root")
    #expect(finding.actions.count == 2)
    #expect(finding.state.navigation.currentStack.count == 2)
  }

  @Test func aReducerThatRefusesToDismissIsCaught() {
    let invariant = returnsToRoot(postsReducerRefusingDismiss)
    let shared = postsState(after: [
      .postsLoaded(posts: Post.samples),
      .navigation(action: .push(route: .postDetail(id: 1))),
      .navigation(action: .present(route: .share, style: .sheet)),
    ])
    #expect(!invariant.holds(shared))
    let detail = postsState(after: [
      .postsLoaded(posts: Post.samples), .navigation(action: .push(route: .postDetail(id: 1))),
    ])
    #expect(invariant.holds(detail))
  }

  @Test func theExamplesWithNavigationDeclareTheChecks() {
    #expect(bankingDomain.invariant(named: "returns-to-root") != nil)
    #expect(postsDomain.invariant(named: "returns-to-root") != nil)
    #expect(notesDomain.invariant(named: "returns-to-root") != nil)
    for (names, predicates) in [
      (bankingScreens, bankingDomain.predicates.map(\.name)),
      (postsScreens, postsDomain.predicates.map(\.name)),
      (notesScreens, notesDomain.predicates.map(\.name)),
    ] {
      #expect(Set(names.map { "shows-\($0)" }).isSubset(of: Set(predicates)))
    }
  }
}
