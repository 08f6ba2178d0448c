/// Where reducers report a mistake that is a bug when a test makes it and nothing at all
/// elsewhere: an `ifLet` that receives a child action while its child state is `nil`, a
/// `forEach` that receives an action for an element not in its collection.
///
/// `RetraceTesting`'s `TestStore` sets ``report`` while it reduces an action, and fails the
/// test at its `send` or `receive` with what was reported. A store, the replay engine, the
/// CLI and the Studio leave it `nil`: a replay of a recorded session reduces the same actions
/// and must print nothing and fail nothing.
package enum ReducerMistakes {
  /// What receives a mistake's description, or `nil` where mistakes are not reported.
  @TaskLocal package static var report: (@Sendable (String) -> Void)?
}
