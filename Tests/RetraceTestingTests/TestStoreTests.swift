import CasePathsCore
import Retrace
import RetraceTesting
import Synchronization
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

  @Test func anActionMadeCasePathableByHandIsReceivedByCase() async {
    // CounterAction is the testing article's example, as it shows it.
    let store = counterStore()
    await store.send(.incrementTapped)
    await store.receive(\.loaded) { $0 = 42 }
    await store.finish()
  }

  /// A store whose `incrementTapped` sends `loaded(42)`, as `receive(\.case)` tests need it.
  func counterStore() -> TestStore<Int, CounterAction> {
    TestStore(
      initialState: 0,
      reducer: Reduce<Int, CounterAction> { count, action in
        switch action {
        case .incrementTapped: return .send(.loaded(count + 42))
        case .loaded(let value):
          count = value
          return .none
        }
      })
  }

  @Test func aWrongCaseNamesTheExpectedCase() async throws {
    let store = counterStore()
    await store.send(.incrementTapped)
    let messages = IssueMessages()
    await withKnownIssue {
      await store.receive(\.incrementTapped)
    } matching: { issue in
      messages.append(String(describing: issue))
      return true
    }
    let message = try #require(messages.all.first)
    #expect(message.contains("expected: \\.incrementTapped\n"))
    #expect(message.contains("received: CounterAction.loaded(42)"))
    #expect(!message.contains("<computed"))
  }

  @Test func aMissingCaseWithAPayloadNamesItsTypes() async throws {
    let store = counterStore()
    let messages = IssueMessages()
    await withKnownIssue {
      await store.receive(\.loaded, timeout: .milliseconds(10))
    } matching: { issue in
      messages.append(String(describing: issue))
      return true
    }
    let message = try #require(messages.all.first)
    #expect(message.contains("\\.(a case of CounterAction that carries Int)"))
    #expect(!message.contains("<computed"))
  }

  @Test func receivingTheWrongActionFails() async {
    let store = TestStore(initialState: LoadState(), reducer: loadReducer { ["a"] })
    await store.send(.load) { $0.isLoading = true }
    await withKnownIssue {
      await store.receive(.loaded(["b"]))
    } matching: { issue in
      String(describing: issue).contains("unexpected action")
    }
    await store.finish()
  }

  @Test func nonExhaustiveStoresCheckOnlyWhatIsStated() async {
    let store = TestStore(initialState: LoadState(), reducer: loadReducer { ["a"] })
    store.exhaustivity = .off
    await store.send(.load)
    await store.receive(.loaded(["a"])) { $0.items = ["a"] }
    await store.finish()
    #expect(store.state.items == ["a"])
  }

  @Test func aFailureShowsTheDiffFirstThenTheActionCutShort() async throws {
    struct Total: Equatable, Sendable { var total = 0 }
    let store = TestStore(
      initialState: Total(),
      reducer: Reduce<Total, [Int]> { state, amounts in
        state.total += amounts.reduce(0, +)
        return .none
      })
    let messages = IssueMessages()
    await withKnownIssue {
      await store.send(Array(1...1_000)) { $0.total = 3 }
    } matching: { issue in
      messages.append(String(describing: issue))
      return true
    }
    let message = try #require(messages.all.first)
    let expected = try #require(message.range(of: "total: 3"))
    let actual = try #require(message.range(of: "total: 500500"))
    let action = try #require(message.range(of: "after the action [[0]: 1, [1]: 2, [2]: 3,"))
    #expect(expected.lowerBound < action.lowerBound)
    #expect(actual.lowerBound < action.lowerBound)
    // The action's 1,000 numbers are cut after 200 characters, with its length.
    #expect(message.contains("characters)"))
    #expect(!message.contains("[999]: 1000"))
    #expect(message.count < 600)
  }

  @Test func aShortActionIsShownWhole() async throws {
    let store = TestStore(initialState: LoadState(), reducer: loadReducer { ["a"] })
    let messages = IssueMessages()
    await withKnownIssue {
      await store.send(.load) { $0.items = ["b"] }
    } matching: { issue in
      messages.append(String(describing: issue))
      return true
    }
    let message = try #require(messages.all.first)
    #expect(message.contains("after the action LoadAction.load"))
    await store.receive(.loaded(["a"])) {
      $0.isLoading = false
      $0.items = ["a"]
    }
    await store.finish()
  }
}

/// What a test's expected failures said, collected by `withKnownIssue`'s matcher.
final class IssueMessages: Sendable {
  private let messages = Mutex<[String]>([])

  func append(_ message: String) {
    messages.withLock { $0.append(message) }
  }

  var all: [String] { messages.withLock { $0 } }
}
