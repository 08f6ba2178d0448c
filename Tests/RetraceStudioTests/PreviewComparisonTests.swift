import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import Testing

@testable import RetraceStudio

/// The page's structural diff matches the items of an array as `retrace diff` does: by `id`
/// when they are `Identifiable`, with moves, insertions and removals as such.
@Suite struct PreviewComparisonTests {
  struct Item: Codable, Equatable, Identifiable {
    var id: String
    var name: String
  }

  struct Plain: Codable, Equatable {
    var name: String
    var amount: Int
  }

  struct Lists: Codable, Equatable {
    var items: [Item] = []
    var plain: [Plain] = []
  }

  /// The changes from `old` to `new`, as the page gets them.
  private func changes<State: Encodable>(_ old: State, _ new: State) throws -> [StatePreview
    .Change]
  {
    let (before, arrays) = try StatePreview.capturing(old)
    return try StatePreview.changes(from: before, arrays, to: new).changes
  }

  /// A banking state with `count` accounts, each with `transactions` transactions.
  private func banking(accounts count: Int, transactions: Int = 0) -> BankingState {
    let reducer = BankingReducer()
    var state = BankingState()
    for account in 0..<count {
      let iban = "NL\(account)0BANK"
      _ = reducer.reduce(
        into: &state,
        action: .addAccount(name: "Account \(account)", kind: .checking, iban: iban, date: 0))
      for transaction in 0..<transactions {
        _ = reducer.reduce(
          into: &state,
          action: .addTransaction(
            iban: iban, amount: account * 1_000 + transaction, beneficiary: "b\(transaction)",
            date: Double(transaction)))
      }
    }
    return state
  }

  /// `moveAccount` (an `IdentifiedArray` reordered) is one account moved, not an IBAN and a
  /// name changing in each account between.
  @Test func aMovedAccountIsAMove() throws {
    let old = banking(accounts: 5)
    var new = old
    _ = BankingReducer().reduce(into: &new, action: .moveAccount(from: 3, to: 1))
    let found = try changes(old, new)
    #expect(found.map(\.kind) == ["moved"])
    #expect(found.first?.path == [.key("accounts"), .index(1)])
    #expect(found.first?.from == 3)
    #expect(found.first?.id == "NL30BANK")
    let json = try #require(found.first?.json.text)
    #expect(json.contains(#""from":3"#) && json.contains(#""id":"NL30BANK""#))
  }

