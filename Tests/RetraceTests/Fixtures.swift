import IdentifiedCollections
import Retrace

// Small reducers shared by the core tests.

enum TallyAction: Equatable, Sendable {
  case add(Int)
  case log(String)
}

struct Tally: Equatable, Sendable {
  var total = 0
  var log: [String] = []
}

let tallyReducer = Reduce<Tally, TallyAction> { state, action in
  switch action {
  case .add(let n): state.total += n
  case .log(let s): state.log.append(s)
  }
  return .none
}

struct Item: Identifiable, Equatable, Sendable {
  var id: Int
  var value = 0
}

enum ItemAction: Equatable, Sendable {
  case bump
}

let itemReducer = Reduce<Item, ItemAction> { item, _ in
  item.value += 1
  return .none
}

struct Parent: Equatable, Sendable {
  var tally = Tally()
  var items: IdentifiedArrayOf<Item> = []
  var detail: Item?
  var parentSaw: [String] = []
}

enum ParentAction: Equatable, Sendable {
  case tally(TallyAction)
  case item(id: Int, action: ItemAction)
  case detail(ItemAction)
  case note(String)

  static let tallyCase = ActionCase<ParentAction, TallyAction>(
    embed: ParentAction.tally, extract: { if case .tally(let a) = $0 { a } else { nil } })
  static let itemCase = ActionCase<ParentAction, (id: Int, action: ItemAction)>(
    embed: { ParentAction.item(id: $0.id, action: $0.action) },
    extract: { if case .item(let id, let a) = $0 { (id, a) } else { nil } })
  static let detailCase = ActionCase<ParentAction, ItemAction>(
    embed: ParentAction.detail, extract: { if case .detail(let a) = $0 { a } else { nil } })
}
