import Retrace
import RetraceCoordinator

/// Realistic sessions for the posts domain.
///
/// The generator plays a user: it opens the app (`load`), answers every load itself with
/// `postsLoaded` (about 88%) or `loadFailed`, retries after a failure, opens details of
/// loaded posts, likes some, shares some, goes back, switches tabs, opens the about screen,
/// refreshes, and now and then follows a deep link to a post. Rarely it likes a post whose
/// detail screen is already closed (a late tap), which the reducer refuses and reports.
///
/// It never sends a transition the rules forbid: a refusal in a generated trace is the late
/// tap, which makes it easy to find with the debugger.
public enum PostsWorkload {
  /// The workload of ``postsDomain``.
  public static let workload = Workload<PostsState, PostsAction> { state, step, random in
    next(state, step: step, random: &random)
  }

  static func next(_ state: PostsState, step: Int, random: inout SeededRandom) -> PostsAction {
    if step == 0 { return .load }
    let roll = Int.random(in: 0..<100, using: &random)

    switch state.postList {
    case .loading?:
      // The load in flight answers first, as the effect would.
      if roll < 12 {
        return .loadFailed(message: failureMessages.randomElement(using: &random)!)
      }
      return .postsLoaded(posts: makePosts(step: step, random: &random))
    case .error? where state.navigation.visibleRoute == .postList && roll < 75:
      return .retry
    default:
      break
    }

    let posts = state.loadedPosts
    switch state.navigation.visibleRoute {
    case .postList:
      switch roll {
      case 0..<60 where !posts.isEmpty:
        return push(.postDetail(id: posts.randomElement(using: &random)!.id))
      case 60..<80:
        return navigate(.selectTab(tab: "settings"))
      case 80..<92:
        return .load
      case 92..<97 where !posts.isEmpty:
        // A deep link from a notification.
        let id = posts.randomElement(using: &random)!.id
        return navigate(
          .setPath(path: RoutePath(tab: "feed", stack: [.postList, .postDetail(id: id)])))
      default:
        return navigate(.selectTab(tab: "settings"))
      }

    case .postDetail(let id):
      switch roll {
      case 0..<25: return .toggleLike(postID: id)
      case 25..<40: return navigate(.present(route: .share, style: .sheet))
      case 40..<85: return navigate(.pop)
      case 85..<90: return navigate(.popToRoot)
      case 90..<97: return navigate(.selectTab(tab: "settings"))
      default:
        // A late tap: a like for another post, whose detail screen is already closed.
        if roll == 99, let other = posts.first(where: { $0.id != id }) {
          return .toggleLike(postID: other.id)
        }
        return navigate(.pop)
      }

    case .share:
      return navigate(.dismiss)

    case .settings:
      return roll < 40 ? push(.about) : navigate(.selectTab(tab: "feed"))

    case .about:
      return roll < 60 ? navigate(.pop) : navigate(.selectTab(tab: "feed"))
    }
  }

  private static func navigate(_ action: NavigationAction<PostsRoute>) -> PostsAction {
    .navigation(action: action)
  }

  private static func push(_ route: PostsRoute) -> PostsAction {
    .navigation(action: .push(route: route))
  }

  private static let failureMessages = [
    "The network connection was lost.",
    "The request timed out.",
    "The server returned status 503.",
  ]

  private static let words = [
    "Swift", "state", "actions", "replay", "tabs", "sheets", "reducers", "traces", "effects",
    "links",
  ]

  /// Three to eight small posts; identifiers grow with the step so that a refresh can bring
  /// new posts while keeping older ones.
  private static func makePosts(step: Int, random: inout SeededRandom) -> [Post] {
    let count = Int.random(in: 3...8, using: &random)
    let newest = 10 + step / 5
    return (0..<count).map { offset in
      let id = newest - offset
      let first = words.randomElement(using: &random)!
      let second = words.randomElement(using: &random)!
      return Post(
        id: id, title: "\(first) and \(second)", body: "Post \(id) is about \(first.lowercased()).")
    }
  }
}
