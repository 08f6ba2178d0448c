import Observation
import Synchronization
import Testing

@testable import Retrace

// A counter feature embedded in a parent twice: always (`counter`) and optionally (`detail`).

private struct Counter: Equatable, Sendable {
  var count = 0
  var label = ""
}

private enum CounterAction: Equatable, Sendable {
  case increment
  case rename(String)
  case fetch
  case loaded(Int)
}

private let counterReducer = Reduce<Counter, CounterAction> { state, action in
  switch action {
  case .increment: state.count += 1
  case .rename(let label): state.label = label
  case .fetch: return .run { send in await send(.loaded(42)) }
  case .loaded(let count): state.count = count
  }
  return .none
}

private struct Screen: Equatable, Sendable {
  var counter = Counter()
  var detail: Counter?
  var other = 0
}

private enum ScreenAction: Equatable, Sendable {
  case counter(CounterAction)
  case detail(CounterAction)
  case present
  case dismiss
  case bumpOther

  static let counterCase = ActionCase<ScreenAction, CounterAction>(
    embed: ScreenAction.counter, extract: { if case .counter(let a) = $0 { a } else { nil } })
  static let detailCase = ActionCase<ScreenAction, CounterAction>(
    embed: ScreenAction.detail, extract: { if case .detail(let a) = $0 { a } else { nil } })
}

private let screenReducer = Scope(
  state: \Screen.counter, action: ScreenAction.counterCase, child: counterReducer
)
.combined(
  with: Reduce<Screen, ScreenAction> { state, action in
    switch action {
    case .present: state.detail = Counter(count: 100)
    case .dismiss: state.detail = nil
    case .bumpOther: state.other += 1
    case .counter, .detail: break
    }
    return .none
  }
)
.ifLet(\.detail, action: ScreenAction.detailCase, then: counterReducer)

/// Counts how often an observation fires; touched on the main actor only.
private final class Fired: Sendable {
  let count = Mutex(0)
  var value: Int { count.withLock { $0 } }
}

@MainActor
private func observe(_ fired: Fired, _ read: @escaping @MainActor () -> Void) {
  withObservationTracking {
    read()
  } onChange: {
    fired.count.withLock { $0 += 1 }
  }
}

@MainActor
@Suite struct ChildStoreTests {
  private func makeStore() -> Store<Screen, ScreenAction> {
    Store(initialState: Screen(), reducer: screenReducer)
  }

  /// An element's action case embeds with its identifier and extracts only its own.
  @Test func anElementsActionCaseTakesOnlyItsIdentifier() {
    enum Row: Equatable {
      case row(id: Int, action: CounterAction)
      case other
    }
    let rowCase = ActionCase<Row, (id: Int, action: CounterAction)>(
      embed: { .row(id: $0.id, action: $0.action) },
      extract: { if case .row(let id, let action) = $0 { (id, action) } else { nil } })
    let second = rowCase.element(2)
    #expect(second.embed(.increment) == .row(id: 2, action: .increment))
    #expect(second.extract(.row(id: 2, action: .fetch)) == .fetch)
    #expect(second.extract(.row(id: 1, action: .fetch)) == nil)
    #expect(second.extract(.other) == nil)
  }

  @Test func aChildSendChangesTheParentAndTheChild() {
    let store = makeStore()
    let child = store.scope(state: \.counter, action: ScreenAction.counterCase)
    child.send(.increment)
    child.send(.rename("a"))
    #expect(store.state.counter == Counter(count: 1, label: "a"))
    #expect(child.state == Counter(count: 1, label: "a"))
    #expect(child.count == 1)
    #expect(child.sequence == 2)
    #expect(store.sequence == 2)
  }

  @Test func theChildFollowsTheParentsOwnActions() {
    let store = makeStore()
    let child = store.scope(state: \.counter, action: ScreenAction.counterCase)
    var seen: [Int] = []
    let subscription = child.subscribe(to: \.count) { _, new in seen.append(new) }
    store.send(.counter(.increment))
    store.send(.bumpOther)
    store.send(.counter(.increment))
    #expect(child.state.count == 2)
    #expect(seen == [1, 2])
    _ = subscription
  }

