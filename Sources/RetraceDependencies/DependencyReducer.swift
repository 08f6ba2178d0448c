@_exported import Dependencies
import Retrace

/// A reducer that runs another in a set of dependencies, and runs the work of the effects it
/// returns in the same set: what ``Retrace/Reducer/dependency(_:_:)`` and
/// ``Retrace/Reducer/transformDependency(_:)`` make.
///
/// swift-dependencies keeps the current dependencies in a task-local value, which a store's
/// effect tasks, started after the reducer returns, would not see. This reducer captures the
/// dependencies in force when the reducer runs and restores them around each effect's work,
/// as TCA's `Effect.run` does.
public struct DependencyReducer<Base: Reducer>: Reducer {
  @usableFromInline let base: Base
  @usableFromInline let update: @Sendable (inout DependencyValues) -> Void

  @usableFromInline
  init(base: Base, update: @escaping @Sendable (inout DependencyValues) -> Void) {
    self.base = base
    self.update = update
  }

  /// Runs the base reducer with the changed dependencies; its effects' work runs with them
  /// too.
  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    withDependencies(update) {
      base.reduce(into: &state, action: action).runningInCurrentDependencies()
    }
  }
}

extension DependencyReducer: Sendable where Base: Sendable {}

extension Reducer {
  /// Runs this reducer, and its effects, with the dependency at `keyPath` set to `value`:
  /// TCA's `.dependency(_:_:)`.
  ///
  /// ```swift
  /// NotesFeature()
  ///   .dependency(\.notesClient, .inMemory(notes))
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: The dependency to set.
  ///   - value: Its value for this reducer and its effects.
  /// - Returns: The reducer with the dependency set.
  public func dependency<Value: Sendable>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable, _ value: Value
  ) -> DependencyReducer<Self> {
    DependencyReducer(base: self) { $0[keyPath: keyPath] = value }
  }

  /// Runs this reducer, and its effects, with the dependencies `update` changes: TCA's
  /// `.transformDependency` for several at once.
  ///
  /// ```swift
  /// NotesFeature()
  ///   .transformDependency {
  ///     $0.continuousClock = ImmediateClock()
  ///     $0.notesClient = .failing
  ///   }
  /// ```
  ///
  /// - Parameter update: Changes the dependencies.
  /// - Returns: The reducer with the dependencies changed.
  public func transformDependency(
    _ update: @escaping @Sendable (inout DependencyValues) -> Void
  ) -> DependencyReducer<Self> {
    DependencyReducer(base: self, update: update)
  }
}

extension Effect {
  /// This effect with each piece of work run in the dependencies current now: the store
  /// starts effect tasks after the reducer returns, outside the reducer's
  /// `withDependencies`.
  @usableFromInline
  func runningInCurrentDependencies() -> Self {
    if isNone { return self }
    let continuation = withEscapedDependencies { $0 }
    return wrappingWork { work in await continuation.yield { await work() } }
  }
}

extension Store {
  /// Creates a store whose reducer and effects use the dependencies as they are now,
  /// changed by `prepareDependencies`: TCA's `Store(initialState:reducer:withDependencies:)`.
  ///
  /// ```swift
  /// let store = Store(initialState: Notes.State(), reducer: Notes()) {
  ///   $0.notesClient = .live(baseURL: url)
  /// }
  /// ```
  ///
  /// The dependencies are captured once, here: every action is reduced, and every effect
  /// run, with them, whatever dependencies are current where `send` is called. The trace
  /// times come from their `continuousClock` (see `StoreClock.init(_:startingAt:)`)
  /// unless `clock` says otherwise, so that a test clock moves a recorded session's times too.
  /// In a test that sets no `continuousClock` (swift-clocks' `UnimplementedClock`, which
  /// reports an issue whenever it is read), they come from the wall clock, as for a store
  /// made without dependencies.
  ///
  /// - Parameters:
  ///   - initialState: The state before the first action.
  ///   - reducer: The reducer that applies actions.
  ///   - clock: Where recorders' timestamps come from; the dependencies' `continuousClock`
  ///     by default, or the wall clock when that one is unimplemented.
  ///   - prepareDependencies: Changes the dependencies for this store.
  public convenience init<R: Reducer<State, Action>>(
    initialState: State,
    reducer: R,
    clock: StoreClock? = nil,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void
  ) {
    let dependencies = Dependencies.withDependencies(prepareDependencies) {
      withEscapedDependencies { $0 }
    }
    let storeClock = clock ?? dependencies.yield { StoreClock.following(DependencyValues._current) }
    self.init(
      initialState: initialState,
      reducer: CapturedDependencies(base: reducer, dependencies: dependencies),
      clock: storeClock)
  }
}

extension StoreClock {
  /// The clock that times a store's actions in `dependencies`: their `continuousClock`, or
  /// the wall clock when it is swift-clocks' `UnimplementedClock`, the test value a test
  /// gets when it sets none: reading that one would report an issue at every action.
  static func following(_ dependencies: DependencyValues) -> StoreClock {
    let clock = dependencies.continuousClock
    return clock is UnimplementedClock<Duration> ? .system : StoreClock(clock)
  }
}

/// A reducer run in dependencies captured when it was made (a store's, a test store's).
package struct CapturedDependencies<Base: Reducer>: Reducer {
  let base: Base
  let dependencies: DependencyValues.Continuation

  package init(base: Base, dependencies: DependencyValues.Continuation) {
    self.base = base
    self.dependencies = dependencies
  }

  package func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    dependencies.yield { base.reduce(into: &state, action: action).runningInCurrentDependencies() }
  }
}

extension CapturedDependencies: Sendable where Base: Sendable {}
