import Observation
import Retrace
import Synchronization
import Testing

@MainActor
@Suite struct StoreTests {
  @Test func actionsSentWhileObserversAreToldOfAJumpAreReducedRightAfterIt() {
    let store = Store(initialState: Tally(), reducer: tallyReducer)
    let subscription = store.subscribe(to: \.total) { _, new in
      if new == 5 { store.send(.log("five")) }
    }
    store.jump(to: Tally(total: 5))
    #expect(store.state == Tally(total: 5, log: ["five"]))
    #expect(store.sequence == 1)
    _ = subscription
  }

  @Test func sendReducesAndCountsSequenceNumbers() {
    let store = Store(initialState: Tally(), reducer: tallyReducer)
    store.send(.add(2))
    store.send(.add(3))
    #expect(store.state.total == 5)
    #expect(store.sequence == 2)
  }

  @Test func aSubscriptionToAPartOfTheStateSeesItsChangesOnly() {
    let store = Store(initialState: Tally(), reducer: tallyReducer)
    var changes: [String] = []
    let subscription = store.subscribe(to: \.total) { old, new in changes.append("\(old)->\(new)") }
    store.send(.add(2))
    store.send(.log("x"))
    store.send(.add(0))
    store.send(.add(3))
    subscription.cancel()
    store.send(.add(1))
    #expect(changes == ["0->2", "2->5"])
  }

  @Test func aScopedSubscriberIsCalledOncePerChangeOfItsOwnPartAndNeverForOthers() {
    let store = Store(initialState: Tally(), reducer: tallyReducer)
    var byKeyPath: [Int] = []
    var byClosure: [Int] = []
    var logs = 0
    // swift-format-ignore: OnlyOneTrailingClosureArgument
    let subscriptions = [
      store.subscribe(to: \.total) { _, new in byKeyPath.append(new) },
      store.subscribe(to: { $0.total * 10 }) { _, new in byClosure.append(new) },
      store.subscribe(to: \.log.count) { _, _ in logs += 1 },
    ]
    for action: TallyAction in [.log("a"), .add(1), .log("b"), .add(0), .add(2), .log("c")] {
      store.send(action)
    }
    #expect(byKeyPath == [1, 3])
    #expect(byClosure == [10, 30])
    #expect(logs == 3)
    _ = subscriptions
  }

  /// An element whose comparisons are counted.
  struct Compared: Equatable, Sendable {
    static let comparisons = Atomic<Int>(0)
    var value: Int
    static func == (a: Compared, b: Compared) -> Bool {
      comparisons.add(1, ordering: .relaxed)
      return a.value == b.value
    }
  }

  struct Board: Equatable, Sendable {
    var cells = (0..<1_000).map { Compared(value: $0) }
    var moves = 0
  }

  enum BoardAction: Sendable {
    case move
    case paint(Int, Int)
  }

  @Test func aSubscriptionToACollectionComparesItsElementsOnlyWhenTheCollectionChanged() {
    let store = Store(
      initialState: Board(),
      reducer: Reduce<Board, BoardAction> { state, action in
        switch action {
        case .move: state.moves += 1
        case .paint(let index, let value): state.cells[index].value = value
        }
        return .none
      })
    var changes = 0
    let subscription = store.subscribe(to: \.cells) { _, _ in changes += 1 }
    let before = Compared.comparisons.load(ordering: .relaxed)
    for _ in 0..<100 { store.send(.move) }
    // An untouched collection still shares its storage with the kept value, and `==` on
    // shared storage answers without looking at an element.
    #expect(Compared.comparisons.load(ordering: .relaxed) == before)
    store.send(.paint(500, -1))
    #expect(Compared.comparisons.load(ordering: .relaxed) > before)
    store.send(.paint(500, -1))
    #expect(changes == 1)
    _ = subscription
  }

  /// Counts the times `read`'s observation fires while `actions` are sent, observing again
  /// after each firing, as SwiftUI does after it redraws.
  func notifications(
    _ store: Store<Tally, TallyAction>, reading read: @escaping @MainActor () -> Void,
    actions: [TallyAction]
  ) -> Int {
    final class Count: @unchecked Sendable { var value = 0 }  // touched on the main actor only
    let count = Count()
    func observe() {
      withObservationTracking {
        read()
      } onChange: {
        count.value += 1
      }
    }
    observe()
    for action in actions {
      let before = count.value
      store.send(action)
      if count.value != before { observe() }
    }
    return count.value
  }

