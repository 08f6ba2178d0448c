import CasePathsCore
import Foundation
import IssueReporting
import Retrace
import RetraceDependencies
import RetraceTesting
import Synchronization
import Testing

/// A client an effect reaches through swift-dependencies, with no test value: a test that
/// lets an effect use it without saying what it returns must fail.
struct SearchClient: Sendable {
  var search: @Sendable (String) async throws -> [String]
}

extension SearchClient: DependencyKey {
  static let liveValue = SearchClient { query in ["live:\(query)"] }
}

extension DependencyValues {
  var searchClient: SearchClient {
    get { self[SearchClient.self] }
    set { self[SearchClient.self] = newValue }
  }
}

enum SearchAction: Equatable, Sendable {
  case queryChanged(String)
  case searched([String])
  case cancelSearch
  case refreshTapped(Int)
  case refreshed(Int)
  case startTimer
  case stopTimer
  case tick
}

struct SearchState: Equatable, Sendable {
  var query = ""
  var results: [String] = []
  var refreshed: [Int] = []
  var ticks = 0
}

/// A debounced search, a throttled refresh and a timer, each on the clock its dependencies
/// give, as a feature of a notes app writes them.
struct SearchFeature: Reducer {
  var latest = true

  func reduce(into state: inout SearchState, action: SearchAction) -> Effect<SearchAction> {
    @Dependency(\.continuousClock) var clock
    @Dependency(\.searchClient) var client
    switch action {
    case .queryChanged(let query):
      state.query = query
      return .run { send in
        await send(.searched(try await client.search(query)))
      }
      .debounce(id: "search", for: .milliseconds(300), clock: clock)
    case .searched(let results):
      state.results = results
      return .none
    case .cancelSearch:
      return .cancel(id: "search")
    case .refreshTapped(let n):
      return .send(.refreshed(n)).throttle(
        id: "refresh", for: .seconds(1), clock: clock, latest: latest)
    case .refreshed(let n):
      state.refreshed.append(n)
      return .none
    case .startTimer:
      return .timer(id: "timer", every: .seconds(1), clock: clock) { .tick }
    case .stopTimer:
      return .cancel(id: "timer")
    case .tick:
      state.ticks += 1
      return .none
    }
  }
}

extension SearchAction {
  /// A hand-written case path, as `@CasePathable` would write it.
  static let searchedCase = ActionCase<SearchAction, [String]>(
    embed: SearchAction.searched,
    extract: { if case .searched(let results) = $0 { results } else { nil } })
}

/// `SearchAction` as `@CasePathable` makes it, written by hand: what `receive(\.searched)`
/// needs.
extension SearchAction: CasePathable {
  struct AllCasePaths: Sendable {
    var searched: AnyCasePath<SearchAction, [String]> {
      AnyCasePath(
        embed: SearchAction.searched,
        extract: { if case .searched(let results) = $0 { results } else { nil } })
    }
    var tick: AnyCasePath<SearchAction, Void> {
      AnyCasePath(embed: { SearchAction.tick }, extract: { if case .tick = $0 { () } else { nil } })
    }
  }
  static var allCasePaths: AllCasePaths { AllCasePaths() }
}

@MainActor
@Suite struct TimingTests {
  func makeStore(latest: Bool = true) -> TestStore<SearchState, SearchAction> {
    TestStore(initialState: SearchState(), reducer: SearchFeature(latest: latest)) {
      $0.searchClient.search = { query in ["result:\(query)"] }
    }
  }

  @Test func aDebouncedSearchRunsOnceTheTypingStops() async {
    let store = makeStore()
    await store.send(.queryChanged("m")) { $0.query = "m" }
    await store.advance(by: .milliseconds(200))
    await store.send(.queryChanged("mi")) { $0.query = "mi" }
    await store.advance(by: .milliseconds(200))
    await store.send(.queryChanged("milk")) { $0.query = "milk" }
    // 299 ms after the last keystroke: nothing yet, although 700 ms passed since the first.
    await store.advance(by: .milliseconds(299))
    #expect(store.receivedActions.isEmpty)
    await store.advance(by: .milliseconds(1))
    await store.receive(\.searched) { $0.results = ["result:milk"] }
    await store.finish()
  }

