/// A screen an app can navigate to: the element of every navigation stack.
///
/// An app declares its routes as an enum, usually with a case per screen and the screen's
/// parameters as associated values. Routes are `Codable` because navigation actions carry
/// them into traces, and `Hashable` because the coordinator compares and looks them up.
///
/// ``name`` is the route's stable node name: the same for every value of one case, such as
/// `postDetail` for `.postDetail(id: 42)`. Flow rules, deep-link tables and graphs speak in
/// names, so that a rule covers every post and a graph has one node per kind of screen.
///
/// ```swift
/// enum PostsRoute: Routable {
///   case postList
///   case postDetail(id: Int)
///   case settings
///
///   var name: String {
///     switch self {
///     case .postList: "postList"
///     case .postDetail: "postDetail"
///     case .settings: "settings"
///     }
///   }
/// }
/// ```
///
/// Return string literals from ``name``: it is read on every navigation action, and a
/// literal costs no allocation.
public protocol Routable: Hashable, Codable, Sendable {
  /// The route's stable node name, the same for every value of one case (`postDetail`).
  var name: String { get }
}
