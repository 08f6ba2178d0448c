import RetraceCoordinator

/// The screens of the posts example.
///
/// The feed tab starts at the post list, which pushes a post's detail, which presents a
/// share sheet; the settings tab starts at the settings screen, which pushes an about
/// screen. ``PostsFlow/rules`` says exactly that.
public enum PostsRoute: Routable {
  /// The list of posts: loading, displaying them, or showing an error. The feed tab's root.
  case postList
  /// One post's detail screen.
  case postDetail(id: Int)
  /// The share sheet, presented from a post's detail; it shares the post beneath it.
  case share
  /// The settings screen. The settings tab's root.
  case settings
  /// The about screen, pushed from settings.
  case about

  /// The route's node name: `postList`, `postDetail`, `share`, `settings` or `about`.
  public var name: String {
    switch self {
    case .postList: "postList"
    case .postDetail: "postDetail"
    case .share: "share"
    case .settings: "settings"
    case .about: "about"
    }
  }
}