  @Test func readingAFieldThroughTheStoreObservesThatFieldOnly() {
    let actions: [TallyAction] = [.log("a"), .add(1), .log("b"), .add(0), .add(2), .log("c")]
    let store = Store(initialState: Tally(), reducer: tallyReducer)
    // Through the store: two changes of `total`, none from the log or from adding 0.
    #expect(notifications(store, reading: { _ = store.total }, actions: actions) == 2)
    #expect(store.total == 3)
    // Through `state`: every action, as the whole state is observed.
    let whole = Store(initialState: Tally(), reducer: tallyReducer)
    #expect(notifications(whole, reading: { _ = whole.state.total }, actions: actions) == 6)
    // Two fields read: a change of either.
    let both = Store(initialState: Tally(), reducer: tallyReducer)
    #expect(
      notifications(
        both,
        reading: {
          _ = both.total
          _ = both.log
        }, actions: actions) == 5)
  }

  @Test func aSubscriptionToAPartOfTheStateKeepsNoCopyOfTheState() {
    // Room for the appends below, and no reference to the array but the store's.
    let store = Store(initialState: Tally(log: Array(["a"]).reserving(16)), reducer: tallyReducer)
    func logStorage() -> UnsafeRawPointer? {
      store.state.log.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }
    let part = store.subscribe(to: \.total) { _, _ in }
    var storage = logStorage()
    store.send(.log("b"))
    // Appended in place: nothing held the state before the action.
    #expect(logStorage() == storage)
    // A subscription to the whole state holds it, so the same append copies the array.
    let whole = store.subscribe { _, _ in }
    storage = logStorage()
    store.send(.log("c"))
    #expect(logStorage() != storage)
    #expect(store.state.log == ["a", "b", "c"])
    withExtendedLifetime((part, whole)) {}
  }

  @Test func actionsSentFromSubscribersAreQueuedInOrderNeverRecursive() {
    let store = Store(initialState: Tally(), reducer: tallyReducer)
    var seen: [(old: [String], new: [String])] = []
    let subscription = store.subscribe { old, new in
      seen.append((old.log, new.log))
      if new.log.last == "a" {
        store.send(.log("b"))
        store.send(.log("c"))
        // Nothing was reduced recursively: the state is still the one this callback got.
        #expect(store.state.log == ["a"])
      }
    }
    store.send(.log("a"))
    #expect(store.state.log == ["a", "b", "c"])
    #expect(seen.map(\.new) == [["a"], ["a", "b"], ["a", "b", "c"]])
    #expect(seen.map(\.old) == [[], ["a"], ["a", "b"]])
    subscription.cancel()
  }

  @Test func sendEffectsAreQueuedAfterTheCurrentAction() {
    let reducer = Reduce<Tally, TallyAction> { state, action in
      switch action {
      case .add(let n):
        state.log.append("add \(n)")
        return n > 0 ? .merge([.send(.add(n - 1)), .send(.log("after \(n)"))]) : .none
      case .log(let s):
        state.log.append(s)
        return .none
      }
    }
    let store = Store(initialState: Tally(), reducer: reducer)
    store.send(.add(2))
    #expect(store.state.log == ["add 2", "add 1", "after 2", "add 0", "after 1"])
  }

  /// `.merge(a, b)` is `.merge([a, b])`, as TCA writes it.
  @Test func aVariadicMergeRunsItsEffectsInOrder() {
    let reducer = Reduce<Tally, TallyAction> { state, action in
      switch action {
      case .add:
        return .merge(.send(.log("a")), .none, .send(.log("b")))
      case .log(let s):
        state.log.append(s)
        return .none
      }
    }
    let store = Store(initialState: Tally(), reducer: reducer)
    store.send(.add(1))
    #expect(store.state.log == ["a", "b"])
  }

  @Test func cancelledOrReleasedSubscriptionsStopReceiving() {
    let store = Store(initialState: Tally(), reducer: tallyReducer)
    var calls = 0
    let kept = store.subscribe { _, _ in calls += 1 }
    do {
      _ = store.subscribe { _, _ in calls += 100 }  // released at once
    }
    store.send(.add(1))
    #expect(calls == 1)
    kept.cancel()
    store.send(.add(1))
    #expect(calls == 1)
    #expect(kept.isCancelled)
  }

  @Test func aCancelledSubscriptionLetsGoOfItsCallbackWithoutAnotherAction() async {
    // A callback that sends to its own store holds the store; ending the subscription must
    // break that cycle even if no action follows (LeakSanitizer found the leak).
    weak var weakStore: Store<Tally, TallyAction>?
    do {
      let store = Store(initialState: Tally(), reducer: tallyReducer)
      weakStore = store
      let subscription = store.subscribe { _, new in
        if new.total > 100 { store.send(.add(-1)) }
      }
      store.send(.add(1))
      subscription.cancel()
    }
    for _ in 0..<1_000 where weakStore != nil { await Task.yield() }
    #expect(weakStore == nil)
  }

  @Test func subscribersMayCancelAndSubscribeWhileBeingNotified() {
    let store = Store(initialState: Tally(), reducer: tallyReducer)
    var calls: [String] = []
    var late: [StoreSubscription] = []
    var second: StoreSubscription?
    let first = store.subscribe { _, new in
      calls.append("first \(new.total)")
      second?.cancel()  // the next subscriber is not called once cancelled
      late.append(store.subscribe { _, new in calls.append("late \(new.total)") })
    }
    second = store.subscribe { _, new in calls.append("second \(new.total)") }
    store.send(.add(1))
    #expect(calls == ["first 1"])
    store.send(.add(2))
    #expect(calls == ["first 1", "first 3", "late 3"])
    withExtendedLifetime(first) {}
    #expect(late.count == 2)
  }

  @Test func aRecorderGetsTheStateOnlyAfterTheActionsItAsksFor() {
    final class EveryOther: StoreRecorder {
      let entries = Mutex<[String]>([])
      func wantsStateAfter(sequence: UInt64) -> Bool { sequence % 2 == 0 }
      func record(_ t: Transition<Tally, TallyAction>) {
        entries.withLock {
          $0.append("\(t.sequence): \(t.stateAfter.map { "\($0.total)" } ?? "-")")
        }
      }
    }
    let store = Store(initialState: Tally(), reducer: tallyReducer)
    let recorder = EveryOther()
    store.attach(recorder)
    for amount in 1...4 { store.send(.add(amount)) }
    #expect(recorder.entries.withLock { $0 } == ["1: -", "2: 3", "3: -", "4: 10"])
  }

  @Test func recordersSeeEveryActionWithSequenceTimeAndStates() {
    final class Log: StoreRecorder {
      let entries = Mutex<[String]>([])
      let wantsStateBefore = true
      func attached(sequence: UInt64, state: Tally) {
        entries.withLock { $0.append("attached at \(sequence) total \(state.total)") }
      }
      func record(_ t: Transition<Tally, TallyAction>) {
        entries.withLock {
          $0.append(
            "\(t.sequence) @\(t.time) \(t.stateBefore?.total ?? -1)->\(t.stateAfter?.total ?? -1)")
        }
      }
    }
    let store = Store(
      initialState: Tally(), reducer: tallyReducer, clock: .fixed(start: 100, interval: 0.5))
    store.send(.add(1))
    let log = Log()
    store.attach(log)
    store.send(.add(2))
    store.send(.add(3))
    store.detach(log)
    store.send(.add(4))
    #expect(
      log.entries.withLock { $0 } == ["attached at 1 total 1", "2 @101.0 1->3", "3 @101.5 3->6"])
  }

  @Test func aJumpSetsTheStateTellsEveryoneAndTheNextActionAppliesToIt() {
    final class Jumps: StoreRecorder {
      let entries = Mutex<[String]>([])
      func record(_ t: Transition<Tally, TallyAction>) {
        entries.withLock { $0.append("\(t.sequence): \(t.stateAfter?.total ?? -1)") }
      }
      func jumped(sequence: UInt64, time: Double, from previous: Tally, to state: Tally) {
        entries.withLock {
          $0.append("jump after \(sequence) @\(time): \(previous.total) to \(state.total)")
        }
      }
    }
    let store = Store(
      initialState: Tally(), reducer: tallyReducer, clock: .fixed(start: 100, interval: 1))
    let recorder = Jumps()
    store.attach(recorder)
    var totals: [String] = []
    let subscription = store.subscribe(to: \.total) { old, new in totals.append("\(old)->\(new)") }
    var whole = 0
    let all = store.subscribe { _, _ in whole += 1 }
    // Observation through a field read on the store, and through the whole state.
    let fieldNotifications = notifications(
      store, reading: { _ = store.total }, actions: [.add(5), .add(2)])
    #expect(fieldNotifications == 2)
    let observed = Mutex(false)
    withObservationTracking {
      _ = store.total
    } onChange: {
      observed.withLock { $0 = true }
    }
    store.jump(to: Tally(total: 1, log: ["jumped"]))
    #expect(observed.withLock { $0 })
    #expect(store.state == Tally(total: 1, log: ["jumped"]))
    #expect(store.sequence == 2)
    store.send(.add(10))
    #expect(store.state.total == 11)
    #expect(store.sequence == 3)
    #expect(totals == ["0->5", "5->7", "7->1", "1->11"])
    #expect(whole == 4)
    #expect(
      recorder.entries.withLock { $0 } == ["1: 5", "2: 7", "jump after 2 @102.0: 7 to 1", "3: 11"])
    subscription.cancel()
    all.cancel()
  }

  @Test func aJumpDuringAnActionComesAfterItAndItsQueue() async {
    let store = Store(initialState: Tally(), reducer: tallyReducer)
    var jumped = false
    let subscription = store.subscribe(to: \.total) { _, new in
      if new == 3, !jumped {
        jumped = true
        store.jump(to: Tally(total: 100))
        store.send(.add(1))
      }
    }
    store.send(.add(3))
    // The queued action ran first; the jump comes after, on the main actor.
    #expect(store.state.total == 4)
    await Task.yield()
    await Task.yield()
    #expect(store.state.total == 100)
    subscription.cancel()
  }

  /// The store calls the parts form of `record`; a recorder that implements it sees what a
  /// `Transition` would hold, and one that implements only `record(_:)` sees the same.
  @Test func aRecorderOfPartsSeesWhatATransitionHolds() {
    final class Parts: StoreRecorder {
      let entries = Mutex<[String]>([])
      let wantsStateBefore: Bool
      init(wantsStateBefore: Bool) { self.wantsStateBefore = wantsStateBefore }
      func wantsStateAfter(sequence: UInt64) -> Bool { sequence != 2 }
      func record(_ t: Transition<Tally, TallyAction>) {
        Issue.record("the store built a Transition")
      }
      func record(
        sequence: UInt64, time: Double, action: TallyAction, stateBefore: Tally?, stateAfter: Tally?
      ) {
        entries.withLock {
          $0.append(
            "\(sequence) @\(time) \(action) \(stateBefore?.total ?? -1)->\(stateAfter?.total ?? -1)"
          )
        }
      }
    }
    final class Whole: StoreRecorder {
      let entries = Mutex<[String]>([])
      func record(_ t: Transition<Tally, TallyAction>) {
        entries.withLock {
          $0.append(
            "\(t.sequence) @\(t.time) \(t.action) \(t.stateBefore?.total ?? -1)->\(t.stateAfter?.total ?? -1)"
          )
        }
      }
    }
    for wantsStateBefore in [false, true] {
      let store = Store(
        initialState: Tally(), reducer: tallyReducer, clock: .fixed(start: 100, interval: 0.5))
      let parts = Parts(wantsStateBefore: wantsStateBefore)
      let whole = Whole()
      store.attach(parts)
      store.attach(whole)
      for amount in 1...3 { store.send(.add(amount)) }
      let before = wantsStateBefore ? [0, 1, 3] : [-1, -1, -1]
      #expect(
        parts.entries.withLock { $0 } == [
          "1 @100.5 add(1) \(before[0])->1", "2 @101.0 add(2) \(before[1])->-1",
          "3 @101.5 add(3) \(before[2])->6",
        ])
      #expect(
        whole.entries.withLock { $0 } == [
          "1 @100.5 add(1) \(before[0])->1", "2 @101.0 add(2) \(before[1])->3",
          "3 @101.5 add(3) \(before[2])->6",
        ])
    }
  }

  @Test func observationTrackingFiresOnChange() async {
    let store = Store(initialState: Tally(), reducer: tallyReducer)
    let fired = Mutex(0)
    withObservationTracking {
      _ = store.state
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    store.send(.add(1))
    store.send(.add(1))  // the tracking fires once, as Observation promises
    #expect(fired.withLock { $0 } == 1)
    withObservationTracking {
      _ = store.state
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    store.send(.add(1))
    #expect(fired.withLock { $0 } == 2)
  }
}

extension Array {
  /// The array with room for `capacity` elements.
  fileprivate func reserving(_ capacity: Int) -> Self {
    var copy = self
    copy.reserveCapacity(capacity)
    return copy
  }
}
