/// A post in the posts example: an identifier, a title and a short body.
public struct Post: Codable, Hashable, Sendable, Identifiable {
  /// The post's identifier, which its detail route carries.
  public var id: Int
  /// The post's title.
  public var title: String
  /// The post's text.
  public var body: String

  /// Creates a post.
  ///
  /// - Parameters:
  ///   - id: The post's identifier.
  ///   - title: The post's title.
  ///   - body: The post's text.
  public init(id: Int, title: String, body: String) {
    self.id = id
    self.title = title
    self.body = body
  }

  /// A few posts, for the example domain's loader and for previews.
  public static let samples: [Post] = [
    Post(id: 1, title: "Hello, Retrace", body: "Every tap is an action."),
    Post(id: 2, title: "Time travel", body: "Replay any session, step by step."),
    Post(id: 3, title: "Navigation is state", body: "Screens change only through actions."),
  ]
}
