import CasePathsCore
import Retrace
import RetraceDependencies
import RetraceTesting
import Testing

/// A sheet with a timer that ticks every second once started, and a `close` button that
/// dismisses the sheet (its parent handles it) after starting a last save.
struct TimerSheet: Equatable, Identifiable, Sendable {
  var id: Int
  var ticks = 0
}

enum TimerSheetAction: Equatable, Sendable {
  case start
  case tick
  case close
  case saved
}

struct TimerSheetFeature: Reducer {
  func reduce(into state: inout TimerSheet, action: TimerSheetAction) -> Effect<TimerSheetAction> {
    @Dependency(\.continuousClock) var clock
    switch action {
    case .start:
      return .run { send in
        while true {
          try await clock.sleep(for: .seconds(1))
          await send(.tick)
        }
      }
    case .tick:
      state.ticks += 1
      return .none
    case .close:
      return .run { send in
        try await clock.sleep(for: .seconds(1))
        await send(.saved)
      }
    case .saved:
      return .none
    }
  }
}

/// The same sheet without its identity, to check that presence alone decides.
struct PlainSheet: Equatable, Sendable {
  var ticks = 0
}

struct PlainSheetFeature: Reducer {
  func reduce(into state: inout PlainSheet, action: TimerSheetAction) -> Effect<TimerSheetAction> {
    var sheet = TimerSheet(id: 0, ticks: state.ticks)
    defer { state.ticks = sheet.ticks }
    return TimerSheetFeature().reduce(into: &sheet, action: action)
  }
}

struct SheetHost: Equatable, Sendable {
  var sheet: TimerSheet?
  var plain: PlainSheet?
  var note = ""
}

enum SheetHostAction: Equatable, Sendable {
  case present(Int)
  case presentPlain
  case dismiss
  case rename(String)
  case sheet(TimerSheetAction)
  case plain(TimerSheetAction)

  static let sheetCase = ActionCase<SheetHostAction, TimerSheetAction>(
    embed: { .sheet($0) }, extract: { if case .sheet(let action) = $0 { action } else { nil } })
  static let plainCase = ActionCase<SheetHostAction, TimerSheetAction>(
    embed: { .plain($0) }, extract: { if case .plain(let action) = $0 { action } else { nil } })
}

struct SheetHostFeature: Reducer {
  func reduce(into state: inout SheetHost, action: SheetHostAction) -> Effect<SheetHostAction> {
    switch action {
    case .present(let id):
      state.sheet = TimerSheet(id: id)
    case .presentPlain:
      state.plain = PlainSheet()
    case .dismiss:
      state.sheet = nil
      state.plain = nil
    case .rename(let note):
      state.note = note
      state.sheet?.ticks = 0
      state.plain?.ticks = 0
    case .sheet(.close):
      state.sheet = nil
    case .plain(.close):
      state.plain = nil
    case .sheet, .plain:
      break
    }
    return .none
  }
}

let sheetHost = SheetHostFeature()
  .ifLet(\.sheet, action: SheetHostAction.sheetCase, then: TimerSheetFeature())
  .ifLet(\.plain, action: SheetHostAction.plainCase, then: PlainSheetFeature())

@Suite("Presentation")
@MainActor
struct PresentationTests {
  @Test func dismissingTheSheetCancelsItsTimer() async {
    let store = TestStore(initialState: SheetHost(), reducer: sheetHost)
    await store.send(.present(1)) { $0.sheet = TimerSheet(id: 1) }
    await store.send(.sheet(.start))
    await store.advance(by: .seconds(1))
    await store.receive(.sheet(.tick)) { $0.sheet?.ticks = 1 }
    await store.send(.dismiss) { $0.sheet = nil }
    await store.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func theChildDismissingItselfCancelsItsEffectsAndTheOnesItStarts() async {
    let store = TestStore(initialState: SheetHost(), reducer: sheetHost)
    await store.send(.present(1)) { $0.sheet = TimerSheet(id: 1) }
    await store.send(.sheet(.start))
    await store.send(.sheet(.close)) { $0.sheet = nil }
    await store.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func aSheetReplacedByAnotherIDTakesItsEffectsWithIt() async {
    let store = TestStore(initialState: SheetHost(), reducer: sheetHost)
    await store.send(.present(1)) { $0.sheet = TimerSheet(id: 1) }
    await store.send(.sheet(.start))
    await store.send(.present(2)) { $0.sheet = TimerSheet(id: 2) }
    await store.send(.sheet(.start))
    // One tick a second: sheet 2's timer; sheet 1's is gone.
    await store.advance(by: .seconds(1))
    await store.receive(.sheet(.tick)) { $0.sheet?.ticks = 1 }
    await store.advance(by: .seconds(1))
    await store.receive(.sheet(.tick)) { $0.sheet?.ticks = 2 }
    await store.send(.dismiss) { $0.sheet = nil }
    await store.finish()
  }

  @Test func aChildThatStaysPresentedKeepsItsEffects() async {
    let store = TestStore(initialState: SheetHost(), reducer: sheetHost)
    await store.send(.present(1)) { $0.sheet = TimerSheet(id: 1) }
    await store.send(.sheet(.start))
    await store.advance(by: .seconds(1))
    await store.receive(.sheet(.tick)) { $0.sheet?.ticks = 1 }
    // The parent changes the sheet, which stays presented with the same id.
    await store.send(.rename("x")) {
      $0.note = "x"
      $0.sheet?.ticks = 0
    }
    await store.send(.present(1))
    await store.advance(by: .seconds(1))
    await store.receive(.sheet(.tick)) { $0.sheet?.ticks = 1 }
    await store.send(.dismiss) { $0.sheet = nil }
    await store.finish()
  }

  @Test func presenceAloneDecidesForAChildWithoutIdentity() async {
    let store = TestStore(initialState: SheetHost(), reducer: sheetHost)
    await store.send(.presentPlain) { $0.plain = PlainSheet() }
    await store.send(.plain(.start))
    // Replaced while presented: the timer runs on.
    await store.send(.presentPlain)
    await store.advance(by: .seconds(1))
    await store.receive(.plain(.tick)) { $0.plain?.ticks = 1 }
    await store.send(.plain(.close)) { $0.plain = nil }
    await store.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func aDismissedSheetSendsNothingToTheNextOne() async {
    let store = TestStore(initialState: SheetHost(), reducer: sheetHost)
    await store.send(.present(1)) { $0.sheet = TimerSheet(id: 1) }
    await store.send(.sheet(.start))
    await store.send(.dismiss) { $0.sheet = nil }
    await store.send(.present(1)) { $0.sheet = TimerSheet(id: 1) }
    await store.advance(by: .seconds(3))
    #expect(store.receivedActions.isEmpty)
    await store.send(.dismiss) { $0.sheet = nil }
    await store.finish()
  }
}
