import Foundation
import Synchronization

/// Runs `work` on one of the Studio's worker threads (``WorkerPool``) and waits for it
/// without holding one of the concurrency pool's threads: a long request (a bisection of a
/// million actions) runs on the ``WorkKind/wholeSession`` pool, so it never keeps a short one
/// (the state at N, on the ``WorkKind/point`` pool) waiting, however few cores the machine has.
func offload<T: Sendable>(
  _ kind: WorkKind = .point, _ work: @escaping @Sendable () throws -> T
) async throws -> T {
  try await kind.pool.run(work)
}

/// A value computed once, on first request; requests that come while it is being computed
/// wait for the same computation.
final class Once<T: Sendable>: Sendable {
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