  @Test func aCancelledDebounceNeverRuns() async {
    let store = makeStore()
    await store.send(.queryChanged("milk")) { $0.query = "milk" }
    await store.send(.cancelSearch)
    await store.advance(by: .seconds(5))
    #expect(store.receivedActions.isEmpty)
    // The identifier is free again: a new search debounces from scratch.
    await store.send(.queryChanged("eggs")) { $0.query = "eggs" }
    await store.advance(by: .milliseconds(300))
    await store.receive(SearchAction.searchedCase) { $0.results = ["result:eggs"] }
    await store.finish()
  }

  @Test func aThrottleStartsTheFirstAtOnceAndTheLatestAtTheWindowsEnd() async {
    let store = makeStore(latest: true)
    await store.send(.refreshTapped(1))
    await store.receive(.refreshed(1)) { $0.refreshed = [1] }
    await store.advance(by: .milliseconds(100))
    await store.send(.refreshTapped(2))
    await store.send(.refreshTapped(3))
    await store.advance(by: .milliseconds(899))
    #expect(store.receivedActions.isEmpty)
    await store.advance(by: .milliseconds(1))
    await store.receive(.refreshed(3)) { $0.refreshed = [1, 3] }
    // Once a window has passed quietly, the next one starts at once.
    await store.advance(by: .seconds(2))
    await store.send(.refreshTapped(4))
    await store.receive(.refreshed(4)) { $0.refreshed = [1, 3, 4] }
    await store.finish()
  }

  @Test func aThrottleWithoutLatestKeepsTheFirst() async {
    let store = makeStore(latest: false)
    await store.send(.refreshTapped(1))
    await store.receive(.refreshed(1)) { $0.refreshed = [1] }
    await store.send(.refreshTapped(2))
    await store.send(.refreshTapped(3))
    await store.advance(by: .seconds(1))
    await store.receive(.refreshed(2)) { $0.refreshed = [1, 2] }
    await store.advance(by: .seconds(1))
    #expect(store.receivedActions.isEmpty)
    await store.finish()
  }

  @Test func aTimerTicksOnTheTestClockUntilStopped() async {
    let store = makeStore()
    await store.send(.startTimer)
    await store.advance(by: .seconds(1))
    await store.receive(\.tick) { $0.ticks = 1 }
    // A two-second jump ticks twice: the store wakes the timer once for each interval.
    await store.advance(by: .seconds(2))
    await store.receive(\.tick) { $0.ticks = 2 }
    await store.receive(\.tick) { $0.ticks = 3 }
    await store.send(.stopTimer)
    await store.advance(by: .seconds(10))
    #expect(store.receivedActions.isEmpty)
    await store.finish()
  }

  @Test func aDebounceStillWaitingFailsFinishNamingTheActionThatStartedIt() async {
    let store = makeStore()
    store.timeout = .milliseconds(50)
    await store.send(.queryChanged("milk")) { $0.query = "milk" }
    await withKnownIssue {
      await store.finish()
    } matching: {
      $0.description.contains("1 effect(s) still running")
        && $0.description.contains("started by:\n  SearchAction.queryChanged(\"milk\")")
    }
  }

  @Test func aReceiveThatTimesOutWhileAnEffectWaitsNamesItsActionAndSaysToAdvance() async {
    let store = makeStore()
    await store.send(.queryChanged("milk")) { $0.query = "milk" }
    await withKnownIssue {
      await store.receive(\.searched, timeout: .milliseconds(50))
    } matching: {
      $0.description.contains("received none") && $0.description.contains("advance(by:)")
        && $0.description.contains("started by:\n  SearchAction.queryChanged(\"milk\")")
    }
    await store.advance(by: .milliseconds(300))
    await store.receive(\.searched) { $0.results = ["result:milk"] }
    await store.finish()
  }
}

