import Dispatch
import Synchronization

/// Where a test store's effects run their nonisolated work: one job at a time, on a queue
/// of their own, counting the jobs not yet run.
///
/// When the count is zero, every effect is waiting (on the clock, on work outside the store,
/// for the main actor) or done. The test store waits for that before it moves the clock and
/// after it sends an action, so that a test does not depend on how fast a loaded machine
/// schedules the effects' tasks. TCA reaches the same end by running all of a test's tasks
/// on the main thread (`useMainSerialExecutor`); a task executor preference keeps it to this
/// store's effects and their child tasks.
final class EffectExecutor: TaskExecutor {
  private let queue = DispatchQueue(label: "RetraceTesting.TestStore.effects")
  private let pending = Atomic<Int>(0)
  private let enqueued = Atomic<Int>(0)

  func enqueue(_ job: consuming ExecutorJob) {
    pending.add(1, ordering: .sequentiallyConsistent)
    enqueued.add(1, ordering: .sequentiallyConsistent)
    let job = UnownedJob(job)
    queue.async { [self] in
      job.runSynchronously(on: asUnownedTaskExecutor())
      pending.subtract(1, ordering: .sequentiallyConsistent)
    }
  }

  /// Whether no job is queued or running.
  var isIdle: Bool { pending.load(ordering: .sequentiallyConsistent) == 0 }

  /// How many jobs have been queued, ever: while it moves, the effects are still at work.
  var jobCount: Int { enqueued.load(ordering: .sequentiallyConsistent) }
}
