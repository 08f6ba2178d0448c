import Foundation
import Synchronization

/// A bounded set of threads that run the requests' work in the order it comes: at most
/// ``width`` jobs run at once, and the rest wait in a queue (first in, first out) until a
/// thread is free.
///
/// The Studio's work is blocking (decoding, replaying, encoding), so it runs on threads of its
/// own rather than on the concurrency pool's few. The threads are started when work comes and
/// end when the queue is empty: an idle server holds none, and a burst of requests never
/// starts more than ``width``.
///
/// ```swift
/// let pool = WorkerPool(name: "studio.point", width: 4)
/// pool.submit { print("on a worker thread") }
/// ```
final class WorkerPool: Sendable {
  /// What the pool's threads are called (`Thread.name`).
  let name: String
  /// How many jobs run at once, at most.
  let width: Int
  /// The stack size of each thread: states are encoded recursively, so deep ones need room.
  static let stackSize = 16 << 20

  private struct Queue {
    var jobs: [@Sendable () -> Void] = []
    /// Where the next job to run is in `jobs` (taken jobs are dropped in batches).
    var head = 0
    /// How many threads are running.
    var threads = 0
    /// How many jobs are running now.
    var running = 0
  }

  private let queue = Mutex(Queue())

  /// A pool of at most `width` threads called `name`.
  init(name: String, width: Int) {
    precondition(width > 0, "a worker pool needs at least one thread")
    self.name = name
    self.width = width
  }

  /// Runs `job` on one of the pool's threads: now, if fewer than ``width`` jobs are running,
  /// else when the jobs queued before it have started and a thread is free.
  func submit(_ job: @escaping @Sendable () -> Void) {
    let startsThread = queue.withLock { queue in
      queue.jobs.append(job)
      guard queue.threads < width else { return false }
      queue.threads += 1
      return true
    }
    guard startsThread else { return }
    let thread = Thread { [self] in work() }
    thread.name = name
    thread.stackSize = Self.stackSize
    thread.start()
  }

  /// A thread's loop: takes the next job until the queue is empty, then ends.
  private func work() {
    while let job = next() {
      job()
      queue.withLock { $0.running -= 1 }
    }
  }

  /// The next queued job, counted as running; `nil` (and one thread fewer) when none is left.
  private func next() -> (@Sendable () -> Void)? {
    queue.withLock { queue in
      guard queue.head < queue.jobs.count else {
        queue.jobs.removeAll(keepingCapacity: true)
        queue.head = 0
        queue.threads -= 1
        return nil
      }
      let job = queue.jobs[queue.head]
      queue.head += 1
      if queue.head >= 64, queue.head * 2 >= queue.jobs.count {
        queue.jobs.removeFirst(queue.head)
        queue.head = 0
      }
      queue.running += 1
      return job
    }
  }

  /// How many jobs are running now, and how many wait for a thread.
  var load: (running: Int, waiting: Int) {
    queue.withLock { ($0.running, $0.jobs.count - $0.head) }
  }

  /// Runs `work` on one of the pool's threads and waits for it without holding one of the
  /// concurrency pool's threads.
  ///
  /// Work whose task is cancelled while it waits in the queue (its client hung up) is not
  /// run: it throws `CancellationError` when its turn comes. Work that has started runs to
  /// its end.
  func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    let cancelled = CancelFlag()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        submit {
          guard !cancelled.isSet else {
            continuation.resume(throwing: CancellationError())
            return
          }
          continuation.resume(with: Result { try work() })
        }
      }
    } onCancel: {
      cancelled.set()
    }
  }
}

/// Which of the Studio's worker pools a piece of work runs on.
///
/// Work at one point of a session (a state, a page of actions, a diff, a search) takes
/// milliseconds; work over the whole session (loading it, a bisection, a benchmark, a
/// shrink, the flows, an export, the swimlanes) can take minutes on a long one. Each kind has
/// a pool of its own, so that however many long requests are running or waiting, a state is
/// answered as soon as one of the point pool's threads is free.
enum WorkKind: Sendable {
  /// Work at one point of a session.
  case point
  /// Work that reads or replays the whole session.
  case wholeSession
  /// Work whose answer holds a whole session or state: an export, a full state. At most
  /// two run at once, so that the memory their answers hold is bounded (eight exports of a
  /// million actions at once held 5 GB), and never on the pools that answer steps.
  case largeAnswer
  /// Work on live apps' messages: decoding them, reducing and recording actions, decoding
  /// and encoding states, hashing checkpoints. Apps that send as fast as they can, or send
  /// large states, keep this pool busy and never the other two, so the page is answered
  /// meanwhile; an app waits for its turn (TCP holds what it sends).
  case live

  /// How many jobs of each kind run at once: 4, or the number of cores if more. Four lets
  /// the page's own requests (a state, a page of actions, a diff, a window) run together, and
  /// several long requests share the machine; more than the cores only adds switching.
  static let width = max(4, ProcessInfo.processInfo.activeProcessorCount)

  /// The pool for this kind of work.
  var pool: WorkerPool {
    switch self {
    case .point: Self.pointPool
    case .wholeSession: Self.wholeSessionPool
    case .live: Self.livePool
    case .largeAnswer: Self.largeAnswerPool
    }
  }

  private static let pointPool = WorkerPool(name: "retrace.studio.point", width: width)
  private static let wholeSessionPool = WorkerPool(name: "retrace.studio.session", width: width)
  private static let livePool = WorkerPool(name: "retrace.studio.live", width: width)
  private static let largeAnswerPool = WorkerPool(name: "retrace.studio.large", width: 2)
}

/// A flag a task's cancellation sets, read by the thread that would start its work.
final class CancelFlag: Sendable {
  private let flag = Atomic(false)

  /// Whether it is set.
  var isSet: Bool { flag.load(ordering: .acquiring) }

  /// Sets it.
  func set() { flag.store(true, ordering: .releasing) }
}
