import Retrace
import RetraceCoordinator

/// The posts example's actions.
///
/// Encoded with labelled values, for example
/// `{"navigation":{"action":{"push":{"route":{"postDetail":{"id":2}}}}}}` or
/// `{"loadFailed":{"message":"offline"}}`.
public enum PostsAction: Codable, Equatable, Sendable {
  /// A navigation action: tabs, pushes, pops, presentations and deep links.
  case navigation(action: NavigationAction<PostsRoute>)
  /// Loads the posts (when the list appears, or to refresh it).
  case load
  /// Loads the posts again after a failure.
  case retry
  /// The loader's result: the posts.
  case postsLoaded(posts: [Post])
  /// The loader's failure, with a message for the user.
  case loadFailed(message: String)
  /// Likes or unlikes the post on its detail screen.
  case toggleLike(postID: Int)

  /// The case's name, as it appears in the encoded action.
  public var name: String {
    switch self {
    case .navigation: "navigation"
    case .load: "load"
    case .retry: "retry"
    case .postsLoaded: "postsLoaded"
    case .loadFailed: "loadFailed"
    case .toggleLike: "toggleLike"
    }
  }

  /// The names of all the cases.
  public static let caseNames = [
    "navigation", "load", "retry", "postsLoaded", "loadFailed", "toggleLike",
  ]

  /// How navigation actions are embedded in posts actions, for ``Retrace/Scope``.
  public static let navigationCase = ActionCase<PostsAction, NavigationAction<PostsRoute>>(
    embed: { PostsAction.navigation(action: $0) },
    extract: { if case .navigation(let action) = $0 { action } else { nil } }
  )
}