@MainActor
@Suite struct DependencyTests {
  /// swift-dependencies' Foundation values are there, as "Defining a domain" reads them in
  /// an effect: `uuid` and `date.now`, set by the test.
  @Test func anEffectReadsTheUUIDAndDateATestGives() async {
    enum NoteAction: Equatable, Sendable {
      case add
      case created(id: UUID, at: Date)
    }
    let reducer = Reduce<[UUID], NoteAction> { state, action in
      switch action {
      case .add:
        return .run { send in
          @Dependency(\.uuid) var uuid
          @Dependency(\.date.now) var now
          await send(.created(id: uuid(), at: now))
        }
      case .created(let id, _):
        state.append(id)
        return .none
      }
    }
    let store = TestStore(initialState: [], reducer: reducer) {
      $0.uuid = .incrementing
      $0.date = .constant(Date(timeIntervalSince1970: 1_000))
    }
    await store.send(.add)
    await store.receive(.created(id: UUID(0), at: Date(timeIntervalSince1970: 1_000))) {
      $0 = [UUID(0)]
    }
    await store.finish()
  }

  @Test func anEffectThatUsesAClientWithNoTestValueFailsTheTest() async {
    let store = TestStore(initialState: SearchState(), reducer: SearchFeature())
    // Issues are caught only from tasks started inside `withKnownIssue`: the effect's.
    await withKnownIssue {
      await store.send(.queryChanged("milk")) { $0.query = "milk" }
      await store.advance(by: .milliseconds(300))
      await store.receive(\.searched) { $0.results = ["live:milk"] }
    } matching: {
      $0.description.contains("searchClient")
    }
    store.exhaustivity = .off
    await store.finish()
  }

  @Test func aReducerModifierSetsADependencyForItsEffects() async {
    let store = TestStore(
      initialState: SearchState(),
      reducer: SearchFeature().dependency(\.searchClient, SearchClient { ["stub:\($0)"] }))
    await store.send(.queryChanged("tea")) { $0.query = "tea" }
    await store.advance(by: .milliseconds(300))
    await store.receive(\.searched) { $0.results = ["stub:tea"] }
    await store.finish()
  }

  @Test func aStoreUsesTheDependenciesItWasMadeWith() async throws {
    let clock = TestClock<Duration>()
    let store = Store(initialState: SearchState(), reducer: SearchFeature()) {
      $0.continuousClock = clock
      $0.searchClient.search = { ["store:\($0)"] }
    }
    let recorder = TimesRecorder()
    store.attach(recorder)
    let start = clock.now
    store.send(.queryChanged("jam"))
    // The debounce's task may not have reached its sleep when the clock first moves: move it
    // to the deadline (fixed when the action was sent) until the search has come back.
    for _ in 0..<5_000 where store.state.results.isEmpty {
      await clock.advance(to: start.advanced(by: .milliseconds(300)))
      try await Task.sleep(for: .milliseconds(1))
    }
    await store.waitForEffects()
    #expect(store.state.results == ["store:jam"])
    // The trace's times come from the store's clock: 0.3 s apart, as the test clock moved.
    let times = recorder.times.withLock { $0 }
    try #require(times.count == 2)
    #expect(abs(times[1] - times[0] - 0.3) < 1e-6)
  }

  @Test func aRecordedStoreInATestThatSetsNoClockTimesActionsByTheWallClock() async throws {
    // The test's `continuousClock` is unimplemented: reading it would report an issue per
    // action and give every action the same time.
    let store = Store(initialState: SearchState(), reducer: SearchFeature()) {
      $0.searchClient.search = { _ in [] }
    }
    let recorder = TimesRecorder()
    store.attach(recorder)
    let before = StoreClock.system.now(0)
    store.send(.searched(["a"]))
    try await Task.sleep(for: .milliseconds(20))
    store.send(.searched(["b"]))
    let after = StoreClock.system.now(0)
    let times = recorder.times.withLock { $0 }
    try #require(times.count == 2)
    #expect(times[0] >= before && times[1] <= after)
    #expect(times[1] - times[0] >= 0.015)
  }

