import Dependencies
import IdentifiedCollections
import Retrace
import Synchronization
import Testing

@testable import RetraceTesting

// Effects at their edges: a wait cancelled as it comes due, identifiers inside a collection's
// rows, a debounce of no time, and an advance that would never end.

private struct EdgeState: Equatable, Sendable {
  var got: [Int] = []
}

private enum EdgeAction: Equatable, Sendable {
  case search(Int)
  case stop
  case got(Int)
  case spin
}

/// A clock whose sleeps wake only when the test sets its time, and whose wakes are only
/// resumed there: their tasks run later, as a real clock's do.
private final class EdgeManualClock: Clock, Sendable {
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeps {
    var now = Instant(offset: .zero)
    var waiting: [(deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = []
  }
  private let sleeps = Mutex(Sleeps())

  var now: Instant { sleeps.withLock { $0.now } }
  var minimumResolution: Duration { .zero }
  var sleeping: Int { sleeps.withLock { $0.waiting.count } }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try await withCheckedThrowingContinuation { continuation in
      let now = sleeps.withLock { sleeps in
        if deadline > sleeps.now { sleeps.waiting.append((deadline, continuation)) }
        return sleeps.now
      }
      if deadline <= now { continuation.resume() }
    }
  }

  /// Moves the time to `offset` and resumes the sleeps due by then.
  func set(_ offset: Duration) {
    let due = sleeps.withLock { sleeps in
      sleeps.now = Instant(offset: offset)
      let due = sleeps.waiting.filter { $0.deadline <= sleeps.now }
      sleeps.waiting.removeAll { $0.deadline <= sleeps.now }
      return due
    }
    for sleep in due { sleep.continuation.resume() }
  }
}

@MainActor
struct EffectEdgeTests {
  /// A wait whose deadline came just as it was cancelled wakes uncancelled: it must not
  /// start the new wait of the same identifier before its time.
  @Test func aWaitCancelledAsItComesDueLeavesTheNextWaitItsTime() async throws {
    let clock = EdgeManualClock()
    let store = Store(
      initialState: EdgeState(),
      reducer: Reduce<EdgeState, EdgeAction> { state, action in
        switch action {
        case .search(let query):
          return .send(.got(query)).debounce(id: "search", for: .seconds(1), clock: clock)
        case .stop:
          return .cancel(id: "search")
        case .got(let query):
          state.got.append(query)
          return .none
        case .spin:
          return .none
        }
      })
    store.send(.search(1))
    let deadline = ContinuousClock.now + .seconds(30)
    while clock.sleeping == 0, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(1))
    }
    try #require(clock.sleeping == 1)
    clock.set(.seconds(1))  // The first wait is due; its task has not run yet.
    store.send(.stop)
    store.send(.search(2))  // A new wait, due at 2 s.
    try await Task.sleep(for: .milliseconds(100))
    #expect(store.state.got == [], "the new wait ended at 1 s")
    while clock.sleeping == 0, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(1))
    }
    clock.set(.seconds(2))
    while store.state.got.isEmpty, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(1))
    }
    #expect(store.state.got == [2])
  }

  /// Two rows of a `forEach` use the same identifiers for their timers and searches: each
  /// row's are its own, as in TCA.
  @Test func eachRowHasItsOwnTimerAndSearch() async {
    let store = TestStore(
      initialState: EdgeRowList(rows: [EdgeRow(id: 1), EdgeRow(id: 2)]), reducer: edgeRowList)
    await store.send(.row(id: 1, action: .startTimer))
    await store.send(.row(id: 2, action: .startTimer))
    await store.advance(by: .seconds(1))
    await store.receive(.row(id: 1, action: .tick)) { $0.rows[id: 1]?.ticks = 1 }
    await store.receive(.row(id: 2, action: .tick)) { $0.rows[id: 2]?.ticks = 1 }
    // EdgeRow 1's stop stops row 1's timer only.
    await store.send(.row(id: 1, action: .stopTimer))
    await store.advance(by: .seconds(1))
    await store.receive(.row(id: 2, action: .tick)) { $0.rows[id: 2]?.ticks = 2 }
    await store.send(.row(id: 2, action: .stopTimer))
    // Both rows search; removing row 1 drops its search, not row 2's.
    await store.send(.row(id: 1, action: .type("a")))
    await store.send(.row(id: 2, action: .type("b")))
    await store.send(.remove(1)) { $0.rows.remove(id: 1) }
    await store.advance(by: .seconds(1))
    await store.receive(.row(id: 2, action: .searched("b"))) { $0.rows[id: 2]?.searched = ["b"] }
    await store.finish()
  }

  /// A debounce of zero, or of a negative interval, waits for none, even on a test clock
  /// that holds a sleep until its present until it moves.
  @Test(arguments: [Duration.zero, .seconds(-1)])
  func aDebounceOfNoTimeStartsAtOnce(interval: Duration) async {
    let store = TestStore(
      initialState: EdgeState(),
      reducer: Reduce<EdgeState, EdgeAction> { state, action in
        @Dependency(\.continuousClock) var clock
        switch action {
        case .search(let query):
          return .send(.got(query)).debounce(id: "search", for: interval, clock: clock)
        case .got(let query):
          state.got.append(query)
          return .none
        case .stop, .spin:
          return .none
        }
      })
    await store.send(.search(1))
    await store.receive(.got(1)) { $0.got = [1] }
    await store.finish()
  }

  /// A timer far shorter than an advance would make `advance(by:)` wake it without end in
  /// sight: past its limit of wakes, the advance fails the test and returns.
  @Test func anAdvanceThatWouldNotEndFailsTheTest() async {
    let store = TestStore(
      initialState: EdgeState(),
      reducer: Reduce<EdgeState, EdgeAction> { _, action in
        @Dependency(\.continuousClock) var clock
        switch action {
        case .spin: return .timer(id: "timer", every: .nanoseconds(1), clock: clock) { .stop }
        case .stop: return .none
        case .search: return .cancel(id: "timer")
        case .got: return .none
        }
      })
    store.wakeLimit = 100
    store.exhaustivity = .off
    await store.send(.spin)
    await withKnownIssue {
      await store.advance(by: .seconds(1))
    } matching: { issue in
      issue.description.contains("stopped short of its end after waking the effects' sleeps 100")
    }
    await store.send(.search(0))
    store.skipReceivedActions()
    await store.finish()
  }

  /// A sleep of no time returns at once, as on a real clock, even in a loop that does
  /// nothing else: a send and an advance return, and the loop stops when cancelled.
  @Test func aSleepOfNoTimeReturnsAtOnce() async {
    let store = TestStore(
      initialState: EdgeState(),
      reducer: Reduce<EdgeState, EdgeAction> { state, action in
        @Dependency(\.continuousClock) var clock
        switch action {
        case .search(let query):
          return .run { send in
            try await clock.sleep(for: .zero)
            await send(.got(query))
          }
        case .spin:
          return .run { _ in
            while true { try await clock.sleep(for: .zero) }
          }
          .cancellable(id: "spin")
        case .stop:
          return .cancel(id: "spin")
        case .got(let query):
          state.got.append(query)
          return .none
        }
      })
    store.timeout = .milliseconds(100)
    await store.send(.search(1))
    await store.receive(.got(1)) { $0.got = [1] }
    await store.send(.spin)
    await store.advance(by: .seconds(1))
    await store.send(.stop)
    await store.finish()
  }

  /// `finish()` names the action whose effect a debounce will start: the latest, which
  /// replaced the earlier ones.
  @Test func aWaitingDebounceIsNamedByItsLatestAction() async {
    let store = TestStore(
      initialState: EdgeState(),
      reducer: Reduce<EdgeState, EdgeAction> { _, action in
        @Dependency(\.continuousClock) var clock
        guard case .search(let query) = action else { return .none }
        return .send(.got(query)).debounce(id: "search", for: .seconds(1), clock: clock)
      })
    await store.send(.search(1))
    await store.send(.search(2))
    await store.send(.search(3))
    await withKnownIssue {
      await store.finish(timeout: .milliseconds(50))
    } matching: { issue in
      issue.description.contains("search(3)") && !issue.description.contains("search(1)")
    }
  }
}

