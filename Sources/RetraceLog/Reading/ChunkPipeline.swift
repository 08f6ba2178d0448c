import Dispatch
import Foundation
import Synchronization

/// Works on a trace's chunks ahead of the thread that consumes them: `take(i)` returns the
/// output for chunk `i`, in order, while up to `window` later chunks are being decoded on
/// other threads.
///
/// Reading a trace is decoding (most of the cost, independent per chunk) followed by
/// reducing (in order, on one thread). Decoding the next chunks while the consumer reduces
/// this one uses both cores of a 2-core machine, and never holds more than `window` decoded
/// chunks beyond the one being consumed.
///
/// The work runs on threads of the pipeline's own (one per core, at most one per chunk),
/// not on Dispatch's queues. On Linux a concurrent queue shares the global pool's threads,
/// one per core, with Swift concurrency's executor: a consumer on that pool left a 2-core
/// machine a single thread to decode with, and consumers blocked in `take` on every thread
/// of the pool could starve the work they wait for.
@usableFromInline
final class ChunkPipeline<Output: Sendable>: Sendable {
  /// How many chunks there are.
  @usableFromInline let count: Int
  private let work: @Sendable (Int) -> Output
  /// The outputs not yet taken, and the next chunk a thread will work on.
  private let state: Mutex<(outputs: [Output?], next: Int)>
  private let ready: [DispatchSemaphore]
  /// One signal for each chunk a thread may start: `window` at first, one more for each
  /// chunk taken.
  private let room = DispatchSemaphore(value: 0)
  private let cancelled = Atomic<Bool>(false)
  private let running = DispatchGroup()
  private let threads: Int

  /// Starts the work for the first `window` chunks of `count`.
  ///
  /// - Parameters:
  ///   - count: How many chunks there are.
  ///   - window: How many chunks may be worked on ahead of the consumer.
  ///   - work: Produces the output for chunk `i`; called on other threads, once per chunk.
  @usableFromInline
  init(count: Int, window: Int, work: @escaping @Sendable (Int) -> Output) {
    let window = max(window, 1)
    self.count = count
    self.work = work
    state = Mutex((Array(repeating: nil, count: count), 0))
    ready = (0..<count).map { _ in DispatchSemaphore(value: 0) }
    threads = min(window, count, max(ProcessInfo.processInfo.activeProcessorCount, 2))
    for _ in 0..<min(window, count) { room.signal() }
    for _ in 0..<threads {
      running.enter()
      let thread = Thread { [self] in
        Self.yieldToTheConsumer()
        run()
        running.leave()
      }
      thread.name = "Retrace.ChunkPipeline"
      thread.start()
    }
  }

  /// Lowers the calling thread's priority below the consumer's, so that a consumer that
  /// cannot keep up (a slow reducer) keeps its core, and the work takes what is left. On
  /// Linux a thread has a nice value of its own, which `setpriority` of "the calling
  /// process" (0) sets.
  private static func yieldToTheConsumer() {
    #if os(Linux)
      _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
    #endif
  }

  /// A thread's loop: the next chunk, whenever there is room for it, until none is left or
  /// the consumer is done.
  private func run() {
    while true {
      room.wait()
      guard !cancelled.load(ordering: .relaxed) else { return }
      let index = state.withLock { state in
        defer { state.next += 1 }
        return state.next
      }
      guard index < count else { return }
      let output = work(index)
      state.withLock { $0.outputs[index] = output }
      ready[index].signal()
    }
  }

  /// The output for chunk `index`, waiting until it is ready; call it once per chunk, in
  /// order, from one thread, and never after ``finish()`` (which stops the work it would
  /// wait for: a trap rather than a hang).
  @usableFromInline
  func take(_ index: Int) -> Output {
    precondition(!cancelled.load(ordering: .relaxed), "ChunkPipeline.take after finish()")
    ready[index].wait()
    let output = state.withLock { state in
      defer { state.outputs[index] = nil }
      return state.outputs[index]!
    }
    // Room for one more chunk; the signals past the last chunk let the threads end.
    room.signal()
    return output
  }

  /// Stops starting work and waits for the chunks being worked on; call it once the
  /// consumer is done, early or not.
  @usableFromInline
  func finish() {
    cancelled.store(true, ordering: .relaxed)
    for _ in 0..<threads { room.signal() }
    running.wait()
  }
}
