import IssueReporting

/// Effects in time: debounced, throttled and repeated on a clock.
///
/// Each operator takes the clock to wait on, so that a test can pass a `TestClock` (from
/// swift-clocks, as `TestStore/clock` is) and move time by hand, and an app the
/// `continuousClock` of its dependencies. See <doc:RunningEffects>.
extension Effect {
  /// Returns this effect delayed until `interval` has passed on `clock` without another
  /// effect debounced with the same `id`: a search field's request sent only once the user
  /// stops typing, as TCA's `debounce(id:for:scheduler:)`.
  ///
  /// ```swift
  /// case .queryChanged(let query):
  ///   state.query = query
  ///   return .run { send in
  ///     await send(.searched(try await client.search(query)))
  ///   } catch: { _, send in
  ///     await send(.searchFailed)
  ///   }
  ///   .debounce(id: SearchID(), for: .milliseconds(300), clock: clock)
  /// ```
  ///
  /// A newer effect with the same `id` replaces the waiting one and restarts the wait, and
  /// the effect that finally starts cancels any earlier one of the same `id` still running.
  /// Replacing costs no task and no timer: one waiting task per `id` reads the latest
  /// deadline when it wakes. ``cancel(id:)`` with the same `id` stops the wait and the work.
  /// A zero or negative interval waits for none: the effect starts at once, in place of any
  /// waiting or running under `id`. One longer than a hundred years waits a hundred years.
  ///
  /// - Parameters:
  ///   - id: The identifier shared by the effects that replace each other.
  ///   - interval: The quiet time before the effect starts.
  ///   - clock: The clock to wait on.
  /// - Returns: The debounced effect.
  public func debounce<C: Clock<Duration>>(
    id: some Hashable & Sendable, for interval: Duration, clock: C
  ) -> Self {
    if case .none = operation { return self }
    // No wait, not even until the clock's present, which a test clock holds until it moves.
    if interval <= .zero { return cancellable(id: id, cancelInFlight: true) }
    return Self(.debounce(EffectID(id), EffectTiming(interval: interval, clock: clock), self))
  }

  /// Returns this effect started at most once per `interval` on `clock` among the effects
  /// throttled with the same `id`, as TCA's `throttle(id:for:scheduler:latest:)`.
  ///
  /// The first effect starts at once and opens a window of `interval`. Effects that arrive
  /// inside the window wait for its end, and only one of them starts there: the latest when
  /// `latest` is true, the first otherwise; that start opens the next window. Holding the
  /// waiting effect costs no task per effect.
  ///
  /// - Parameters:
  ///   - id: The identifier shared by the effects throttled together.
  ///   - interval: The shortest time between two starts.
  ///   - clock: The clock to wait on.
  ///   - latest: Whether the latest effect of a window starts at its end (otherwise the
  ///     first).
  /// - Returns: The throttled effect.
  public func throttle<C: Clock<Duration>>(
    id: some Hashable & Sendable, for interval: Duration, clock: C, latest: Bool
  ) -> Self {
    if case .none = operation { return self }
    return Self(
      .throttle(EffectID(id), EffectTiming(interval: interval, clock: clock), latest: latest, self))
  }

  /// An effect that sends `action()` every `interval` on `clock` until it is cancelled with
  /// `id`: a timer, as a TCA feature writes with `clock.timer(interval:)`.
  ///
  /// ```swift
  /// case .startTimer:
  ///   return .timer(id: TimerID(), every: .seconds(1), clock: clock) { .tick }
  /// case .stopTimer:
  ///   return .cancel(id: TimerID())
  /// ```
  ///
  /// The ticks are due at whole multiples of `interval` after the start, so a late tick
  /// does not delay the ones after it. Starting a timer with the `id` of a running one
  /// replaces it. An interval that is not positive is a programming error, reported as an
  /// issue (a test fails), and the timer does not start; one longer than a hundred years
  /// is a hundred years.
  ///
  /// - Parameters:
  ///   - id: The identifier that stops the timer.
  ///   - interval: The time between ticks.
  ///   - clock: The clock to wait on.
  ///   - action: Makes the action sent on each tick.
  /// - Returns: The timer effect.
  public static func timer<C: Clock<Duration>>(
    id: some Hashable & Sendable, every interval: Duration, clock: C,
    send action: @escaping @Sendable () -> Action
  ) -> Self where Action: Sendable {
    guard interval > .zero else {
      reportIssue("A timer's interval must be positive; \(interval) would send without end.")
      return .none
    }
    let interval = EffectTiming.clamped(interval)
    return Self(
      .run(nil) { send in
        var deadline = clock.now.advanced(by: interval)
        while (try? await clock.sleep(until: deadline, tolerance: nil)) != nil {
          await send(action())
          deadline = deadline.advanced(by: interval)
        }
      }
    )
    .cancellable(id: id, cancelInFlight: true)
  }
}

/// How long a debounced or throttled effect waits, and on which clock.
@usableFromInline
struct EffectTiming: Sendable {
  let interval: Duration
  /// The clock, kept as an existential: a clock is a small value or a reference (a
  /// `TestClock`), stored in place, so that describing a debounce allocates nothing more.
  let clock: any Clock<Duration>

  init<C: Clock<Duration>>(interval: Duration, clock: C) {
    self.interval = Self.clamped(interval)
    self.clock = clock
  }

  /// The longest wait: a hundred years. A longer one would overflow the clock's instants.
  static let longest = Duration.seconds(100 * 366 * 24 * 3600)

  /// `interval` within 0 ... ``longest``: a negative wait is none, and a wait beyond the
  /// clock's range is the longest.
  static func clamped(_ interval: Duration) -> Duration {
    min(max(interval, .zero), longest)
  }

  /// Makes the waiting state of one identifier, on this clock.
  @MainActor
  func makeWindow() -> any EffectWindow {
    func window<C: Clock<Duration>>(_ clock: C) -> any EffectWindow {
      ClockWindow(clock: clock, interval: interval)
    }
    return window(clock)
  }
}

/// The waiting state of one debounce or throttle identifier: a deadline on a clock, which
/// moves without a new task.
@MainActor
protocol EffectWindow: AnyObject {
  /// Moves the deadline to `interval` from now.
  func restart()
  /// Whether the deadline has passed.
  var isOver: Bool { get }
  /// Sleeps until the current deadline (or longer); throws when cancelled.
  func sleepUntilDeadline() async throws
}

@MainActor
final class ClockWindow<C: Clock<Duration>>: EffectWindow {
  let clock: C
  let interval: Duration
  var deadline: C.Instant

  init(clock: C, interval: Duration) {
    self.clock = clock
    self.interval = interval
    self.deadline = clock.now.advanced(by: interval)
  }

  func restart() {
    deadline = clock.now.advanced(by: interval)
  }

  var isOver: Bool { clock.now >= deadline }

  func sleepUntilDeadline() async throws {
    try await clock.sleep(until: deadline, tolerance: nil)
  }
}
