import Synchronization

/// A handle on a subscription to a store's changes; see ``Store/subscribe(_:)``.
///
/// The subscription ends when you call ``cancel()`` or when the handle is released, whichever
/// comes first (like Combine's `AnyCancellable`), so keep the handle as long as you want
/// updates.
public final class StoreSubscription: Sendable {
  let flag = CancellationFlag()

  init() {}

  /// Ends the subscription. The callback is not called again. Calling it twice is harmless.
  public func cancel() {
    flag.cancel()
  }

  /// Whether the subscription has ended.
  public var isCancelled: Bool {
    flag.isCancelled
  }

  deinit {
    flag.cancel()
  }
}

/// The flag the store checks before each callback; shared with the handle, so that the
/// store does not keep the handle alive.
@usableFromInline
final class CancellationFlag: Sendable {
  @usableFromInline let cancelled = Atomic<Bool>(false)

  func cancel() {
    cancelled.store(true, ordering: .relaxed)
  }

  @inlinable
  var isCancelled: Bool {
    cancelled.load(ordering: .relaxed)
  }
}
