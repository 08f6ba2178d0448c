import Dependencies
import Retrace
import RetraceDependencies
import Synchronization
import Testing

@testable import RetraceTesting

// When a test store reduces an effect's action (as it arrives, as TCA's does), and what it
// checks when it goes away without `finish()`.

private struct TickState: Equatable, Sendable {
  var ticks = 0
  var loaded: [Int] = []
  var started = false
  var followed = false
  var items = 0
  var child: Int?
}

private enum TickAction: Equatable, Sendable {
  case start
  case stop
  case tick
  case loaded(Int)
  case begin
  case follow
  case wait
  case echo
  case burst
  case item
  case fanOut(Int)
  case pokeChild
  case child(Int)

  static let childCase = ActionCase<TickAction, Int>(
    embed: { .child($0) }, extract: { if case .child(let n) = $0 { n } else { nil } })
}

private let tickFeature = TickFeature().ifLet(
  \.child, action: TickAction.childCase,
  then: Reduce<Int, Int> { state, number in
    state += number
    return .none
  })

/// A timer whose every tick loads something, the shape of a polling feature; `begin` sends
/// `follow` at once; `wait` starts an effect that outlives any test.
private struct TickFeature: Reducer {
  @Dependency(\.continuousClock) var clock

  func reduce(into state: inout TickState, action: TickAction) -> Effect<TickAction> {
    switch action {
    case .start:
      state.started = true
      return .timer(id: "poll", every: .seconds(1), clock: clock) { .tick }
    case .stop:
      state.started = false
      return .cancel(id: "poll")
    case .tick:
      state.ticks += 1
      let tick = state.ticks
      return .run { send in await send(.loaded(tick)) }
    case .loaded(let tick):
      state.loaded.append(tick)
      return .none
    case .begin:
      state.started = true
      return .send(.follow)
    case .follow:
      state.followed = true
      return .none
    case .wait:
      return .run { _ in try await Task.sleep(for: .seconds(3_600)) }
    case .echo:
      return .send(.echo)
    case .burst:
      // A thousand actions, then a sleep on the store's clock.
      return .run { [clock] send in
        for _ in 0..<1_000 { await send(.item) }
        try await clock.sleep(for: .seconds(1))
        await send(.loaded(0))
      }
    case .item:
      state.items += 1
      return .none
    case .fanOut(let count):
      return .merge((0..<count).map { _ in .send(.item) })
    case .pokeChild:
      return .run { send in await send(.child(1)) }
    case .child:
      return .none
    }
  }
}

/// Counts the effects of ``watchingFeature`` that were cancelled.
private final class CancelCount: Sendable {
  let count = Mutex(0)
}

/// `.wait` starts an effect that sleeps an hour on the real clock and counts its
/// cancellation.
private func watchingFeature(_ cancelled: CancelCount) -> Reduce<TickState, TickAction> {
  Reduce { _, action in
    guard case .wait = action else { return .none }
    return .run { _ in
      do { try await Task.sleep(for: .seconds(3_600)) } catch {
        cancelled.count.withLock { $0 += 1 }
      }
    }
  }
}

/// Waits up to a second for `cancelled` to reach `count`.
private func waitForCancellation(_ cancelled: CancelCount, count: Int = 1) async -> Int {
  for _ in 0..<1_000 where cancelled.count.withLock({ $0 }) < count {
    try? await Task.sleep(for: .milliseconds(1))
  }
  return cancelled.count.withLock { $0 }
}

/// A test that does not run on the main actor: a store it drops checks at once, in it.
@Suite struct ArrivalOffTheMainActorTests {
  @Test func aStoreDroppedOffTheMainActorReportsInItsTest() async {
    await withKnownIssue {
      let store = await TestStore(initialState: TickState(), reducer: TickFeature())
      await store.send(.wait)
    } matching: { issue in
      String(describing: issue).contains("still running when the store went away without finish()")
    }
  }
}

@MainActor
@Suite struct ArrivalTests {
  /// A non-exhaustive store that `finish()` left with an effect running cancels it when it
  /// goes away, without a word.
  @Test func aNonExhaustiveStoreCancelsItsEffectsWhenDroppedAfterFinish() async {
    let cancelled = CancelCount()
    do {
      let store = TestStore(initialState: TickState(), reducer: watchingFeature(cancelled))
      store.exhaustivity = .off
      await store.send(.wait)
      await store.finish(timeout: .milliseconds(10))
      #expect(cancelled.count.withLock { $0 } == 0)
    }
    #expect(await waitForCancellation(cancelled) == 1)
  }

