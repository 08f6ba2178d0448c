import CasePathsCore

/// A way to embed a child action into a parent action and to extract it back.
///
/// It plays the role of a case path from Point-Free's swift-case-paths, written out by hand so
/// that the library needs no macros (macros pull in swift-syntax, which adds minutes to every
/// cold build). An action that is `CasePathable` (swift-case-paths' `@CasePathable` macro,
/// in an app that uses it, or written by hand) gives one from a case key path:
/// `ActionCase(\.counter)`.
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

extension ActionCase {
  /// An action case from a swift-case-paths case path.
  ///
  /// - Parameter casePath: The case path, `AnyCasePath(embed:extract:)` or one of
  ///   `@CasePathable`'s.
  public init(_ casePath: AnyCasePath<Root, Value>) where Root: Sendable, Value: Sendable {
    self.init(embed: casePath.embed, extract: casePath.extract)
  }

  /// An action case from a case key path, `\.child`, of an action that is `CasePathable`
  /// (through swift-case-paths' `@CasePathable` macro in an app that uses it, or written
  /// by hand: Retrace builds no macros).
  ///
  /// ```swift
  /// Scope(state: \.counter, action: ActionCase(\.counter), child: CounterReducer())
  /// ```
  ///
  /// - Parameter keyPath: The case key path.
  public init(_ keyPath: CaseKeyPath<Root, Value>) where Root: CasePathable {
    let casePath = AnyCasePath(keyPath)
    self.init(embed: casePath.embed, extract: casePath.extract)
  }
}

extension ActionCase {
  /// The action case of one element of a `forEach`: this case's actions addressed to `id`,
  /// with the element's action alone as the value. It scopes a child store to that element.
  ///
  /// ```swift
  /// // AppAction: case row(id: Row.ID, action: RowAction), with
  /// // static let rowCase = ActionCase<AppAction, (id: Row.ID, action: RowAction)>(...)
  /// if let rowStore = store.scope(state: \.rows[id: id], action: AppAction.rowCase.element(id)) {
  ///   RowView(store: rowStore)
  /// }
  /// ```
  ///
  /// - Parameter id: The element's identifier.
  /// - Returns: An action case that embeds an element action as this case with `id`, and
  ///   extracts it only from this case's actions addressed to `id`.
  public func element<ID: Hashable & Sendable, ElementAction>(
    _ id: ID
  ) -> ActionCase<Root, ElementAction> where Value == (id: ID, action: ElementAction) {
    let (embed, extract) = (self.embed, self.extract)
    return ActionCase<Root, ElementAction>(
      embed: { embed((id: id, action: $0)) },
      extract: { root in extract(root).flatMap { $0.id == id ? $0.action : nil } })
  }
}