  @Test func aStoreClockFollowsItsClock() async {
    let clock = TestClock<Duration>()
    let storeClock = StoreClock(clock, startingAt: 1_000)
    #expect(storeClock.now(1) == 1_000)
    await clock.advance(by: .milliseconds(1_500))
    #expect(storeClock.now(2) == 1_001.5)
  }
}

/// Keeps the time of every action a store reduces.
final class TimesRecorder: StoreRecorder {
  let times = Mutex<[Double]>([])
  var wantsStateBefore: Bool { false }
  func wantsStateAfter(sequence: UInt64) -> Bool { false }
  func record(_ transition: Transition<SearchState, SearchAction>) {
    times.withLock { $0.append(transition.time) }
  }
}

/// A sheet with a debounced search and a throttled refresh, presented with `ifLet`: what a
/// dismissal must end, and what a second presentation must get back.
struct SheetState: Equatable, Sendable {
  var results: [String] = []
  var refreshed: [Int] = []
}

enum SheetAction: Equatable, Sendable {
  case type(String)
  case searched(String)
  case tap(Int)
  case refreshed(Int)
}

struct SheetFeature: Reducer {
  func reduce(into state: inout SheetState, action: SheetAction) -> Effect<SheetAction> {
    @Dependency(\.continuousClock) var clock
    switch action {
    case .type(let query):
      return .send(.searched(query)).debounce(id: "search", for: .milliseconds(300), clock: clock)
    case .searched(let query):
      state.results.append(query)
      return .none
    case .tap(let n):
      return .send(.refreshed(n)).throttle(
        id: "refresh", for: .seconds(1), clock: clock, latest: true)
    case .refreshed(let n):
      state.refreshed.append(n)
      return .none
    }
  }
}

struct HostState: Equatable, Sendable {
  var sheet: SheetState?
}

enum HostAction: Equatable, Sendable {
  case present
  case dismiss
  case sheet(SheetAction)

  static let sheetCase = ActionCase<HostAction, SheetAction>(
    embed: HostAction.sheet, extract: { if case .sheet(let action) = $0 { action } else { nil } })
}

let hostReducer = Reduce<HostState, HostAction> { state, action in
  switch action {
  case .present: state.sheet = SheetState()
  case .dismiss: state.sheet = nil
  case .sheet: break
  }
  return .none
}
.ifLet(\.sheet, action: HostAction.sheetCase, then: SheetFeature())

@MainActor
@Suite struct TimingEdgeTests {
  @Test func aDebounceEndedByADismissalWorksAgainWhenTheSheetComesBack() async {
    let store = TestStore(initialState: HostState(), reducer: hostReducer)
    await store.send(.present) { $0.sheet = SheetState() }
    await store.send(.sheet(.type("a")))
    await store.send(.dismiss) { $0.sheet = nil }
    await store.send(.present) { $0.sheet = SheetState() }
    await store.send(.sheet(.type("b")))
    await store.advance(by: .milliseconds(300))
    await store.receive(.sheet(.searched("b"))) { $0.sheet?.results = ["b"] }
    await store.finish()
  }

  /// A throttle's window ends with the sheet it ran in: the next sheet's first tap is not
  /// held back by the dismissed one's window.
  @Test func aThrottleWindowEndsWithItsSheet() async {
    let store = TestStore(initialState: HostState(), reducer: hostReducer)
    await store.send(.present) { $0.sheet = SheetState() }
    await store.send(.sheet(.tap(1)))
    await store.receive(.sheet(.refreshed(1))) { $0.sheet?.refreshed = [1] }
    await store.send(.dismiss) { $0.sheet = nil }
    await store.send(.present) { $0.sheet = SheetState() }
    await store.send(.sheet(.tap(3)))
    await store.receive(.sheet(.refreshed(3))) { $0.sheet?.refreshed = [3] }
    await store.finish()
  }

