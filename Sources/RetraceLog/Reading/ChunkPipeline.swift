import Dispatch
import Synchronization

/// Where ``ChunkPipeline`` runs its work.
private let chunkPipelineQueue = DispatchQueue(
  label: "Retrace.ChunkPipeline", attributes: .concurrent)

/// Works on a trace's chunks ahead of the thread that consumes them: `take(i)` returns the
/// output for chunk `i`, in order, while up to `window` later chunks are being decoded on
/// other threads.
///
/// Reading a trace is decoding (most of the cost, independent per chunk) followed by
/// reducing (in order, on one thread). Decoding the next chunks while the consumer reduces
/// this one uses both cores of a 2-core machine, and never holds more than `window` decoded
/// chunks beyond the one being consumed.
///
/// The work runs on a private queue (which gets threads of its own), not on the global
/// queues, so that a consumer that blocks in `take` on one of those threads, or on the
/// Swift concurrency pool, can never starve the work it waits for.
@usableFromInline
final class ChunkPipeline<Output: Sendable>: Sendable {
  /// How many chunks there are.
  @usableFromInline let count: Int
  private let window: Int
  private let work: @Sendable (Int) -> Output
  private let outputs: Mutex<[Output?]>
  private let ready: [DispatchSemaphore]
  private let cancelled = Atomic<Bool>(false)
  private let running = DispatchGroup()

  /// Starts the work for the first `window` chunks of `count`.
  ///
  /// - Parameters:
  ///   - count: How many chunks there are.
  ///   - window: How many chunks may be worked on ahead of the consumer.
  ///   - work: Produces the output for chunk `i`; called on other threads, once per chunk.
  @usableFromInline
  init(count: Int, window: Int, work: @escaping @Sendable (Int) -> Output) {
    self.count = count
    self.window = max(window, 1)
    self.work = work
    outputs = Mutex(Array(repeating: nil, count: count))
    ready = (0..<count).map { _ in DispatchSemaphore(value: 0) }
    for index in 0..<min(self.window, count) { start(index) }
  }

  private func start(_ index: Int) {
    chunkPipelineQueue.async(group: running) { [self] in
      if !cancelled.load(ordering: .relaxed) {
        let output = work(index)
        outputs.withLock { $0[index] = output }
      }
      ready[index].signal()
    }
  }

  /// The output for chunk `index`, waiting until it is ready; call it once per chunk, in
  /// order, from one thread.
  @usableFromInline
  func take(_ index: Int) -> Output {
    if index + window < count { start(index + window) }
    ready[index].wait()
    return outputs.withLock { outputs in
      defer { outputs[index] = nil }
      return outputs[index]!
    }
  }

  /// Stops starting work and waits for the chunks being worked on; call it once the
  /// consumer is done, early or not.
  @usableFromInline
  func finish() {
    cancelled.store(true, ordering: .relaxed)
    running.wait()
  }
}
