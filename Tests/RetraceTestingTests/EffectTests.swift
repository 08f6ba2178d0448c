import Retrace
import RetraceTesting
import Synchronization
import Testing

/// A loading flow like the posts example's: `load` starts an effect with an injected loader,
/// its result comes back as an action, and `cancel` stops it.
enum LoadAction: Equatable, Sendable {
  case load
  case cancel
  case loaded([String])
  case failed(String)
}

struct LoadState: Equatable, Sendable {
  var isLoading = false
  var items: [String] = []
  var error: String?
}

struct LoadFailure: Error {}

func loadReducer(loader: @escaping @Sendable () async throws -> [String]) -> Reduce<
  LoadState, LoadAction
> {
  Reduce { state, action in
    switch action {
    case .load:
      state.isLoading = true
      return .run { send in
        do {
          let items = try await loader()
          await send(.loaded(items))
        } catch {
          await send(.failed("\(error)"))
        }
      }
      .cancellable(id: "load", cancelInFlight: true)
    case .cancel:
      state.isLoading = false
      return .cancel(id: "load")
    case .loaded(let items):
      state.isLoading = false
      state.items = items
      return .none
    case .failed(let message):
      state.isLoading = false
      state.error = message
      return .none
    }
  }
}

@MainActor
@Suite struct EffectTests {
  @Test func effectResultsComeBackAsActions() async {
    let store = Store(initialState: LoadState(), reducer: loadReducer { ["a", "b"] })
    store.send(.load)
    #expect(store.state.isLoading)
    await store.waitForEffects()
    #expect(store.state == LoadState(isLoading: false, items: ["a", "b"]))
    #expect(store.sequence == 2)
  }

  @Test func failuresComeBackAsActions() async {
    let store = Store(initialState: LoadState(), reducer: loadReducer { throw LoadFailure() })
    store.send(.load)
    await store.waitForEffects()
    #expect(store.state.error == "LoadFailure()")
  }

  @Test func cancellingByIDDropsTheResult() async {
    let started = AsyncStream<Void>.makeStream()
    let store = Store(
      initialState: LoadState(),
      reducer: loadReducer {
        started.continuation.yield()
        try await Task.sleep(for: .seconds(30))
        return ["too late"]
      })
    store.send(.load)
    var iterator = started.stream.makeAsyncIterator()
    await iterator.next()
    store.send(.cancel)
    await store.waitForEffects()
    #expect(store.state.items.isEmpty)
    #expect(!store.state.isLoading)
    // The cancelled sleep throws CancellationError, but `send` drops actions after cancel.
    #expect(store.state.error == nil)
    #expect(store.sequence == 2)
  }

  @Test func cancelInFlightKeepsOnlyTheLatestLoad() async {
    let calls = Mutex(0)
    let store = Store(
      initialState: LoadState(),
      reducer: loadReducer {
        let call = calls.withLock {
          $0 += 1
          return $0
        }
        try await Task.sleep(for: .milliseconds(50))
        return ["call \(call)"]
      })
    store.send(.load)
    store.send(.load)
    await store.waitForEffects()
    // The first load was cancelled: its result (and its CancellationError) never arrive.
    #expect(store.state.items.count == 1)
    #expect(store.state.error == nil)
    #expect(store.sequence == 3)
  }
}

/// Effects whose work throws, as TCA's `.run(operation:catch:)`.
@MainActor @Suite struct ThrowingEffectTests {
  /// `load` with work that throws, handled by `handler` when given.
  static func reducer(
    handled: Bool, loader: @escaping @Sendable () async throws -> [String]
  ) -> Reduce<LoadState, LoadAction> {
    Reduce { state, action in
      switch action {
      case .load:
        state.isLoading = true
        guard handled else { return .run { send in await send(.loaded(try await loader())) } }
        return .run { send in
          await send(.loaded(try await loader()))
        } catch: { error, send in
          await send(.failed("\(error)"))
        }
      case .loaded(let items):
        state.isLoading = false
        state.items = items
      case .failed(let message):
        state.isLoading = false
        state.error = message
      case .cancel:
        break
      }
      return .none
    }
  }

  @Test func anErrorTheWorkThrowsComesBackThroughTheHandler() async {
    let store = TestStore(
      initialState: LoadState(), reducer: Self.reducer(handled: true) { throw LoadFailure() })
    await store.send(.load) { $0.isLoading = true }
    await store.receive(.failed("LoadFailure()")) {
      $0.isLoading = false
      $0.error = "LoadFailure()"
    }
    await store.finish()
  }

  @Test func workThatSucceedsNeedsNoHandler() async {
    let store = TestStore(
      initialState: LoadState(), reducer: Self.reducer(handled: false) { ["a"] })
    await store.send(.load) { $0.isLoading = true }
    await store.receive(.loaded(["a"])) {
      $0.isLoading = false
      $0.items = ["a"]
    }
    await store.finish()
  }

  @Test func anErrorNothingHandlesIsReported() async {
    let store = TestStore(
      initialState: LoadState(), reducer: Self.reducer(handled: false) { throw LoadFailure() })
    await withKnownIssue {
      await store.send(.load) { $0.isLoading = true }
      await store.finish()
    } matching: { issue in
      issue.description.contains("An effect threw an error that nothing handled: LoadFailure()")
    }
  }
}
