import Synchronization

/// A handle on a subscription to a store's changes; see ``Store/subscribe(_:)``.
///
/// The subscription ends when you call ``cancel()`` or when the handle is released, whichever
/// comes first (like Combine's `AnyCancellable`), so keep the handle as long as you want
/// updates.
public final class StoreSubscription: Sendable {
  let flag = CancellationFlag()
  /// Asks the store to drop its cancelled subscribers, and with them their callbacks, which
  /// may hold the store itself (a callback that sends back to its store): without it, such a
  /// store and its callback would keep each other alive after the last action.
  private let onCancel: @Sendable () -> Void

  init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
  }

  /// Ends the subscription. The callback is not called again. Calling it twice is harmless.
  ///
  /// The store lets go of the callback soon after, on the main actor.
  public func cancel() {
    if flag.cancel() { onCancel() }
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

  /// Sets the flag; returns whether this call set it (the first one does).
  @discardableResult
  func cancel() -> Bool {
    !cancelled.exchange(true, ordering: .relaxed)
  }

  @inlinable
  var isCancelled: Bool {
    cancelled.load(ordering: .relaxed)
  }
}

/// The last value a scoped subscription saw, kept where its closure can change it without
/// run-time exclusivity checks: only that closure reads or writes it, on the main actor,
/// one call at a time (the store never calls a subscriber from inside another).
@usableFromInline
final class LastValue<Value> {
  @usableFromInline @exclusivity(unchecked) var value: Value

  @usableFromInline
  init(_ value: Value) {
    self.value = value
  }
}
