import Retrace
import RetraceCoordinator

/// What `retrace check` may send in a posts state: what the visible screen offers (open a
/// loaded post, like it, share it, back, switch tabs, the about screen, refresh, a deep link
/// to the first post), a retry after a failure, and the loader's two answers while the
/// list is loading, whichever tab is shown.
///
/// Every navigation sent is one the flow rules allow, as the app's buttons are. At most 8
/// actions a state; the space (the list's three states, which post is open and liked, the
/// share sheet, the settings tab's two screens) is 48 states, searched completely in well
/// under a second.
public enum PostsExploration {
  /// The loader's failure message.
  public static let failure = "The network connection was lost."

  /// The actions that may be sent in `state`.
  @Sendable public static func actions(in state: PostsState) -> [PostsAction] {
    var actions: [PostsAction] = []
    switch state.postList {
    case .loading?:
      actions.append(.postsLoaded(posts: Post.samples))
      actions.append(.loadFailed(message: failure))
    case .error? where state.navigation.visibleRoute == .postList:
      actions.append(.retry)
    default:
      break
    }
    switch state.navigation.visibleRoute {
    case .postList:
      actions.append(.load)
      for post in state.loadedPosts {
        actions.append(navigate(.push(route: .postDetail(id: post.id))))
      }
      if let first = state.loadedPosts.first {
        actions.append(
          navigate(
            .setPath(path: RoutePath(tab: "feed", stack: [.postList, .postDetail(id: first.id)]))))
      }
      actions.append(navigate(.selectTab(tab: "settings")))
    case .postDetail(let id):
      actions.append(.toggleLike(postID: id))
      actions.append(navigate(.present(route: .share, style: .sheet)))
      actions.append(navigate(.pop))
      actions.append(navigate(.popToRoot))
      actions.append(navigate(.selectTab(tab: "settings")))
    case .share:
      actions.append(navigate(.dismiss))
    case .settings:
      actions.append(navigate(.push(route: .about)))
      actions.append(navigate(.selectTab(tab: "feed")))
    case .about:
      actions.append(navigate(.pop))
      actions.append(navigate(.selectTab(tab: "feed")))
    }
    return actions
  }

  private static func navigate(_ action: NavigationAction<PostsRoute>) -> PostsAction {
    .navigation(action: action)
  }
}

/// The posts screens, by route name, that `shows-…` predicates name.
public let postsScreens = ["postList", "postDetail", "share", "settings", "about"]

/// Named conditions `retrace check --reach` can search for in a posts state: one for each
/// screen (`shows-share`, …) and these.
public let postsPredicates: [StatePredicate<PostsState>] =
  [
    StatePredicate("posts-loaded", "The post list shows posts.") { !$0.loadedPosts.isEmpty },
    StatePredicate("load-failed", "The post list shows a failure.") {
      if case .error? = $0.postList { true } else { false }
    },
    StatePredicate("detail-shown", "A post's detail screen is on top.") {
      if case .postDetail = $0.navigation.visibleRoute { true } else { false }
    },
    StatePredicate("post-liked", "A post on a stack is liked.") { state in
      state.navigation.allRoutes.contains { route in
        if case .postDetail(let id) = route { state.detail(id)?.isLiked == true } else { false }
      }
    },
  ] + NavigationChecks.screenPredicates(postsScreens, navigation: { $0.navigation })
