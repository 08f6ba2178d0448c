import Retrace
import RetraceTesting
import Testing

// A board of counters, from outside the package with `import Retrace` alone: an
// `IdentifiedArrayOf` (re-exported), a `forEach`, and a child store scoped to one element.

struct Board: Equatable, Sendable {
  var counters: IdentifiedArrayOf<Counter> = []
}

struct Counter: Identifiable, Equatable, Sendable {
  let id: Int
  var count = 0
}

enum CounterAction: Equatable, Sendable {
  case increment
}

enum BoardAction: Equatable, Sendable {
  case add(id: Int)
  case counter(id: Int, action: CounterAction)

  static let counterCase = ActionCase<BoardAction, (id: Int, action: CounterAction)>(
    embed: { .counter(id: $0.id, action: $0.action) },
    extract: { if case .counter(let id, let action) = $0 { (id, action) } else { nil } })
}

let boardReducer = Reduce<Board, BoardAction> { state, action in
  if case .add(let id) = action { state.counters.append(Counter(id: id)) }
  return .none
}
.forEach(
  \.counters, action: BoardAction.counterCase,
  element: Reduce<Counter, CounterAction> { counter, _ in
    counter.count += 1
    return .none
  })

@MainActor @Suite struct TallyBoardTests {
  @Test func aRowViewSendsThroughAStoreScopedToItsElement() {
    let store = Store(initialState: Board(), reducer: boardReducer)
    store.send(.add(id: 1))
    store.send(.add(id: 2))
    let second = store.scope(state: \.counters[id: 2], action: BoardAction.counterCase.element(2))
    second?.send(.increment)
    second?.send(.increment)
    #expect(second?.count == 2)
    #expect(store.state.counters.map(\.count) == [0, 2])
    // The parent's actions for another element leave this one alone.
    store.send(.counter(id: 1, action: .increment))
    #expect(second?.count == 2)
    #expect(
      store.scope(state: \.counters[id: 3], action: BoardAction.counterCase.element(3)) == nil)
  }

  @Test func aTestStoreChecksAnElementsChange() async {
    let store = TestStore(initialState: Board(), reducer: boardReducer)
    await store.send(.add(id: 7)) { $0.counters = [Counter(id: 7)] }
    await store.send(.counter(id: 7, action: .increment)) { $0.counters[id: 7]?.count = 1 }
    await store.finish()
  }
}
