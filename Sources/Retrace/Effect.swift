import IssueReporting

/// The work an action starts, described as a value.
///
/// A reducer never performs side effects itself: it returns an `Effect`, and the ``Store``
/// runs it. Whatever the work produces comes back as actions, which go through the reducer
/// like any other action and so are recorded; a replay never runs effects.
///
/// ```swift
/// case .refresh:
///   state.isLoading = true
///   return .run { send in
///     await send(.loaded(try await loader.load()))
///   } catch: { _, send in
///     await send(.loadFailed)
///   }
///   .cancellable(id: "load", cancelInFlight: true)
/// ```
public struct Effect<Action> {
  // Indirect: an effect is one word, `.none` is a tag with no allocation, and copying or
  // dropping the `.none` that nearly every action returns costs nothing on the hot path.
  @usableFromInline
  indirect enum Operation {
    case none
    case send(Action)
    case run(TaskPriority?, @Sendable (Send<Action>) async -> Void)
    case cancellable(EffectID, cancelInFlight: Bool, Effect<Action>)
    case cancel(EffectID)
    case merge([Effect<Action>])
    case debounce(EffectID, EffectTiming, Effect<Action>)
    case throttle(EffectID, EffectTiming, latest: Bool, Effect<Action>)
  }

  @usableFromInline
  let operation: Operation

  @inlinable
  init(_ operation: Operation) {
    self.operation = operation
  }

  /// An effect that does nothing.
  @inlinable
  public static var none: Self { Self(.none) }

  /// An effect that sends `action` back to the store right after the current action.
  ///
  /// The action is queued and reduced after the one that returned this effect, never
  /// recursively inside it.
  ///
  /// - Parameter action: The action to send.
  /// - Returns: The effect.
  @inlinable
  public static func send(_ action: Action) -> Self { Self(.send(action)) }

