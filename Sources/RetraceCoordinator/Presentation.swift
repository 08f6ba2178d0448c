/// How a modal presentation covers the screens beneath it.
public enum PresentationStyle: String, Codable, Hashable, Sendable, CaseIterable {
  /// A sheet that leaves the presenting screen partly visible.
  case sheet
  /// A cover that hides the presenting screen entirely.
  case fullScreen
}

/// A modal layer above a tab's stack: its style and its own navigation stack.
///
/// The first route of ``stack`` is the presented screen; pushes while the presentation is on
/// top go onto the same stack, and a further presentation is a new layer above it (see
/// ``NavigationState/presentations``).
///
/// ```swift
/// let share = Presentation(style: .sheet, stack: [PostsRoute.share(postID: 42)])
/// ```
public struct Presentation<Route: Routable>: Hashable, Codable, Sendable {
  /// How the presentation covers the screens beneath it.
  public var style: PresentationStyle
  /// The presentation's stack; its first route is the presented screen.
  public var stack: [Route]

  /// Creates a presentation.
  ///
  /// - Parameters:
  ///   - style: How the presentation covers the screens beneath it.
  ///   - stack: The presentation's stack, presented screen first. A stack that is empty is
  ///     refused when it arrives in a ``NavigationAction/setPath(path:)``.
  @inlinable
  public init(style: PresentationStyle, stack: [Route]) {
    self.style = style
    self.stack = stack
  }

  /// Creates a presentation of one screen.
  ///
  /// - Parameters:
  ///   - route: The presented screen.
  ///   - style: How it covers the screens beneath it.
  @inlinable
  public init(_ route: Route, style: PresentationStyle = .sheet) {
    self.init(style: style, stack: [route])
  }
}

/// One tab of a tab bar: its name and its navigation stack.
///
/// An app without a tab bar has a single tab (called `main` by
/// ``NavigationState/init(root:)``).
public struct NavigationTab<Route: Routable>: Hashable, Codable, Sendable {
  /// The tab's name, such as `feed`.
  public var name: String
  /// The tab's stack, root first; never empty.
  public var stack: [Route]

  /// Creates a tab.
  ///
  /// - Parameters:
  ///   - name: The tab's name.
  ///   - stack: The tab's stack, root first.
  @inlinable
  public init(name: String, stack: [Route]) {
    self.name = name
    self.stack = stack
  }
}
