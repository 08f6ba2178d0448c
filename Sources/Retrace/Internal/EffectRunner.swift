import Synchronization

/// Runs effects for a store (and for the test store), keeping track of their tasks so that
/// they can be cancelled by identifier and awaited.
@MainActor
package final class EffectRunner<Action: Sendable> {
  private var tasks: [Int: Task<Void, Never>] = [:]
  private var keysByID: [EffectID: Set<Int>] = [:]
  /// The identifiers each task is cancellable under, so that a finished task leaves only
  /// its own entries of `keysByID` (a scan of every identifier made finishing quadratic).
  private var idsByKey: [Int: [EffectID]] = [:]
  private var nextKey = 0
  private let send: @MainActor @Sendable (Action) -> Void
  /// Where the effects' nonisolated work runs: the global executor unless a test store
  /// gives its own, which knows when no effect has work left to run.
  private let executor: (any TaskExecutor)?
  /// With an executor of its own (a test store's), the tasks still at work, readable from
  /// any thread: a task leaves it when its work returns, where the work ran, before it takes
  /// itself off ``tasks`` on the main actor. A check made in between (a test store dropped
  /// just after its last action) does not count it, and a test store that goes away off the
  /// main actor checks and cancels its effects at once, in its test.
  nonisolated package let live: LiveTasks?
  /// The debounced effects waiting, by identifier: the latest effect and the window whose
  /// deadline each newer one moves.
  private var debouncing: [EffectID: Waiting] = [:]
  /// The throttled identifiers: the current window, and the effect waiting for its end.
  private var throttling: [EffectID: Throttle] = [:]

  // Classes, so that the dictionaries above hold one reference each: the runner is generic
  // and not inlinable, and changing a struct in a dictionary through unspecialized code cost
  // microseconds per replaced effect.
  private final class Waiting {
    let window: any EffectWindow
    var effect: Effect<Action>
    var ids: [EffectID]
    var origin: String?
    /// The identifiers the waiting task is cancellable under.
    let taskIDs: [EffectID]
    /// The waiting task's key, whose origin a replacing effect takes.
    var taskKey = -1

    init(
      window: any EffectWindow, effect: Effect<Action>, ids: [EffectID], origin: String?,
      taskIDs: [EffectID]
    ) {
      self.window = window
      self.effect = effect
      self.ids = ids
      self.origin = origin
      self.taskIDs = taskIDs
    }
  }

  private final class Throttle {
    let window: any EffectWindow
    /// The identifiers the latest throttled effect was cancellable under besides the
    /// throttle's own: cancelling one of them (an `ifLet`'s, on dismissal) ends the window.
    var ids: [EffectID]
    var waiting: (effect: Effect<Action>, ids: [EffectID], origin: String?)?
    var hasTimer = false
    /// The identifiers the window's timer task is cancellable under.
    var timerIDs: [EffectID] = []

    init(window: any EffectWindow, ids: [EffectID]) {
      self.window = window
      self.ids = ids
    }
  }

  /// Creates a runner that delivers the actions effects send to `send`, running their
  /// nonisolated work on `executor` when one is given (SE-0417's task executor preference).
  package init(
    executor: (any TaskExecutor)? = nil, send: @escaping @MainActor @Sendable (Action) -> Void
  ) {
    self.executor = executor
    self.live = executor == nil ? nil : LiveTasks()
    self.send = send
  }

  /// The tasks at work, by key, each with what started it: kept under a lock, so that they
  /// can be read, and cancelled, from any thread.
  package final class LiveTasks: Sendable {
    private let tasks = Mutex<[Int: (origin: String?, task: Task<Void, Never>)]>([:])

    fileprivate func insert(_ key: Int, origin: String?, task: Task<Void, Never>) {
      tasks.withLock { $0[key] = (origin, task) }
    }

    fileprivate func setOrigin(_ origin: String, of key: Int) {
      tasks.withLock { $0[key]?.origin = origin }
    }

    fileprivate func remove(_ key: Int) {
      tasks.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// How many tasks are at work.
    package var count: Int { tasks.withLock(\.count) }

    /// What started each task at work that was given an origin, oldest first; with
    /// `uncancelledOnly`, only those not cancelled: a cancelled task may still be winding
    /// down, but it is on its way out.
    package func origins(uncancelledOnly: Bool = false) -> [String] {
      tasks.withLock { tasks in
        tasks.filter { !uncancelledOnly || !$0.value.task.isCancelled }
          .sorted { $0.key < $1.key }.compactMap(\.value.origin)
      }
    }

    /// Cancels every task at work.
    package func cancelAll() {
      for task in tasks.withLock({ $0.values.map(\.task) }) { task.cancel() }
    }
  }

  /// Runs an effect's work, then takes its task off `live` before the task hops back to the
  /// main actor: on the test store's executor, so that once that executor is idle, no
  /// effect whose work has returned counts as at work.
  nonisolated private static func perform(
    _ work: @Sendable (Send<Action>) async -> Void, _ send: Send<Action>, thenRemove key: Int,
    from live: LiveTasks
  ) async {
    await work(send)
    live.remove(key)
  }

  /// The number of effect tasks still running.
  package var runningCount: Int { live?.count ?? tasks.count }

  /// What started each running task that was given an origin, oldest first. Only a runner
  /// with an executor of its own (a test store's, the only one given origins) keeps them.
  package var runningOrigins: [String] { live?.origins() ?? [] }

  /// Starts `effect`; `origin`, when given, says what started it, for
  /// ``runningOrigins``.
  package func run(_ effect: Effect<Action>, origin: String? = nil) {
    run(effect, ids: [], origin: origin)
  }

  private func run(_ effect: Effect<Action>, ids: [EffectID], origin: String?) {
    switch effect.operation {
    case .none:
      return
    case .send(let action):
      send(action)
    case .run(let priority, let work):
      let send = Send(self.send)
      if let live {
        start(priority: priority, ids: ids, origin: origin) { key in
          await Self.perform(work, send, thenRemove: key, from: live)
        }
      } else {
        start(priority: priority, ids: ids, origin: origin) { _ in await work(send) }
      }
    case .cancellable(let id, let cancelInFlight, let inner):
      if cancelInFlight { cancel(id) }
      run(inner, ids: ids + [id], origin: origin)
    case .cancel(let id):
      cancel(id)
    case .merge(let effects):
      for effect in effects { run(effect, ids: ids, origin: origin) }
    case .debounce(let id, let timing, let inner):
      debounce(inner, id: id, timing: timing, ids: ids, origin: origin)
    case .throttle(let id, let timing, let latest, let inner):
      throttle(inner, id: id, timing: timing, latest: latest, ids: ids, origin: origin)
    }
  }

  /// Starts a task for `work`, cancellable under `ids`; returns its key, which `work` is
  /// given too.
  @discardableResult
  private func start(
    priority: TaskPriority? = nil, ids: [EffectID], origin: String?,
    _ work: @escaping @MainActor (Int) async -> Void
  ) -> Int {
    let key = nextKey
    nextKey += 1
    let task: Task<Void, Never>
    if let executor {
      task = Task(executorPreference: executor, priority: priority) {
        @Sendable @MainActor [weak self, executor] in
        // The task holds its executor until it ends, whatever becomes of the runner.
        withExtendedLifetime(executor) {}
        await work(key)
        self?.finished(key)
      }
    } else {
      task = Task(priority: priority) { [weak self] in
        await work(key)
        self?.finished(key)
      }
    }
    tasks[key] = task
    live?.insert(key, origin: origin, task: task)
    if !ids.isEmpty { idsByKey[key] = ids }
    for id in ids { keysByID[id, default: []].insert(key) }
    return key
  }

  private func debounce(
    _ effect: Effect<Action>, id: EffectID, timing: EffectTiming, ids: [EffectID],
    origin: String?
  ) {
    if let waiting = debouncing[id] {
      // A wait is under way: this effect replaces the waiting one and moves the deadline.
      waiting.effect = effect
      waiting.ids = ids
      waiting.origin = origin
      if let origin { live?.setOrigin(origin, of: waiting.taskKey) }
      waiting.window.restart()
      return
    }
    let window = timing.makeWindow()
    let waiting = Waiting(
      window: window, effect: effect, ids: ids, origin: origin, taskIDs: ids + [id])
    debouncing[id] = waiting
    waiting.taskKey = start(ids: ids + [id], origin: origin) { [weak self] _ in
      do {
        repeat { try await window.sleepUntilDeadline() } while !window.isOver
      } catch {
        return  // Cancelled with the identifier, which also dropped the waiting effect.
      }
      self?.endDebounce(id, waiting)
    }
  }

  /// Ends the wait `waiting` for `id`, unless it was dropped meanwhile: a wait whose
  /// deadline came just as it was cancelled wakes uncancelled, and must not end a new wait
  /// for the same identifier.
  private func endDebounce(_ id: EffectID, _ waiting: Waiting) {
    guard debouncing[id] === waiting else { return }
    debouncing[id] = nil
    cancel(id)  // The earlier run of this identifier, if it is still going.
    run(waiting.effect, ids: waiting.ids + [id], origin: waiting.origin)
  }

  private func throttle(
    _ effect: Effect<Action>, id: EffectID, timing: EffectTiming, latest: Bool, ids: [EffectID],
    origin: String?
  ) {
    guard let throttle = throttling[id] else {
      throttling[id] = Throttle(window: timing.makeWindow(), ids: ids)
      run(effect, ids: ids + [id], origin: origin)
      return
    }
    throttle.ids = ids
    if throttle.waiting == nil, !throttle.hasTimer, throttle.window.isOver {
      throttle.window.restart()
      run(effect, ids: ids + [id], origin: origin)
      return
    }
    if throttle.waiting == nil || latest {
      throttle.waiting = (effect, ids, origin)
    }
    guard !throttle.hasTimer else { return }
    throttle.hasTimer = true
    throttle.timerIDs = ids + [id]
    let window = throttle.window
    start(ids: ids + [id], origin: throttle.waiting?.origin ?? origin) { [weak self] _ in
      do {
        repeat { try await window.sleepUntilDeadline() } while !window.isOver
      } catch {
        return
      }
      self?.endThrottleWindow(id, throttle)
    }
  }

  private func endThrottleWindow(_ id: EffectID, _ throttle: Throttle) {
    guard throttling[id] === throttle else { return }
    throttle.hasTimer = false
    guard let waiting = throttle.waiting else { return }
    throttle.waiting = nil
    throttle.window.restart()
    run(waiting.effect, ids: waiting.ids + [id], origin: waiting.origin)
  }

  /// Cancels the tasks under `id`, and drops the debounced and throttled effects waiting
  /// under it: their own identifier, or an outer one (an `ifLet`'s, when a child is
  /// dismissed). A throttle whose identifier or outer identifier it is ends its window too,
  /// so that the next effect runs at once. A dropped wait whose task was not cancelled finds
  /// nothing when it wakes.
  private func cancel(_ id: EffectID) {
    if !debouncing.isEmpty {
      debouncing = debouncing.filter { _, waiting in
        !waiting.taskIDs.contains(id) && !waiting.ids.contains(id)
      }
    }
    if !throttling.isEmpty {
      throttling = throttling.filter { key, throttle in
        key != id && !throttle.ids.contains(id) && !throttle.timerIDs.contains(id)
          && throttle.waiting?.ids.contains(id) != true
      }
    }
    guard let keys = keysByID.removeValue(forKey: id) else { return }
    for key in keys { tasks[key]?.cancel() }
  }

  private func finished(_ key: Int) {
    tasks[key] = nil
    live?.remove(key)
    for id in idsByKey.removeValue(forKey: key) ?? [] {
      keysByID[id]?.remove(key)
      if keysByID[id]?.isEmpty == true { keysByID[id] = nil }
    }
  }

  /// Cancels every running effect.
  package func cancelAll() {
    for task in tasks.values { task.cancel() }
    keysByID.removeAll()
    idsByKey.removeAll()
    debouncing.removeAll()
    throttling.removeAll()
  }

  /// Waits until no effect is running (including effects started while waiting).
  package func waitUntilIdle() async {
    while let task = tasks.values.first {
      await task.value
    }
  }
}
