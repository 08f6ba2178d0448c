import Foundation
import RetraceDebugger
import Synchronization

/// Runs `work` on one of the Studio's worker threads (``WorkerPool``) and waits for it
/// without holding one of the concurrency pool's threads: a long request (a bisection of a
/// million actions) runs on the ``WorkKind/wholeSession`` pool, so it never keeps a short one
/// (the state at N, on the ``WorkKind/point`` pool) waiting, however few cores the machine has.
///
/// The task's ``TrapReport/context`` (the request being answered) is the worker thread's
/// while it runs `work`: a trap in a domain's reducer says which request it stopped in.
func offload<T: Sendable>(
  _ kind: WorkKind = .point, _ work: @escaping @Sendable () throws -> T
) async throws -> T {
  let context = TrapReport.context
  return try await kind.pool.run { try TrapReport.running(context, work) }
}

/// `work`'s value if it comes by `deadline`, else `nil`: the work goes on (a summary it
/// computes is kept for the next request), but the caller waits no longer.
///
/// Unlike ``withDeadline(_:_:)``, which cancels its body and waits for it to end, this never
/// waits past the deadline, whatever `work` waits on (a computation another request
/// started, which no cancellation ends).
func value<T: Sendable>(
  by deadline: ContinuousClock.Instant, of work: @escaping @Sendable () async throws -> T
) async throws -> T? {
  let task = Task { try await work() }
  let answer = FirstAnswer<T?>()
  return try await withCheckedThrowingContinuation { continuation in
    answer.start(continuation)
    Task { answer.give(await task.result.map { $0 }) }
    Task {
      try? await Task.sleep(until: deadline, clock: .continuous)
      answer.give(.success(nil))
    }
  }
}

/// A continuation resumed with the first result given; the later ones are dropped.
private final class FirstAnswer<T: Sendable>: Sendable {
  private let state = Mutex<(CheckedContinuation<T, any Error>?, Result<T, any Error>?)>((nil, nil))

  /// Waits with `continuation`: resumed now if a result was given before it.
  func start(_ continuation: CheckedContinuation<T, any Error>) {
    let early = state.withLock { state -> Result<T, any Error>? in
      if let result = state.1 {
        state.1 = nil
        return result
      }
      state.0 = continuation
      return nil
    }
    if let early { continuation.resume(with: early) }
  }

  /// Gives a result: the first one resumes the waiter.
  func give(_ result: Result<T, any Error>) {
    let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
      defer { state.0 = nil }
      if state.0 == nil, state.1 == nil { state.1 = result }
      return state.0
    }
    waiting?.resume(with: result)
  }
}

/// Lets go of `value` on a thread of its own: freeing a large state (a million transactions,
/// each with its strings) takes milliseconds that a request need not wait for.
///
/// The value is moved into a box that the release thread empties, so that it is freed there
/// whichever thread lets go of the box last.
///
/// With `returningMemory` (a whole session let go of), once nothing else waits to be freed,
/// the memory freed is given back to the system (``returnFreedMemory()``).
func releaseInBackground<T: Sendable>(_ value: consuming T, returningMemory: Bool = false) {
  let box = ReleaseBox(value)
  releasePool.submit {
    _ = box.take()
    if returningMemory, releasePool.load.waiting == 0 { returnFreedMemory() }
  }
}

/// Gives the memory that has been freed back to the system, where the allocator keeps it.
///
/// glibc's allocator keeps what its per-thread arenas free for their next allocations, and
/// returns little of it on its own: after live sessions that ran on many threads end and are
/// removed, the Studio's resident memory stayed hundreds of MB above what it holds (460 MB
/// for 66 MB in use after 20 sessions of 20,000 actions). `malloc_trim` returns the free
/// pages of every arena. It is looked up at run time (Swift's `Glibc` module leaves
/// `malloc.h` out); elsewhere this does nothing.
func returnFreedMemory() {
  _ = mallocTrim?(0)
}

/// glibc's `malloc_trim`, when the process has it.
private let mallocTrim: (@convention(c) (Int) -> Int32)? = {
  #if os(Linux)
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else {
      return nil
    }
    return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
  #else
    return nil
  #endif
}()

/// The thread that ``releaseInBackground(_:)`` frees values on.
private let releasePool = WorkerPool(name: "retrace.studio.release", width: 1)

/// A value handed to the release thread, which takes it out.
private final class ReleaseBox<T: Sendable>: Sendable {
  private let value: Mutex<T?>

  init(_ value: consuming T) {
    self.value = Mutex(value)
  }

  /// The value, leaving the box empty.
  func take() -> T? {
    value.withLock { value in
      defer { value = nil }
      return value
    }
  }
}

/// A value computed once, on first request; requests that come while it is being computed
/// wait for the same computation.
final class LazyValue<T: Sendable>: Sendable {
  private let make: @Sendable () async throws -> T
  private let task = Mutex<Task<T, any Error>?>(nil)
  private let computed = Mutex<T?>(nil)

  /// A value that `make` computes off the concurrency pool, on the pool for `kind`
  /// (``offload(_:_:)``).
  init(on kind: WorkKind = .point, offloading make: @escaping @Sendable () throws -> T) {
    self.make = { try await offload(kind, make) }
  }

  /// A value that `make` computes.
  init(_ make: @escaping @Sendable () async throws -> T) {
    self.make = make
  }

  /// The value, computing it if no request has yet; a failure is remembered like a value.
  var value: T {
    get async throws {
      let make = self.make
      let task = self.task.withLock { task in
        if let task { return task }
        let started = Task { [self] in
          let value = try await make()
          self.computed.withLock { $0 = value }
          return value
        }
        task = started
        return started
      }
      return try await task.value
    }
  }

  /// The value if it has been computed, without waiting or starting it.
  var ready: T? { computed.withLock { $0 } }

  /// Starts computing the value without waiting for it.
  func start() {
    Task { _ = try? await value }
  }
}

/// An error the API answers with: an HTTP status and one line.
struct APIError: Error, Sendable {
  /// The HTTP status: 400, 401, 403, 404 or 405.
  var status: Int
  /// What went wrong, for the `error` field.
  var message: String

  init(_ status: Int, _ message: String) {
    self.status = status
    self.message = message
  }
}
