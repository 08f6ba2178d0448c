import Retrace
import RetraceTesting
import Testing

@MainActor
@Suite struct TestStoreTests {
  @Test func aLoadingFlowPassesWhenEveryChangeIsStated() async {
    let store = TestStore(initialState: LoadState(), reducer: loadReducer { ["a"] })
    await store.send(.load) { $0.isLoading = true }
    await store.receive(.loaded(["a"])) {
      $0.isLoading = false
      $0.items = ["a"]
    }
    await store.finish()
  }

  @Test func aWrongExpectationFailsWithAFieldLevelDiff() async {
    struct Total: Equatable, Sendable { var total = 0 }
    let store = TestStore(
      initialState: Total(),
      reducer: Reduce<Total, Int> { state, amount in
        state.total += amount
        return .none
      })
    await withKnownIssue {
      await store.send(2) { $0.total = 3 }
    } matching: { issue in
      let text = String(describing: issue)
      return text.contains("- ") && text.contains("total: 3") && text.contains("total: 2")
    }
  }

  @Test func anUnreceivedActionFailsTheTest() async {
    let store = TestStore(initialState: LoadState(), reducer: loadReducer { ["a"] })
    await store.send(.load) { $0.isLoading = true }
    await withKnownIssue {
      // The effect ends at once; the long timeout only matters on a machine so busy that
      // the effect's task has not run within the default second.
      await store.finish(timeout: .seconds(30))
    } matching: { issue in
      String(describing: issue).contains("were not handled")
    }
  }

  @Test func aRunningEffectFailsTheTest() async {
    let store = TestStore(
      initialState: LoadState(),
      reducer: loadReducer {
        try await Task.sleep(for: .seconds(3_600))  // outlives any loaded machine
        return []
      })
    await store.send(.load) { $0.isLoading = true }
    await withKnownIssue {
      // Long enough for the effect to start on a busy machine; it sleeps 30 s.
      await store.finish(timeout: .milliseconds(300))
    } matching: { issue in
      String(describing: issue).contains("still running")
    }
  }

  @Test func receivingTheWrongActionFails() async {
    let store = TestStore(initialState: LoadState(), reducer: loadReducer { ["a"] })
    await store.send(.load) { $0.isLoading = true }
    await withKnownIssue {
      await store.receive(.loaded(["b"]))
    } matching: { issue in
      String(describing: issue).contains("unexpected action")
    }
  }

  @Test func nonExhaustiveStoresCheckOnlyWhatIsStated() async {
    let store = TestStore(initialState: LoadState(), reducer: loadReducer { ["a"] })
    store.exhaustivity = .off
    await store.send(.load)
    await store.receive(.loaded(["a"])) { $0.items = ["a"] }
    await store.finish()
    #expect(store.state.items == ["a"])
  }
}