  /// An effect that runs asynchronous work, which reports back through `send`.
  ///
  /// The work runs in a task off the store's actor. Actions sent after the task is
  /// cancelled are dropped. The work may throw, as in TCA: an error goes to `handler`,
  /// which can report it with an action; without a handler it is reported as an issue (a
  /// test that runs the effect fails; an app prints it), since an effect that fails
  /// silently leaves the state waiting for an action that never comes. A
  /// `CancellationError` thrown after the effect was cancelled is not an error.
  ///
  /// ```swift
  /// case .refresh:
  ///   return .run { send in
  ///     await send(.loaded(try await api.posts()))
  ///   } catch: { error, send in
  ///     await send(.failed("\(error)"))
  ///   }
  /// ```
  ///
  /// - Parameters:
  ///   - priority: The priority of the task.
  ///   - operation: The work; call `await send(action)` to report results.
  ///   - handler: Receives an error the work throws, with `send` to report it.
  ///   - fileID: The caller's file, where a failure is reported; the default is right.
  ///   - filePath: The caller's file path, for the same report.
  ///   - line: The caller's line, for the same report.
  ///   - column: The caller's column, for the same report.
  /// - Returns: The effect.
  public static func run(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable (Send<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) -> Self {
    Self(
      .run(priority) { send in
        do {
          try await operation(send)
        } catch is CancellationError where Task.isCancelled {
          // Cancelled: the work stopped as asked.
        } catch {
          guard let handler else {
            reportIssue(
              """
              An effect threw an error that nothing handled: \(error)

              Handle it with `.run(operation:catch:)`, so that it comes back as an action.
              """,
              fileID: fileID, filePath: filePath, line: line, column: column)
            return
          }
          await handler(error, send)
        }
      })
  }

  /// Marks this effect as cancellable with `id`.
  ///
  /// - Parameters:
  ///   - id: The identifier that ``cancel(id:)`` uses: a value of the same type that is
  ///     equal to it (`1 as Int64` is not `1`), as with TCA's cancellation identifiers.
  ///   - cancelInFlight: Whether to cancel running effects with the same identifier first.
  /// - Returns: The cancellable effect.
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Self {
    if case .none = operation { return self }
    return Self(.cancellable(EffectID(id), cancelInFlight: cancelInFlight, self))
  }

  /// An effect that cancels the running effects marked with `id`.
  ///
  /// - Parameter id: The identifier given to ``cancellable(id:cancelInFlight:)``.
  /// - Returns: The effect.
  public static func cancel(id: some Hashable & Sendable) -> Self {
    Self(.cancel(EffectID(id)))
  }

  /// An effect that runs several effects at once.
  ///
  /// - Parameter effects: The effects to run.
  /// - Returns: The merged effect.
  public static func merge(_ effects: [Self]) -> Self {
    let effects = effects.filter { !$0.isNone }
    switch effects.count {
    case 0: return .none
    case 1: return effects[0]
    default: return Self(.merge(effects))
    }
  }

  /// An effect that runs several effects at once, written as a list: `.merge(a, b)`, as in
  /// TCA.
  ///
  /// - Parameter effects: The effects to run.
  /// - Returns: The merged effect.
  public static func merge(_ effects: Self...) -> Self {
    merge(effects)
  }

  /// Returns an effect that runs this effect and `other`.
  @inlinable
  public func merge(with other: Self) -> Self {
    if case .none = other.operation { return self }
    if case .none = operation { return other }
    return .merge([self, other])
  }

  /// Whether this effect does nothing.
  @inlinable
  public var isNone: Bool {
    if case .none = operation { return true }
    return false
  }

  /// Returns an effect whose actions are transformed by `transform`.
  ///
  /// Used to lift a child reducer's effect into its parent's actions.
  ///
  /// - Parameter transform: Turns this effect's actions into the new action type.
  /// - Returns: The transformed effect.
  @inlinable
  public func map<NewAction>(
    _ transform: @escaping @Sendable (Action) -> NewAction
  ) -> Effect<NewAction> {
    switch operation {
    case .none:
      return .none
    case .send(let action):
      return .send(transform(action))
    case .run(let priority, let work):
      return Effect<NewAction>(
        .run(priority) { send in
          await work(Send { action in send(transform(action)) })
        })
    case .cancellable(let id, let cancelInFlight, let effect):
      return Effect<NewAction>(
        .cancellable(id, cancelInFlight: cancelInFlight, effect.map(transform)))
    case .cancel(let id):
      return Effect<NewAction>(.cancel(id))
    case .merge(let effects):
      return Effect<NewAction>(.merge(effects.map { $0.map(transform) }))
    case .debounce(let id, let timing, let effect):
      return Effect<NewAction>(.debounce(id, timing, effect.map(transform)))
    case .throttle(let id, let timing, let latest, let effect):
      return Effect<NewAction>(.throttle(id, timing, latest: latest, effect.map(transform)))
    }
  }

  /// Returns this effect with the work of each ``run(priority:operation:catch:fileID:filePath:line:column:)``
  /// in it wrapped by `wrap`: how a library runs effects in a context of its own, such as the
  /// dependencies that were current when the reducer returned the effect
  /// (RetraceDependencies).
  ///
  /// - Parameter wrap: Runs the work it is given, in its context.
  /// - Returns: The wrapped effect.
  package func wrappingWork(
    _ wrap: @escaping @Sendable (_ work: @Sendable () async -> Void) async -> Void
  ) -> Self {
    switch operation {
    case .none, .send, .cancel:
      return self
    case .run(let priority, let work):
      return Self(.run(priority) { send in await wrap { await work(send) } })
    case .cancellable(let id, let cancelInFlight, let effect):
      return Self(.cancellable(id, cancelInFlight: cancelInFlight, effect.wrappingWork(wrap)))
    case .merge(let effects):
      return Self(.merge(effects.map { $0.wrappingWork(wrap) }))
    case .debounce(let id, let timing, let effect):
      return Self(.debounce(id, timing, effect.wrappingWork(wrap)))
    case .throttle(let id, let timing, let latest, let effect):
      return Self(.throttle(id, timing, latest: latest, effect.wrappingWork(wrap)))
    }
  }
}

extension Effect {
  /// This effect with each identifier it cancels or waits under made its own within `scope`:
  /// one element's `cancellable(id:)`, `cancel(id:)`, `debounce` and `throttle` never meet
  /// another element's with the same identifier, as TCA scopes them by navigation path.
  @usableFromInline
  func scopingIDs(in scope: ChildEffectID) -> Self {
    func scoped(_ id: EffectID) -> EffectID { EffectID(ScopedEffectID(scope: scope, id: id)) }
    switch operation {
    case .none, .send, .run:
      return self
    case .cancellable(let id, let cancelInFlight, let effect):
      return Self(
        .cancellable(scoped(id), cancelInFlight: cancelInFlight, effect.scopingIDs(in: scope)))
    case .cancel(let id):
      return Self(.cancel(scoped(id)))
    case .merge(let effects):
      return Self(.merge(effects.map { $0.scopingIDs(in: scope) }))
    case .debounce(let id, let timing, let effect):
      return Self(.debounce(scoped(id), timing, effect.scopingIDs(in: scope)))
    case .throttle(let id, let timing, let latest, let effect):
      return Self(.throttle(scoped(id), timing, latest: latest, effect.scopingIDs(in: scope)))
    }
  }
}

/// An identifier given inside one element of a collection, made distinct from the same
/// identifier in another element.
struct ScopedEffectID: Hashable, Sendable {
  let scope: ChildEffectID
  let id: EffectID
}

extension Effect: Sendable where Action: Sendable {}
extension Effect.Operation: Sendable where Action: Sendable {}

/// The identifier of a cancellable effect: two are equal when their values are of the same
/// type and equal, as TCA's cancellation identifiers are (`1 as Int` and `1 as Int64` differ).
///
/// The value is compared with its own type's `==` and hashed with its type, not through
/// `AnyHashable`, whose equality looked up a generic box's metadata each time: a debounce
/// compares its identifier with the waiting one's on every action it drops.
@usableFromInline
struct EffectID: Hashable, Sendable {
  @usableFromInline let base: any Hashable & Sendable

  @usableFromInline init(_ base: some Hashable & Sendable) {
    self.base = base
  }

  @usableFromInline static func == (lhs: Self, rhs: Self) -> Bool {
    guard type(of: lhs.base) == type(of: rhs.base) else { return false }
    func isEqual<Base: Hashable & Sendable>(_ lhs: Base) -> Bool {
      guard let rhs = rhs.base as? Base else { return false }
      return lhs == rhs
    }
    return isEqual(lhs.base)
  }

  @usableFromInline func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(type(of: base)))
    base.hash(into: &hasher)
  }
}

/// Sends actions from an effect back to its store.
///
/// ```swift
/// return .run { send in
///   await send(.tick)
/// }
/// ```
///
/// Actions sent after the effect's task was cancelled are dropped.
@MainActor
public struct Send<Action>: Sendable {
  @usableFromInline
  let send: @MainActor @Sendable (Action) -> Void

  /// Creates a `Send` that hands actions to `send`.
  ///
  /// - Parameter send: Receives each action.
  nonisolated public init(_ send: @escaping @MainActor @Sendable (Action) -> Void) {
    self.send = send
  }

  /// Sends `action` to the store, unless the effect was cancelled.
  ///
  /// - Parameter action: The action to send.
  public func callAsFunction(_ action: Action) {
    guard !Task.isCancelled else { return }
    send(action)
  }
}