  /// Each tick is reduced when it arrives and starts its load then: an advance of two
  /// intervals gives tick, loaded, tick, loaded, as in TCA.
  @Test func anEffectsActionIsReducedWhenItArrives() async {
    let store = TestStore(initialState: TickState(), reducer: TickFeature())
    await store.send(.start) { $0.started = true }
    await store.advance(by: .seconds(2))
    await store.receive(.tick) { $0.ticks = 1 }
    await store.receive(.loaded(1)) { $0.loaded = [1] }
    await store.receive(.tick) { $0.ticks = 2 }
    await store.receive(.loaded(2)) { $0.loaded = [1, 2] }
    await store.send(.stop) { $0.started = false }
    await store.finish()
  }

  /// `state` is what the test has checked: an action that arrived waits, reduced, until
  /// `receive` takes it.
  @Test func stateIsWhatTheTestHasChecked() async {
    let store = TestStore(initialState: TickState(), reducer: TickFeature())
    await store.send(.start) { $0.started = true }
    await store.advance(by: .seconds(1))
    #expect(store.receivedActions == [.tick, .loaded(1)])
    #expect(store.state.ticks == 0)
    await store.receive(.tick) { $0.ticks = 1 }
    #expect(store.state.ticks == 1)
    #expect(store.state.loaded == [])
    await store.receive(.loaded(1)) { $0.loaded = [1] }
    await store.send(.stop) { $0.started = false }
    await store.finish()
  }

  /// An action an effect sends at once is reduced after the action that sent it: the sent
  /// action's check does not see it.
  @Test func anActionSentAtOnceComesAfterTheOneThatSentIt() async {
    let store = TestStore(initialState: TickState(), reducer: TickFeature())
    await store.send(.begin) { $0.started = true }
    await store.receive(.follow) { $0.followed = true }
    await store.finish()
  }

  /// Non-exhaustive: a send after actions that arrived follows them, and its check starts
  /// from the state they made.
  @Test func aNonExhaustiveSendFollowsTheActionsThatArrived() async {
    let store = TestStore(initialState: TickState(), reducer: TickFeature())
    store.exhaustivity = .off
    await store.send(.start)
    await store.advance(by: .seconds(1))
    await store.send(.stop) {
      #expect($0.loaded == [1])
      $0.started = false
    }
    #expect(store.state == TickState(ticks: 1, loaded: [1], started: false))
    #expect(store.receivedActions.isEmpty)
    await store.finish()
  }

  /// A store that goes away without `finish()` while an effect runs fails the test, where
  /// the store was made, and cancels the effect.
  @Test func aStoreDroppedWithAnEffectRunningFailsTheTest() async {
    // The closure runs on the main actor, as a test does: the store goes away there, and
    // checks at once.
    await withKnownIssue { @MainActor in
      let store = TestStore(initialState: TickState(), reducer: TickFeature())
      await store.send(.wait)
    } matching: { issue in
      let text = String(describing: issue)
      return text.contains("still running when the store went away without finish()")
        && text.contains("TickAction.wait")
    }
  }

  /// A store that goes away with an action nobody received fails the test.
  @Test func aStoreDroppedWithAnUnreceivedActionFailsTheTest() async {
    // The closure runs on the main actor, as a test does: the store goes away there, and
    // checks at once.
    await withKnownIssue { @MainActor in
      let store = TestStore(initialState: TickState(), reducer: TickFeature())
      await store.send(.begin) { $0.started = true }
    } matching: { issue in
      String(describing: issue).contains("were not handled")
    }
  }

  /// A store whose effects the test cancelled goes away without a failure, though the
  /// cancelled tasks may not have ended yet.
  @Test func aStoreWhoseEffectsWereCancelledPassesWhenDropped() async {
    let store = TestStore(initialState: TickState(), reducer: TickFeature())
    await store.send(.wait)
    store.cancelInFlightEffects()
  }

