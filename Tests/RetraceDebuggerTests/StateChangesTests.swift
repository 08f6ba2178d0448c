import Retrace
import Testing

@testable import RetraceDebugger

/// The one structural diff of two states, and its text: a line per change, written from the
/// changes themselves.
@Suite struct StateChangesTests {
  struct Item: Codable, Equatable, Identifiable {
    var id: String
    var balance: Int
  }

  struct State: Codable, Equatable {
    var items: [Item]
    var note: String?
  }

  @Test func theTextHasALinePerChangeAtItsPath() throws {
    let old = State(
      items: [Item(id: "a", balance: 971), Item(id: "b", balance: 1), Item(id: "c", balance: 2)],
      note: "x")
    let new = State(
      items: [Item(id: "a", balance: -1728), Item(id: "c", balance: 2), Item(id: "b", balance: 1)],
      note: nil)
    let diff = try StateChanges(from: old, to: new)
    #expect(diff.isComplete)
    let lines = diff.text(["items.*.balance": .money(currencyCode: "EUR")])
      .split(separator: "\n").map(String.init)
    #expect(lines.count == diff.changes.count)
    for (line, change) in zip(lines, diff.changes) {
      #expect(line.hasPrefix(StateChanges.text(of: change.path) + ": "), "\(line)")
    }
    #expect(lines.contains("items[0].balance: 971 (9.71 EUR) → -1728 (-17.28 EUR)"), "\(lines)")
    #expect(lines.contains { $0.contains(": moved from [") && $0.contains(", id ") }, "\(lines)")
    // An optional that becomes nil is a key removed from the JSON.
    #expect(lines.contains("note: removed: \"x\""), "\(lines)")
  }

  /// An item added or removed whole is written as its JSON, with each number the display
  /// formats name followed by its formatted value, as it is inside a changed leaf.
  @Test func numbersInsideAnAddedItemAreFormatted() throws {
    let old = State(items: [Item(id: "a", balance: 1)], note: nil)
    let new = State(
      items: [Item(id: "a", balance: 1), Item(id: "b\\\"[", balance: -1199)], note: nil)
    let text = try StateChanges(from: old, to: new).text([
      "items.*.balance": .money(currencyCode: "EUR")
    ])
    #expect(
      text == #"items[1]: added: {"balance":-1199 (-11.99 EUR),"id":"b\\\"["}, id b\"["#, "\(text)")
    let table = DisplayFormatTable(["a.*.n": .money(currencyCode: "EUR")])
    #expect(
      StateChanges.formattingNumbers(
        in: #"[{"n":5,"m":6},{"x":{"n":7},"n":-8e2}]"#, at: ["a"], table)
        == #"[{"n":5 (0.05 EUR),"m":6},{"x":{"n":7},"n":-8e2}]"#)
  }

  @Test func aCutDiffSaysSo() throws {
    let old = State(items: (0..<10).map { Item(id: "\($0)", balance: 0) }, note: nil)
    let new = State(items: (0..<10).map { Item(id: "\($0)", balance: 1) }, note: nil)
    let diff = try StateChanges(from: old, to: new, limit: 3)
    #expect(diff.changes.count == 3)
    #expect(!diff.isComplete)
    #expect(diff.text().hasSuffix("… (the first 3 changes)"))
    #expect(try StateChanges(from: old, to: old).changes.isEmpty)
  }

  /// Items that are not `Equatable` are not held to compare between a long array's ends: a
  /// diff of such an array says it is not complete, and where.
  @Test func aLongArrayNotComparedMakesItIncomplete() throws {
    struct Entry: Encodable { var value: Int }
    struct Log: Encodable { var entries: [Entry] }
    var new = Log(entries: (0..<200).map { Entry(value: $0) })
    let old = new
    new.entries[100].value = -1
    let diff = try StateChanges(from: old, to: new)
    #expect(diff.changes.isEmpty)
    #expect(!diff.isComplete)
    #expect(diff.uncompared.map(\.path) == [[.key("entries")]])
    #expect(
      diff.text()
        == "… (entries, 200 items: those between the first and last 50 not compared)")
    // Equatable items are compared, and the change found.
    let plain = try StateChanges(
      from: State(items: (0..<200).map { Item(id: "\($0)", balance: 0) }, note: nil),
      to: State(
        items: (0..<200).map { Item(id: "\($0)", balance: $0 == 100 ? 1 : 0) }, note: nil))
    #expect(plain.isComplete)
    #expect(plain.changes.map(\.path) == [[.key("items"), .index(100), .key("balance")]])
  }

