import Retrace
import RetraceDependencies
import RetraceTesting
import Testing

/// A test store runs its effects until each waits before it moves the clock or looks for an
/// action, so that a test's answer does not depend on how fast a loaded machine schedules
/// the effects' tasks.
@MainActor
@Suite struct SchedulingTests {
  /// Yields `count` times: work an effect does between two waits, long enough that a
  /// fixed number of yields elsewhere does not cover it. Nonisolated, as an effect's work
  /// is: work on the main actor is not the store's to count.
  nonisolated static func work(_ count: Int = 1_000) async {
    for _ in 0..<count { await Task.yield() }
  }

  @Test func anEffectThatWorksBeforeItSleepsIsWokenByAdvance() async {
    let store = TestStore(
      initialState: SearchState(),
      reducer: Reduce<SearchState, SearchAction> { state, action in
        @Dependency(\.continuousClock) var clock
        switch action {
        case .startTimer:
          return .run { send in
            await Self.work()
            try await clock.sleep(for: .seconds(1))
            await send(.tick)
          }
        case .tick:
          state.ticks += 1
          return .none
        default:
          return .none
        }
      })
    await store.send(.startTimer)
    await store.advance(by: .seconds(1))
    await store.receive(.tick) { $0.ticks = 1 }
    await store.finish()
  }

  @Test func aTimerThatWorksBetweenTicksTicksOnceAnInterval() async {
    let store = TestStore(
      initialState: SearchState(),
      reducer: Reduce<SearchState, SearchAction> { state, action in
        @Dependency(\.continuousClock) var clock
        switch action {
        case .startTimer:
          return .run { send in
            for await _ in clock.timer(interval: .seconds(1)) {
              await Self.work()
              await send(.tick)
            }
          }
          .cancellable(id: "timer")
        case .stopTimer:
          return .cancel(id: "timer")
        case .tick:
          state.ticks += 1
          return .none
        default:
          return .none
        }
      })
    await store.send(.startTimer)
    await store.advance(by: .seconds(5))
    for ticks in 1...5 {
      await store.receive(.tick) { $0.ticks = ticks }
    }
    await store.send(.stopTimer)
    await store.finish()
  }

  @Test func anEffectWaitingOnWorkOutsideTheStoreIsReceivedWhenItEnds() async {
    let store = TestStore(
      initialState: SearchState(),
      reducer: Reduce<SearchState, SearchAction> { _, action in
        switch action {
        case .refreshTapped(let page):
          // Real time, not the store's clock: the store cannot move it, only wait.
          return .run { send in
            try await Task.sleep(for: .milliseconds(20))
            await send(.refreshed(page))
          }
        default:
          return .none
        }
      })
    store.exhaustivity = .off
    await store.send(.refreshTapped(2))
    await store.receive(.refreshed(2))
    await store.finish()
  }
}
