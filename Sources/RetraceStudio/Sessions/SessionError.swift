/// What went wrong answering a request about a session, in the session's terms: the
/// request asks for what is not there, or for what the session cannot do now. The handler
/// gives it its HTTP status (``StudioHandler/status(_:)-(SessionError)``); session code knows
/// nothing of HTTP.
struct SessionError: Error, Sendable {
  /// The kind of problem.
  enum Code: Sendable {
    /// The request does not make sense for this session (a bad range, a bad action).
    case invalidRequest
    /// What the request names is not there (a path in a state, a navigation flow).
    case notFound
    /// The session cannot do it now (its app is not connected, it has diverged).
    case conflict
    /// The request's body is larger than the Studio takes.
    case tooLarge
    /// The app is not keeping up: the request may succeed later.
    case busy
    /// The Studio holds as much as it takes: something must be removed first.
    case storageFull
    /// The Studio could not do it (a file it could not write).
    case failed
  }

  /// The kind of problem.
  var code: Code
  /// What went wrong, for the `error` field.
  var message: String

  init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }
}
