import IdentifiedCollections
import Retrace
import RetraceTesting
import Testing

/// A list of timer sheets (`PresentationTests`' element), each addressed by its `id`.
struct SheetList: Equatable, Sendable {
  var sheets: IdentifiedArrayOf<TimerSheet> = []
}

enum SheetListAction: Equatable, Sendable {
  case add(Int)
  case remove(Int)
  case reverse
  case sheet(id: Int, action: TimerSheetAction)

  static let sheetCase = ActionCase<SheetListAction, (id: Int, action: TimerSheetAction)>(
    embed: { .sheet(id: $0.id, action: $0.action) },
    extract: { if case .sheet(let id, let action) = $0 { (id, action) } else { nil } })
}

struct SheetListFeature: Reducer {
  func reduce(into state: inout SheetList, action: SheetListAction) -> Effect<SheetListAction> {
    switch action {
    case .add(let id):
      state.sheets.append(TimerSheet(id: id))
    case .remove(let id):
      state.sheets.remove(id: id)
    case .reverse:
      state.sheets.reverse()
    case .sheet(let id, .close):
      state.sheets.remove(id: id)
    case .sheet:
      break
    }
    return .none
  }
}

let sheetList = SheetListFeature()
  .forEach(\.sheets, action: SheetListAction.sheetCase, element: TimerSheetFeature())

@Suite("forEach cancellation")
@MainActor
struct ForEachCancellationTests {
  /// An action for an element not in the collection fails the test, as an `ifLet`'s child
  /// action without child state does, and as TCA's `forEach` does.
  @Test func anActionForAMissingElementFailsTheTest() async {
    let store = TestStore(initialState: SheetList(), reducer: sheetList)
    await withKnownIssue {
      await store.send(.sheet(id: 9, action: .start))
    } matching: { issue in
      String(describing: issue).contains("received an action for a missing element, id 9")
    }
    await store.finish()
  }

  @Test func removingAnElementCancelsItsTimer() async {
    let store = TestStore(initialState: SheetList(), reducer: sheetList)
    await store.send(.add(1)) { $0.sheets = [TimerSheet(id: 1)] }
    await store.send(.sheet(id: 1, action: .start))
    await store.advance(by: .seconds(1))
    await store.receive(.sheet(id: 1, action: .tick)) { $0.sheets[id: 1]?.ticks = 1 }
    await store.send(.remove(1)) { $0.sheets = [] }
    await store.advance(by: .seconds(5))
    #expect(store.receivedActions.isEmpty)
    await store.finish()
  }

  @Test func anElementRemovingItselfCancelsItsEffectsAndTheOnesItStarts() async {
    let store = TestStore(initialState: SheetList(), reducer: sheetList)
    await store.send(.add(1)) { $0.sheets = [TimerSheet(id: 1)] }
    await store.send(.sheet(id: 1, action: .start))
    await store.send(.sheet(id: 1, action: .close)) { $0.sheets = [] }
    await store.advance(by: .seconds(5))
    await store.finish()
  }

  @Test func theOtherElementsAndMovedOnesKeepTheirEffects() async {
    let store = TestStore(initialState: SheetList(), reducer: sheetList)
    await store.send(.add(1)) { $0.sheets = [TimerSheet(id: 1)] }
    await store.send(.add(2)) { $0.sheets.append(TimerSheet(id: 2)) }
    await store.send(.sheet(id: 1, action: .start))
    await store.send(.sheet(id: 2, action: .start))
    await store.send(.reverse) { $0.sheets.reverse() }
    await store.send(.remove(1)) { $0.sheets.remove(id: 1) }
    await store.advance(by: .seconds(1))
    await store.receive(.sheet(id: 2, action: .tick)) { $0.sheets[id: 2]?.ticks = 1 }
    await store.send(.remove(2)) { $0.sheets = [] }
    await store.finish()
  }
}
