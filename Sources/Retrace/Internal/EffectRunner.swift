/// Runs effects for a store (and for the test store), keeping track of their tasks so that
/// they can be cancelled by identifier and awaited.
@MainActor
package final class EffectRunner<Action: Sendable> {
  private var tasks: [Int: Task<Void, Never>] = [:]
  private var keysByID: [EffectID: Set<Int>] = [:]
  private var nextKey = 0
  private let send: @MainActor @Sendable (Action) -> Void

  /// Creates a runner that delivers the actions effects send to `send`.
  package init(send: @escaping @MainActor @Sendable (Action) -> Void) {
    self.send = send
  }

  /// The number of effect tasks still running.
  package var runningCount: Int { tasks.count }

  /// Starts `effect`.
  package func run(_ effect: Effect<Action>) {
    run(effect, ids: [])
  }

  private func run(_ effect: Effect<Action>, ids: [EffectID]) {
    switch effect.operation {
    case .none:
      return
    case .send(let action):
      send(action)
    case .run(let priority, let work):
      let key = nextKey
      nextKey += 1
      let send = Send(self.send)
      let task = Task(priority: priority) { [weak self] in
        await work(send)
        self?.finished(key)
      }
      tasks[key] = task
      for id in ids { keysByID[id, default: []].insert(key) }
    case .cancellable(let id, let cancelInFlight, let inner):
      if cancelInFlight { cancel(id) }
      run(inner, ids: ids + [id])
    case .cancel(let id):
      cancel(id)
    case .merge(let effects):
      for effect in effects { run(effect, ids: ids) }
    }
  }

  private func cancel(_ id: EffectID) {
    guard let keys = keysByID.removeValue(forKey: id) else { return }
    for key in keys { tasks[key]?.cancel() }
  }

  private func finished(_ key: Int) {
    tasks[key] = nil
    for id in Array(keysByID.keys) {
      keysByID[id]?.remove(key)
      if keysByID[id]?.isEmpty == true { keysByID[id] = nil }
    }
  }

  /// Cancels every running effect.
  package func cancelAll() {
    for task in tasks.values { task.cancel() }
    keysByID.removeAll()
  }

  /// Waits until no effect is running (including effects started while waiting).
  package func waitUntilIdle() async {
    while let task = tasks.values.first {
      await task.value
    }
  }
}
