import RetraceDependencies
import Synchronization

/// The clock a test store's effects find as `continuousClock` and `suspendingClock`: the
/// store's `TestClock`, noting when each effect asleep on it is due, so that
/// `advance(by:)` can wake them one deadline at a time and let each run before the next.
///
/// `TestClock.advance(by:)` wakes every sleep within the interval in one call, yielding a
/// fixed number of times between them: a timer whose task has not run again by then misses
/// its later ticks.
final class EffectClock: Clock {
  typealias Instant = TestClock<Duration>.Instant

  /// The store's clock, which keeps the time.
  let base: TestClock<Duration>
  private let sleeps = Mutex(Sleeps())

  private struct Sleeps {
    var next = 0
    var deadlines: [Int: Instant] = [:]
  }

  init(base: TestClock<Duration>) {
    self.base = base
  }

  var now: Instant { base.now }
  var minimumResolution: Duration { base.minimumResolution }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    // A sleep until the present or the past returns at once, as on a real clock. The test
    // clock would hold it until it moves, and wake it again at once each time an effect
    // sleeps for zero in a loop: an advance would never end.
    if deadline <= base.now {
      await Task.yield()
      try Task.checkCancellation()
      return
    }
    let key = sleeps.withLock { sleeps in
      defer { sleeps.next += 1 }
      sleeps.deadlines[sleeps.next] = deadline
      return sleeps.next
    }
    defer { _ = sleeps.withLock { $0.deadlines.removeValue(forKey: key) } }
    try await base.sleep(until: deadline, tolerance: tolerance)
  }

  /// The earliest deadline an effect sleeps until, if any sleeps.
  var nextDeadline: Instant? {
    sleeps.withLock { $0.deadlines.values.min() }
  }
}
