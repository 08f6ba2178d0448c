/// A way to embed a child action into a parent action and to extract it back.
///
/// It plays the role of a case path from Point-Free's swift-case-paths, written out by hand so
/// that the library needs no macros (macros pull in swift-syntax, which adds minutes to every
/// cold build).
///
/// ```swift
/// enum AppAction { case counter(CounterAction), settings(SettingsAction) }
///
/// let counterCase = ActionCase<AppAction, CounterAction>(
///   embed: AppAction.counter,
///   extract: { if case .counter(let a) = $0 { a } else { nil } }
/// )
/// ```
public struct ActionCase<Root, Value>: Sendable {
  /// Wraps a child value into the parent.
  public let embed: @Sendable (Value) -> Root
  /// Returns the child value when the parent holds this case, otherwise `nil`.
  public let extract: @Sendable (Root) -> Value?

  /// Creates an action case from its two directions.
  ///
  /// - Parameters:
  ///   - embed: Wraps a child value into the parent (usually the enum case itself).
  ///   - extract: Returns the child value when the parent is this case.
  public init(
    embed: @escaping @Sendable (Value) -> Root,
    extract: @escaping @Sendable (Root) -> Value?
  ) {
    self.embed = embed
    self.extract = extract
  }
}
