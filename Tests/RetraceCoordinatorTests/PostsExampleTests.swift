import Retrace
import RetraceCoordinator
import RetraceExamples
import Testing

/// A gate an injected loader waits on, so that a test decides when a load finishes.
actor Gate {
  private var waiters: [CheckedContinuation<Void, Never>] = []
  private var isOpen = false

  func wait() async {
    if isOpen { return }
    await withCheckedContinuation { waiters.append($0) }
  }

  func open() {
    isOpen = true
    for waiter in waiters { waiter.resume() }
    waiters.removeAll()
  }
}

/// Counts loader calls across tasks.
actor Counter {
  private(set) var value = 0
  func next() -> Int {
    value += 1
    return value
  }
}

struct Offline: Error, CustomStringConvertible {
  var description: String { "offline" }
}

@Suite("Posts example")
@MainActor
struct PostsExampleTests {
  @Test func loadingRunsTheInjectedLoaderAndItsResultComesBackAsAnAction() async {
    let store = Store(initialState: PostsState(), reducer: PostsReducer(loader: { Post.samples }))
    var actions: [PostsAction] = []
    let recorder = ActionLog()
    store.attach(recorder)
    store.send(.load)
    #expect(store.state.postList == .loading)
    await store.waitForEffects()
    #expect(store.state.postList == .display(posts: Post.samples))
    actions = recorder.actions
    #expect(actions == [.load, .postsLoaded(posts: Post.samples)])
  }

  @Test func aFailedLoadShowsTheErrorAndARetryLoadsAgain() async {
    let calls = Counter()
    let store = Store(
      initialState: PostsState(),
      reducer: PostsReducer(loader: {
        if await calls.next() == 1 { throw Offline() }
        return Post.samples
      }))
    store.send(.load)
    await store.waitForEffects()
    #expect(store.state.postList == .error(message: "offline"))
    store.send(.retry)
    #expect(store.state.postList == .loading)
    await store.waitForEffects()
    #expect(store.state.loadedPosts == Post.samples)
  }

  @Test func aNewLoadCancelsTheOneInFlight() async {
    let gate = Gate()
    let calls = Counter()
    let stale = [Post(id: 99, title: "Stale", body: "Should never show.")]
    let store = Store(
      initialState: PostsState(),
      reducer: PostsReducer(loader: {
        if await calls.next() == 1 {
          await gate.wait()
          return stale
        }
        return Post.samples
      }))
    let recorder = ActionLog()
    store.attach(recorder)
    store.send(.load)
    while await calls.value < 1 { await Task.yield() }
    store.send(.load)  // cancels the first load, which still waits at the gate
    while await calls.value < 2 { await Task.yield() }
    await gate.open()
    await store.waitForEffects()
    #expect(store.state.loadedPosts == Post.samples)
    #expect(recorder.actions == [.load, .load, .postsLoaded(posts: Post.samples)])
  }

  @Test func navigationThroughTheStoreIsRecordedAndRefusalsAreVisible() {
    let store = Store(initialState: PostsState(), reducer: PostsReducer(loader: { [] }))
    store.send(.navigation(action: .push(route: .postDetail(id: 1))))
    store.send(.navigation(action: .push(route: .about)))
    #expect(store.state.navigation.visibleRoute == .postDetail(id: 1))
    #expect(store.state.navigation.lastRefusal?.reason == .pushNotAllowed)
    store.send(.navigation(action: .present(route: .share, style: .sheet)))
    #expect(store.state.navigation.lastRefusal == nil)
    #expect(store.state.navigation.visibleRoute == .share)
  }

  @Test func theDomainDescribesItself() {
    #expect(postsDomain.name == "posts")
    #expect(
      postsDomain.actionCases == [
        "navigation", "load", "retry", "postsLoaded", "loadFailed", "toggleLike",
      ])
    #expect(postsDomain.invariant(named: "valid-navigation") != nil)
    #expect(postsDomain.invariant(named: "screens-match-stack") != nil)
    for invariant in postsDomain.invariants { #expect(invariant.holds(postsDomain.initialState)) }
  }

  @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
  func theWorkloadProducesRealisticValidSessions(seed: UInt64) {
    let (actions, _) = postsDomain.generate(count: 3_000, seed: seed)
    #expect(postsDomain.generate(count: 3_000, seed: seed).actions == actions)
    var state = postsDomain.initialState
    var names: Set<String> = []
    var refusals: [NavigationRefusal<PostsRoute>] = []
    for action in actions {
      names.insert(action.name)
      if case .navigation(let navigation) = action { names.insert(navigation.name) }
      let count = state.navigation.refusalCount
      _ = postsDomain.reduce(into: &state, action: action)
      if state.navigation.refusalCount > count, let refusal = state.navigation.lastRefusal {
        refusals.append(refusal)
      }
      for invariant in postsDomain.invariants {
        #expect(invariant.holds(state), "\(invariant.name)")
      }
    }
    #expect(actions.first == .load)
    for expected in [
      "load", "retry", "postsLoaded", "loadFailed", "toggleLike", "push", "pop", "popToRoot",
      "present",
      "dismiss", "selectTab", "setPath",
    ] {
      #expect(names.contains(expected), "the workload never sends \(expected)")
    }
    // The only refusals are late taps on closed detail screens.
    #expect(refusals.allSatisfy { $0.reason == .screenNotOnStack && $0.action == "toggleLike" })
  }

  @Test func theWorkloadAnswersEveryLoad() {
    let (actions, _) = postsDomain.generate(count: 2_000, seed: 7)
    for (index, action) in actions.enumerated().dropLast() where action == .load || action == .retry
    {
      switch actions[index + 1] {
      case .postsLoaded, .loadFailed: break
      default: Issue.record("action \(index + 1) does not answer the load: \(actions[index + 1])")
      }
    }
  }
}

/// A recorder that keeps the actions a store reduced.
@MainActor
final class ActionLog: StoreRecorder {
  private(set) var actions: [PostsAction] = []

  nonisolated func record(_ transition: Transition<PostsState, PostsAction>) {
    MainActor.assumeIsolated { actions.append(transition.action) }
  }
}