  @Test func aChildsEffectComesBackToTheParentAndTheChild() async {
    let store = makeStore()
    let child = store.scope(state: \.counter, action: ScreenAction.counterCase)
    var counts: [Int] = []
    let subscription = child.subscribe { _, new in counts.append(new.count) }
    child.send(.fetch)
    #expect(child.runningEffectCount == 1)
    await child.waitForEffects()
    #expect(store.state.counter.count == 42)
    #expect(child.state.count == 42)
    #expect(counts == [0, 42])
    _ = subscription
  }

  @Test func aChildFieldIsObservedOnItsOwn() {
    let store = makeStore()
    let child = store.scope(state: \.counter, action: ScreenAction.counterCase)
    let count = Fired()
    let label = Fired()
    let whole = Fired()
    observe(count) { _ = child.count }
    observe(label) { _ = child.label }

    store.send(.bumpOther)  // the parent outside the child
    #expect(count.value == 0)
    #expect(label.value == 0)

    observe(whole) { _ = child.state }
    child.send(.rename("b"))
    #expect(count.value == 0)
    #expect(label.value == 1)
    #expect(whole.value == 1)

    observe(label) { _ = child.label }
    store.send(.counter(.increment))  // the parent's own action, inside the child
    #expect(count.value == 1)
    #expect(label.value == 1)
  }

  @Test func anOptionalChildIsNilWhileItsStateIs() {
    let store = makeStore()
    #expect(store.scope(state: \.detail, action: ScreenAction.detailCase) == nil)
    store.send(.present)
    let detail = store.scope(state: \.detail, action: ScreenAction.detailCase)
    #expect(detail?.count == 100)
  }

  @Test func aDismissedChildKeepsItsLastStateAndItsSendsAreIgnored() {
    let store = makeStore()
    store.send(.present)
    guard let detail = store.scope(state: \.detail, action: ScreenAction.detailCase) else {
      Issue.record("no detail store")
      return
    }
    detail.send(.increment)
    #expect(store.state.detail?.count == 101)
    store.send(.dismiss)
    #expect(detail.state == Counter(count: 101))
    detail.send(.increment)  // forwarded; the parent's ifLet drops it
    #expect(store.state.detail == nil)
    #expect(detail.state == Counter(count: 101))
    #expect(store.sequence == 4)
    store.send(.present)  // a new detail: the old store follows it again
    #expect(detail.count == 100)
  }

  @Test func aReleasedChildIsDroppedByTheParent() {
    let store = makeStore()
    weak var released: Store<Counter, CounterAction>?
    do {
      let child = store.scope(state: \.counter, action: ScreenAction.counterCase)
      released = child
      child.send(.increment)
    }
    #expect(released == nil)
    for _ in 0..<1_000 {
      let child = store.scope(state: \.counter, action: ScreenAction.counterCase)
      child.send(.increment)
    }
    #expect(store.subscribers.entries.count <= 1)
    store.send(.counter(.increment))
    #expect(store.subscribers.isEmpty)
    #expect(store.state.counter.count == 1_002)
  }

  @Test func aChildOfAChildForwardsToTheRoot() {
    let store = makeStore()
    let child = store.scope(state: \.counter, action: ScreenAction.counterCase)
    let grandchild = child.scope(
      state: \.count,
      action: ActionCase<CounterAction, CounterAction>(embed: { $0 }, extract: { $0 }))
    grandchild.send(.increment)
    #expect(grandchild.state == 1)
    store.send(.counter(.increment))
    #expect(grandchild.state == 2)
  }

  @Test func aSubscriberThatSendsToTheChildIsReducedRightAfter() {
    let store = makeStore()
    let child = store.scope(state: \.counter, action: ScreenAction.counterCase)
    let subscription = child.subscribe(to: \.count) { _, new in
      if new == 1 { child.send(.rename("one")) }
    }
    store.send(.counter(.increment))
    #expect(child.state == Counter(count: 1, label: "one"))
    #expect(store.state.counter == Counter(count: 1, label: "one"))
    _ = subscription
  }
}
