import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a store's timestamps come from.
///
/// Recorders see a timestamp with every reduced action. The store reads the clock only when
/// a recorder is attached, so an unrecorded store pays nothing for it. A fixed clock makes
/// recorded traces reproducible byte for byte.
///
/// ```swift
/// let store = Store(initialState: 0, reducer: counter,
///                   clock: .fixed(start: 1_763_771_000, interval: 0.25))
/// ```
public struct StoreClock: Sendable {
  /// Returns the time, in seconds since 1970-01-01T00:00:00Z, at which the action with the
  /// given sequence number is reduced.
  public let now: @Sendable (_ sequence: UInt64) -> Double

  /// Creates a clock from a function of the sequence number.
  ///
  /// - Parameter now: The time in seconds since 1970 for an action's sequence number.
  public init(_ now: @escaping @Sendable (_ sequence: UInt64) -> Double) {
    self.now = now
  }

  /// The system's wall clock.
  public static let system = StoreClock { _ in
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
  }

  /// A clock that starts at `start` and advances by `interval` seconds per action.
  ///
  /// - Parameters:
  ///   - start: The time of action 0, in seconds since 1970.
  ///   - interval: The seconds between two actions.
  /// - Returns: The clock.
  public static func fixed(start: Double, interval: Double) -> StoreClock {
    StoreClock { start + Double($0) * interval }
  }

  /// A clock that reads the time from `clock`: `start` plus the time `clock` has moved
  /// since the first action it timed. With a test clock (swift-clocks' `TestClock`) a
  /// trace's times follow the test's `advance(by:)`; with `ContinuousClock` they never go
  /// back, even when the system's time is set back.
  ///
  /// ```swift
  /// let clock = TestClock()
  /// let store = Store(initialState: Search.State(), reducer: Search(),
  ///                   clock: StoreClock(clock, startingAt: 1_763_771_000))
  /// ```
  ///
  /// `clock` is first read when the store first needs a time, that is, when a recorder sees
  /// its first action: a store that records nothing never reads it (so a test's
  /// unimplemented clock is not touched by a store that does not record).
  ///
  /// - Parameters:
  ///   - clock: The clock to follow.
  ///   - start: The time in seconds since 1970 of the first action timed; the system's time
  ///     then by default.
  public init<C: Clock<Duration>>(_ clock: C, startingAt start: Double? = nil) {
    let origin = Mutex<(instant: C.Instant, start: Double)?>(nil)
    self.init { _ in
      let now = clock.now
      let (first, start) = origin.withLock { origin in
        if let origin { return origin }
        let first = (instant: now, start: start ?? StoreClock.system.now(0))
        origin = first
        return first
      }
      let elapsed = first.duration(to: now).components
      return start + Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
  }
}