// MARK: Rows of a forEach

private struct EdgeRow: Equatable, Identifiable, Sendable {
  let id: Int
  var ticks = 0
  var searched: [String] = []
}

private enum EdgeRowAction: Equatable, Sendable {
  case startTimer, stopTimer, tick
  case type(String)
  case searched(String)
}

private struct EdgeRowFeature: Reducer {
  func reduce(into state: inout EdgeRow, action: EdgeRowAction) -> Effect<EdgeRowAction> {
    @Dependency(\.continuousClock) var clock
    switch action {
    case .startTimer:
      return .timer(id: "timer", every: .seconds(1), clock: clock) { .tick }
    case .stopTimer:
      return .cancel(id: "timer")
    case .tick:
      state.ticks += 1
      return .none
    case .type(let query):
      return .send(.searched(query)).debounce(id: "search", for: .seconds(1), clock: clock)
    case .searched(let query):
      state.searched.append(query)
      return .none
    }
  }
}

private struct EdgeRowList: Equatable, Sendable {
  var rows: IdentifiedArrayOf<EdgeRow> = []
}

private enum EdgeRowListAction: Equatable, Sendable {
  case remove(Int)
  case row(id: Int, action: EdgeRowAction)

  static let rowCase = ActionCase<EdgeRowListAction, (id: Int, action: EdgeRowAction)>(
    embed: { .row(id: $0.id, action: $0.action) },
    extract: { if case .row(let id, let action) = $0 { (id, action) } else { nil } })
}

private let edgeRowList = Reduce<EdgeRowList, EdgeRowListAction> { state, action in
  if case .remove(let id) = action { state.rows.remove(id: id) }
  return .none
}
.forEach(\.rows, action: EdgeRowListAction.rowCase, element: EdgeRowFeature())