  /// An action whose effect sends it again at once would reduce without end: past the
  /// limit, the test fails and the store stops, instead of holding the test for good.
  @Test func anActionThatSendsItselfAtOnceFailsInsteadOfHanging() async {
    await withKnownIssue { @MainActor in
      let store = TestStore(initialState: TickState(), reducer: TickFeature())
      store.arrivalLimit = 100
      await store.send(.echo)
      #expect(store.receivedActions.count == 100)
      store.skipReceivedActions()
    } matching: { issue in
      String(describing: issue).contains("led to a chain of more than 100 actions")
    }
  }

  /// An effect that sends many actions, then sleeps, has reached its sleep when `send`
  /// returns: the advance wakes it. Watching the executor alone, the store saw it idle
  /// between two of its actions, and moved the clock before the effect slept.
  @Test func anEffectThatSendsManyActionsHasSettledBeforeTheClockMoves() async {
    let store = TestStore(initialState: TickState(), reducer: TickFeature())
    store.exhaustivity = .off
    await store.send(.burst)
    await store.advance(by: .seconds(1))
    await store.receive(.loaded(0)) {
      #expect($0.items == 1_000)
      $0.loaded = [0]
    }
    await store.finish()
  }

  /// A reducer's mistake in an action no one received still fails the test, whatever the
  /// exhaustivity, as in TCA: an `ifLet` that got a child action while its child was `nil`.
  @Test(arguments: [Exhaustivity.on, .off])
  func aMistakeInAnActionNotReceivedFailsTheTest(exhaustivity: Exhaustivity) async {
    let messages = IssueMessages()
    await withKnownIssue { @MainActor in
      let store = TestStore(initialState: TickState(), reducer: tickFeature)
      store.exhaustivity = exhaustivity
      await store.send(.pokeChild)
      await store.finish()
    } matching: { issue in
      messages.append(String(describing: issue))
      return true
    }
    #expect(
      messages.all.contains { $0.contains("received a child action when its child state was nil") })
  }

  /// The limit is on a chain's length, not on how many actions one action sends at once.
  @Test func manyActionsSentAtOnceAreNoChain() async {
    let store = TestStore(initialState: TickState(), reducer: TickFeature())
    store.arrivalLimit = 100
    store.exhaustivity = .off
    await store.send(.fanOut(101))
    store.skipReceivedActions()
    #expect(store.state.items == 101)
  }

  /// A store dropped just after it received an effect's last action does not count that
  /// effect as running: its work has returned, though its task may not yet have told the
  /// main actor. Only the timer is. Checked many times, as the window is narrow.
  @Test func aStoreDroppedAsItsLastEffectEndsPasses() async {
    let messages = IssueMessages()
    for _ in 0..<100 {
      await withKnownIssue { @MainActor in
        let store = TestStore(initialState: TickState(), reducer: TickFeature())
        await store.send(.start) { $0.started = true }
        await store.advance(by: .seconds(1))
        await store.receive(.tick) { $0.ticks = 1 }
        await store.receive(.loaded(1)) { $0.loaded = [1] }
      } matching: { issue in
        messages.append(String(describing: issue))
        return true
      }
    }
    #expect(messages.all.count == 100)
    let wrong = messages.all.filter { !$0.contains("1 effect(s) still running") }
    #expect(wrong.isEmpty, "\(wrong.first ?? "")")
  }

  /// A non-exhaustive store does not fail for an effect still running, at `finish()` or
  /// when dropped, as TCA's `.off` does not; `finish()` leaves the effect running.
  @Test func aNonExhaustiveStoreWithAnEffectRunningPasses() async {
    let store = TestStore(initialState: TickState(), reducer: TickFeature())
    store.exhaustivity = .off
    await store.send(.start)
    await store.finish(timeout: .milliseconds(10))
    await store.advance(by: .seconds(1))
    await store.receive(.tick)
    #expect(store.state.ticks == 1)
    await store.send(.wait)
  }

  /// A non-exhaustive store that goes away with an action nobody received passes.
  @Test func aNonExhaustiveStoreDroppedWithAnUnreceivedActionPasses() async {
    let store = TestStore(initialState: TickState(), reducer: TickFeature())
    store.exhaustivity = .off
    await store.send(.begin)
  }
}
