import RetraceCoordinator

/// The posts example's state: the navigation and the states of the screens on it.
public struct PostsState: Codable, Hashable, Sendable {
  /// The tabs, stacks and presentations.
  public internal(set) var navigation: NavigationState<PostsRoute>
  /// The state of each screen that has one (the post list and the post details on a stack).
  public internal(set) var screens: ScreenStates<PostsRoute, PostsScreen>

  /// Creates the state of a freshly opened app: the feed tab with its post list, loading.
  public init() {
    let navigation = PostsFlow.initialNavigation
    self.navigation = navigation
    self.screens = ScreenStates(for: navigation, make: PostsScreen.init(route:))
  }

  /// The post list's state, which exists while the feed tab does.
  public var postList: PostListState? {
    if case .list(let list)? = screens[.postList] { list } else { nil }
  }

  /// The posts the list displays, or none while it loads or after it failed.
  public var loadedPosts: [Post] {
    if case .display(let posts)? = postList { posts } else { [] }
  }

  /// The state of the detail screen of the post `id`, if it is on a stack.
  public func detail(_ id: Int) -> PostDetailState? {
    if case .detail(let detail)? = screens[.postDetail(id: id)] { detail } else { nil }
  }
}

/// The state of a screen in the posts example, kept beside its route.
public enum PostsScreen: Hashable, Codable, Sendable {
  /// The post list's state.
  case list(PostListState)
  /// A post detail's state.
  case detail(PostDetailState)

  /// The state a screen starts with when its route is pushed, or `nil` for screens without
  /// state (share, settings, about).
  ///
  /// - Parameter route: The route that arrived on a stack.
  public init?(route: PostsRoute) {
    switch route {
    case .postList: self = .list(.loading)
    case .postDetail(let id): self = .detail(PostDetailState(postID: id))
    case .share, .settings, .about: return nil
    }
  }
}

/// The post list: loading, displaying posts, or showing why loading failed.
public enum PostListState: Hashable, Codable, Sendable {
  /// Posts are being loaded (or are about to be: a new list starts here and sends `load`).
  case loading
  /// The loaded posts are shown.
  case display(posts: [Post])
  /// Loading failed; the user may retry.
  case error(message: String)
}

/// A post detail screen's own state.
public struct PostDetailState: Hashable, Codable, Sendable {
  /// The post shown.
  public var postID: Int
  /// Whether the user liked the post on this screen.
  public var isLiked: Bool

  /// Creates a detail state.
  ///
  /// - Parameters:
  ///   - postID: The post shown.
  ///   - isLiked: Whether the user liked it.
  public init(postID: Int, isLiked: Bool = false) {
    self.postID = postID
    self.isLiked = isLiked
  }
}
