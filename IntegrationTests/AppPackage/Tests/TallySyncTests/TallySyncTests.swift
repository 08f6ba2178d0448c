import Retrace
import RetraceDependencies
import RetraceTesting
import TallyApp
import TallySync
import Testing

/// From outside the package: dependencies, a test clock, a debounced effect and a child store.
@MainActor @Suite struct TallySyncTests {
  @Test func aChildViewSendsThroughItsScopedStore() async {
    let clock = TestClock<Duration>()
    let saves = LockIsolated<[Int]>([])
    let store = Store(initialState: SyncedTally(), reducer: SyncedTallyReducer()) {
      $0.continuousClock = clock
      $0.tallyServer.save = { count in
        saves.withValue { $0.append(count) }
        return 0
      }
    }
    // What the tally's own view holds: a store of the tally alone.
    let tally: Store<Tally, TallyAction> = store.scope(
      state: \.tally, action: SyncedTallyAction.tallyCase)
    let start = clock.now
    tally.send(.add(2))
    tally.send(.add(3))
    #expect(tally.count == 5)
    #expect(store.state.tally.history == [2, 3])
    // The debounce's task may not have reached its sleep when the clock first moves: move it
    // to the deadline (fixed by the last change) until the save has come back.
    for _ in 0..<5_000 where store.savedCount == nil {
      await clock.advance(to: start.advanced(by: .seconds(1)))
      try? await Task.sleep(for: .milliseconds(1))
    }
    await store.waitForEffects()
    #expect(store.savedCount == 5)
    #expect(saves.value == [5])
    // The parent's own actions reach the child too.
    store.send(.tally(.clear))
    #expect(tally.count == 0)
  }

  @Test func theTallyIsSavedOnceASecondAfterTheLastChange() async {
    let saves = LockIsolated<[Int]>([])
    let store = TestStore(initialState: SyncedTally(), reducer: SyncedTallyReducer()) {
      $0.tallyServer.save = { count in
        saves.withValue { $0.append(count) }
        return 0
      }
    }
    await store.send(.tally(.add(2))) {
      $0.tally.count = 2
      $0.tally.history = [2]
    }
    await store.advance(by: .milliseconds(500))
    await store.send(.tally(.add(3))) {
      $0.tally.count = 5
      $0.tally.history = [2, 3]
    }
    await store.advance(by: .seconds(1))
    await store.receive(.saved(count: 5)) { $0.savedCount = 5 }
    await store.finish()
    #expect(saves.value == [5])
  }

  @Test func aServerTheTestDidNotProvideFailsIt() async {
    let store = TestStore(initialState: SyncedTally(), reducer: SyncedTallyReducer())
    store.exhaustivity = .off
    await withKnownIssue {
      await store.send(.tally(.add(1)))
      await store.advance(by: .seconds(1))
      await store.receive(.saved(count: 1))
    }
    await store.finish()
  }
}
