import RetraceCoordinator

/// The posts example's navigation rules and deep links.
public enum PostsFlow {
  /// The tab bar (feed, settings) and which screen may lead to which.
  ///
  /// Everything else is refused: settings cannot push a post, a post list cannot present
  /// the share sheet, and nothing can push the settings screen onto the feed.
  public static let rules = FlowRules<PostsRoute>()
    .tab("feed", root: "postList")
    .tab("settings", root: "settings")
    .allowPush(from: "postList", to: "postDetail")
    .allowPresent(from: "postDetail", to: "share")
    .allowPush(from: "settings", to: "about")

  /// The deep links: `app://posts`, `app://posts/42`, `app://posts/42/share`,
  /// `app://settings` and `app://settings/about`.
  public static let links = RouteTable<PostsRoute>(scheme: "app")
    .route(.postList, pattern: "posts")
    .route(
      "postDetail", pattern: ":id",
      build: { Int($0[0]).map { PostsRoute.postDetail(id: $0) } },
      parameters: { if case .postDetail(let id) = $0 { [String(id)] } else { nil } }
    )
    .route(.share, pattern: "share", presentedAs: .sheet)
    .route(.settings, pattern: "settings")
    .route(.about, pattern: "about")

  /// The tabs in tab-bar order with their roots: the initial navigation.
  public static var initialNavigation: NavigationState<PostsRoute> {
    NavigationState(tabs: ["feed": .postList, "settings": .settings])
  }
}