  /// An account that moved is compared with itself, its long list of transactions too: what
  /// changed in it is found at its new index, and nothing else is.
  @Test func aMovedAccountWithALongLedgerIsComparedWithItself() throws {
    let old = banking(accounts: 4, transactions: 300)
    var new = old
    _ = BankingReducer().reduce(into: &new, action: .moveAccount(from: 0, to: 2))
    #expect(try changes(old, new).map(\.kind) == ["moved"])
    let iban = new.accounts[2].iban
    _ = BankingReducer().reduce(
      into: &new, action: .addTransaction(iban: iban, amount: 5, beneficiary: "x", date: 1))
    let found = try changes(old, new)
    let account: [PathStep] = [.key("accounts"), .index(2)]
    #expect(found.map(\.kind) == ["moved", "changed", "added"])
    #expect(
      found.map(\.path) == [
        account, account + [.key("balance")], account + [.key("transactions"), .index(301)],
      ])
  }

  /// A removed item carries what it held, so that the page shows it (the clue to a bug may
  /// be in the item that went): an item of a plain array and one of an Identifiable one.
  @Test func aRemovedItemCarriesItsValue() throws {
    let gift = Plain(name: "Tea", amount: 4)
    let removed = try changes(
      Lists(plain: [gift, Plain(name: "Mug", amount: 1)]),
      Lists(plain: [Plain(name: "Mug", amount: 1)]))
    #expect(removed.map(\.kind) == ["removed"])
    let old = try #require(removed.first?.old)
    let value = try JSONSerialization.jsonObject(with: Data(old.utf8)) as? [String: Any]
    #expect(value?["name"] as? String == "Tea" && value?["amount"] as? Int == 4)

    let item = try changes(
      Lists(items: [Item(id: "a", name: "A"), Item(id: "b", name: "B")]),
      Lists(items: [Item(id: "a", name: "A")]))
    #expect(item.first?.old?.contains("\"B\"") == true)
  }

  /// Identifiable items inserted, removed and moved (and changed as they moved) are found as
  /// such, by `id`.
  @Test func identifiableItemsAreMatchedByID() throws {
    let (a, b, c, d) = (
      Item(id: "a", name: "A"), Item(id: "b", name: "B"), Item(id: "c", name: "C"),
      Item(id: "d", name: "D")
    )
    let old = Lists(items: [a, b, c])
    let inserted = try changes(old, Lists(items: [a, d, b, c]))
    #expect(inserted.map(\.kind) == ["added"])
    #expect(inserted.first?.path == [.key("items"), .index(1)])
    #expect(inserted.first?.id == "d")

    let removed = try changes(old, Lists(items: [a, c]))
    #expect(removed.map(\.kind) == ["removed"])
    #expect(removed.first?.path == [.key("items"), .index(1)])
    #expect(removed.first?.id == "b")

    var renamed = c
    renamed.name = "C2"
    let moved = try changes(old, Lists(items: [renamed, a, b]))
    #expect(moved.map(\.kind) == ["moved", "changed"])
    #expect(moved.first?.path == [.key("items"), .index(0)])
    #expect(moved.first?.from == 2)
    #expect(moved.last?.path == [.key("items"), .index(0), .key("name")])
    #expect(moved.last?.old == #""C""#)

    // A new item in place of another (another `id`) at one index: changed in place, as
    // `retrace diff` writes it.
    let replaced = try changes(old, Lists(items: [a, d, c]))
    #expect(Set(replaced.map(\.kind)) == ["changed"])
    #expect(replaced.allSatisfy { $0.path.prefix(2) == [.key("items"), .index(1)] })
  }

  /// Items that are not `Identifiable` are matched by value: one edited in place is its
  /// fields changing at its index, and equal items that swapped places are a move.
  @Test func otherItemsFallBackToTheirIndex() throws {
    let old = Lists(plain: [
      Plain(name: "rent", amount: -900), Plain(name: "salary", amount: 3_000),
      Plain(name: "tax", amount: -300),
    ])
    var edited = old
    edited.plain[1].amount = 3_100
    let found = try changes(old, edited)
    #expect(found.map(\.kind) == ["changed"])
    #expect(found.first?.path == [.key("plain"), .index(1), .key("amount")])
    #expect(found.first?.old == "3000")

    var swapped = old
    swapped.plain.swapAt(0, 2)
    let moves = try changes(old, swapped)
    #expect(moves.allSatisfy { $0.kind == "moved" })
    #expect(moves.first?.id == nil)
  }
}

extension PreviewComparisonTests {
  /// A long array of `Identifiable` items is matched by `id` between its ends too; one with
  /// more than ``ElementMatching/smallWindow`` items between its common ends is compared by
  /// index, as `retrace diff` compares it by position.
  @Test func aLongArrayOfIdentifiableItemsIsMatchedByID() throws {
    let old = Lists(items: (0..<300).map { Item(id: "i\($0)", name: "n\($0)") })
    var new = old
    new.items.insert(new.items.remove(at: 200), at: 150)
    new.items.insert(Item(id: "new", name: "new"), at: 120)
    let found = try changes(old, new)
    #expect(found.map(\.kind) == ["added", "moved"])
    #expect(found.map(\.path) == [[.key("items"), .index(120)], [.key("items"), .index(151)]])
    #expect(found.last?.from == 200)

    var reversed = Lists(items: (0..<3_000).map { Item(id: "i\($0)", name: "n\($0)") })
    let before = reversed
    reversed.items.reverse()
    #expect(try !changes(before, reversed).contains { $0.kind == "moved" })
  }
}
