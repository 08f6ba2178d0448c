import FlyingFox
import Foundation

/// A request's path and query, percent-decoded, or the one reason they cannot be.
///
/// FlyingFox decodes them with `URLComponents`, which makes a path it cannot decode empty
/// (`/api/%ff` would be the page) and drops a query value it cannot decode (`?at=%ff` would
/// be no `at`, and the last state): here either is an error that names what is wrong.
struct RequestTarget: Sendable, Equatable {
  /// The path's segments, decoded, without empty ones: `/api/sessions/a%20b` is
  /// `["api", "sessions", "a b"]`.
  var segments: [String]
  /// The query's parameters, decoded, in order, as a form's (`application/x-www-form-
  /// urlencoded`, which the page's `URLSearchParams` writes): `+` is a space, `%2B` a plus.
  var query: [HTTPRequest.QueryItem]

  /// Decodes `target` (`path?query`, as it came in the request line).
  ///
  /// - Throws: ``APIError``: 400 for a path under `/api/` or a query parameter that is not
  ///   percent-encoded UTF-8 (its name in the message), 404 for another such path (no page
  ///   has that name).
  init(_ target: HTTPRequest.Target) throws(APIError) {
    let rawSegments = target.path().split(separator: "/", omittingEmptySubsequences: true)
    var segments: [String] = []
    for raw in rawSegments {
      guard let segment = raw.removingPercentEncoding else {
        if (rawSegments.first?.removingPercentEncoding ?? "") == "api" {
          throw APIError(
            400, "the path is not percent-encoded UTF-8: '\(raw.prefix(60))'")
        }
        throw APIError(404, "no such page: the path is not percent-encoded UTF-8")
      }
      segments.append(segment)
    }
    self.segments = segments

    var query: [HTTPRequest.QueryItem] = []
    for item in target.query().split(separator: "&", omittingEmptySubsequences: true) {
      let parts = item.replacing("+", with: " ").split(
        separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = parts[0].removingPercentEncoding else {
        throw APIError(
          400, "a query parameter's name is not percent-encoded UTF-8: '\(parts[0].prefix(60))'")
      }
      let raw = parts.count > 1 ? parts[1] : ""
      guard let value = raw.removingPercentEncoding else {
        throw APIError(
          400,
          "the query parameter '\(name.prefix(60))' is not percent-encoded UTF-8: '\(raw.prefix(60))'"
        )
      }
      query.append(HTTPRequest.QueryItem(name: name, value: value))
    }
    self.query = query
  }
}