  /// An array that is long on one side only is not compared between its ends: the diff
  /// says so, rather than claim the items it lists are all. Long on both sides, with items
  /// added in the middle, every item added is listed.
  @Test func anArrayLongOnOneSideOnlyMakesItIncomplete() throws {
    let short = State(items: (0..<20).map { Item(id: "\($0)", balance: 0) }, note: nil)
    let long = State(items: (0..<300).map { Item(id: "\($0)", balance: 0) }, note: nil)
    for (old, new) in [(short, long), (long, short)] {
      let diff = try StateChanges(from: old, to: new)
      #expect(!diff.isComplete)
      #expect(diff.uncompared.map(\.path) == [[.key("items")]])
    }
    let longer = State(items: (0..<500).map { Item(id: "\($0)", balance: 0) }, note: nil)
    let grown = try StateChanges(from: long, to: longer)
    #expect(grown.changes.filter { $0.kind == "added" }.count == 200 || !grown.isComplete)
    var inserted = long
    inserted.items.insert(contentsOf: (0..<30).map { Item(id: "new\($0)", balance: 1) }, at: 150)
    let middle = try StateChanges(from: long, to: inserted)
    #expect(middle.changes.filter { $0.kind == "added" }.count == 30 || !middle.isComplete)
  }

  /// A long array inside an item that moved is compared with the one at the item's old
  /// place: the diff is complete, and names nothing as not compared.
  @Test func aLongArrayInsideAMovedItemIsCompared() throws {
    struct Account: Codable, Equatable, Identifiable {
      var id: String
      var entries: [Int]
    }
    struct Bank: Codable, Equatable { var accounts: [Account] }
    let old = Bank(accounts: [
      Account(id: "a", entries: Array(0..<300)), Account(id: "b", entries: Array(0..<5)),
    ])
    var new = Bank(accounts: [old.accounts[1], old.accounts[0]])
    new.accounts[1].entries[150] = -1
    let diff = try StateChanges(from: old, to: new)
    #expect(diff.uncompared.isEmpty, "\(diff.uncompared)")
    #expect(diff.isComplete)
    #expect(
      diff.changes.contains {
        $0.path == [.key("accounts"), .index(1), .key("entries"), .index(150)]
      }, "\(diff.changes.map(\.path))")
  }

  /// A key that would read as another is quoted, with what does not show written out.
  @Test func aKeyCannotPassForAnother() {
    #expect(StateChanges.text(of: [.key("darkMode\u{034F}")]) == #"["darkMode\u{34F}"]"#)
    #expect(StateChanges.text(of: [.key("dark\u{200D}Mode")]) == #"["dark\u{200D}Mode"]"#)
    #expect(StateChanges.text(of: [.key("evil\u{202E}txt")]) == #"["evil\u{202E}txt"]"#)
    #expect(StateChanges.text(of: [.key("a\u{2028}b\nc")]) == #"["a\u{2028}b\u{A}c"]"#)
    #expect(StateChanges.text(of: [.key("café")]) == #"["café"]"#)
    #expect(StateChanges.text(of: [.key("say \"hi\"")]) == #"["say \"hi\""]"#)
    #expect(StateChanges.text(of: [.key("items"), .index(2), .key("_id9")]) == "items[2]._id9")
  }

  @Test func pathsAreWrittenAsSwiftReadsThem() {
    #expect(StateChanges.text(of: []) == "(the state)")
    #expect(
      StateChanges.text(of: [.key("accounts"), .index(2), .key("a key")])
        == "accounts[2][\"a key\"]")
  }
}