  @Test func aThrottledEffectWaitingInADismissedSheetNeverRuns() async {
    let store = TestStore(initialState: HostState(), reducer: hostReducer)
    await store.send(.present) { $0.sheet = SheetState() }
    await store.send(.sheet(.tap(1)))
    await store.receive(.sheet(.refreshed(1))) { $0.sheet?.refreshed = [1] }
    await store.send(.sheet(.tap(2)))
    await store.send(.dismiss) { $0.sheet = nil }
    await store.advance(by: .seconds(2))
    #expect(store.receivedActions.isEmpty)
    // The throttle is free again for the next sheet.
    await store.send(.present) { $0.sheet = SheetState() }
    await store.send(.sheet(.tap(3)))
    await store.receive(.sheet(.refreshed(3))) { $0.sheet?.refreshed = [3] }
    await store.finish()
  }

  @Test func aChildActionWithoutChildStateFailsATestStore() async {
    let store = TestStore(initialState: HostState(), reducer: hostReducer)
    await withKnownIssue {
      await store.send(.sheet(.searched("late")))
    } matching: {
      $0.description.contains("received a child action when its child state was nil")
        && $0.description.contains("after the action HostAction.sheet(.searched(\"late\"))")
    }
    #expect(store.state.sheet == nil)
    await store.finish()
  }

  @Test func aChildActionWithoutChildStateReportsNothingInAStore() async {
    // What a replay does too: the reducer runs outside any test store, and must report
    // nothing (an issue here would fail this test).
    let store = Store(initialState: HostState(), reducer: hostReducer)
    store.send(.sheet(.searched("late")))
    #expect(store.state.sheet == nil)
    var state = HostState()
    _ = hostReducer.reduce(into: &state, action: .sheet(.searched("late")))
    #expect(state.sheet == nil)
  }

  @Test func aTimerThatIsNotPositiveIsReportedAndDoesNotStart() {
    withKnownIssue {
      let effect = Effect<SearchAction>.timer(id: "t", every: .zero, clock: ContinuousClock()) {
        .tick
      }
      #expect(effect.isNone)
    } matching: {
      $0.description.contains("must be positive")
    }
  }

  @Test func aDebounceOfADebouncedAndMappedEffectWaitsForBoth() async {
    // The outer debounce waits 300 ms of quiet, then the inner one 100 ms more; mapping the
    // effect (as a parent does to a child's) keeps both.
    let store = TestStore(
      initialState: SearchState(),
      reducer: Reduce<SearchState, SearchAction> { state, action in
        @Dependency(\.continuousClock) var clock
        switch action {
        case .queryChanged(let query):
          state.query = query
          return Effect<SearchAction>.send(.searched([query]))
            .debounce(id: "inner", for: .milliseconds(100), clock: clock)
            .map { $0 }
            .debounce(id: "outer", for: .milliseconds(300), clock: clock)
        case .searched(let results):
          state.results = results
          return .none
        default:
          return .none
        }
      })
    await store.send(.queryChanged("m")) { $0.query = "m" }
    await store.advance(by: .milliseconds(200))
    await store.send(.queryChanged("mi")) { $0.query = "mi" }
    await store.advance(by: .milliseconds(399))
    #expect(store.receivedActions.isEmpty)
    await store.advance(by: .milliseconds(1))
    await store.receive(\.searched) { $0.results = ["mi"] }
    await store.finish()
  }

  @Test func aDebounceLongerThanTheClocksRangeWaitsWithoutTrapping() async {
    let store = Store(
      initialState: SearchState(),
      reducer: Reduce<SearchState, SearchAction> { _, _ in
        Effect<SearchAction>.send(.tick).debounce(
          id: "long", for: .seconds(Int64.max), clock: ContinuousClock())
      })
    store.send(.startTimer)
    for _ in 0..<10 { await Task.yield() }
    #expect(store.runningEffectCount == 1)
    store.cancelAllEffects()
    await store.waitForEffects()
  }

  @Test func aStoreWithDependenciesThatRecordsNothingNeverReadsTheClock() async {
    // In a test, `continuousClock` is unimplemented unless set: a store made with
    // dependencies must not touch it until it times an action for a recorder.
    let store = Store(initialState: SearchState(), reducer: SearchFeature()) {
      $0.searchClient.search = { _ in [] }
    }
    store.send(.searched(["x"]))
    #expect(store.state.results == ["x"])
  }
}
