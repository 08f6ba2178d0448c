import PropertyBased
import Retrace
import Synchronization
import Testing

@Suite struct HistoryTests {
  /// The state after the first `n` of `actions`, computed the slow, obvious way.
  func replay(_ actions: [Int], upTo n: Int) -> Tally {
    var state = Tally()
    for value in actions.prefix(n) { _ = tallyReducer.reduce(into: &state, action: .add(value)) }
    return state
  }

  func history(_ actions: [Int], interval: Int = 4, capacity: Int = 1_000) -> History<
    Tally, TallyAction
  > {
    var history = History(
      initialState: Tally(), reducer: tallyReducer, snapshotInterval: interval, capacity: capacity)
    for value in actions { history.append(.add(value)) }
    return history
  }

  @Test func undoThenRedoReturnsToTheSameState() async {
    await propertyCheck(input: Gen.int(in: -50...50).array(of: 0...40), Gen.int(in: 0...40)) {
      actions, k in
      var h = history(actions)
      let end = h.state
      let steps = min(k, actions.count)
      for _ in 0..<steps {
        let moved = h.undo()
        #expect(moved)
      }
      #expect(h.state == replay(actions, upTo: actions.count - steps))
      for _ in 0..<steps {
        let moved = h.redo()
        #expect(moved)
      }
      #expect(h.state == end)
      let movedPastEnd = h.redo()
      #expect(!movedPastEnd)
    }
  }

  @Test func jumpToAnyPositionEqualsReplayingThatPrefix() async {
    await propertyCheck(
      input: Gen.int(in: -50...50).array(of: 0...60), Gen.int(in: 0...60).array(of: 1...10),
      Gen.int(in: 1...9)
    ) { actions, targets, interval in
      var h = history(actions, interval: interval)
      for target in targets.map({ min($0, actions.count) }) {
        h.jump(to: target)
        #expect(h.position == target)
        #expect(h.state == replay(actions, upTo: target))
      }
    }
  }

  @Test func appendingAfterUndoDiscardsTheRedoTail() {
    var h = history([1, 2, 3, 4, 5, 6], interval: 2)
    h.jump(to: 3)
    h.append(.add(100))
    #expect(h.endPosition == 4)
    #expect(!h.canRedo)
    #expect(h.state.total == 106)
    h.rewind()
    #expect(h.state.total == 0)
    h.jump(to: 4)
    #expect(h.state.total == 106)
  }

  @Test func capacityDropsTheOldestActionsButKeepsPositionsStable() {
    let actions = Array(1...100)
    var h = history(actions, interval: 10, capacity: 30)
    #expect(h.endPosition == 100)
    #expect(h.startPosition > 0)
    #expect(h.endPosition - h.startPosition <= 30 + 10 - 1)
    h.rewind()
    #expect(h.position == h.startPosition)
    #expect(h.state == replay(actions, upTo: h.startPosition))
    let movedPastStart = h.undo()
    #expect(!movedPastStart)
    h.jump(to: 95)
    #expect(h.state == replay(actions, upTo: 95))
  }

  @Test func aJumpCostsAtMostTheSnapshotIntervalInReducerCalls() {
    let counter = Counted()
    let reducer = Reduce<Tally, TallyAction> { state, action in
      counter.increment()
      return tallyReducer.reduce(into: &state, action: action)
    }
    var h = History(initialState: Tally(), reducer: reducer, snapshotInterval: 8, capacity: 1_000)
    for value in 0..<200 { h.append(.add(value)) }
    for target in [0, 7, 8, 9, 150, 199, 200, 3, 101] {
      let before = counter.count
      h.jump(to: target)
      #expect(counter.count - before < 8, "jump to \(target) cost \(counter.count - before) calls")
    }
  }
}

final class Counted: Sendable {
  private let value = Mutex(0)
  var count: Int { value.withLock { $0 } }
  func increment() { value.withLock { $0 += 1 } }
}
