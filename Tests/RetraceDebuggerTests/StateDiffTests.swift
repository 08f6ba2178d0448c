import CustomDump
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

/// `stateDiff` walks only the path to what changed in a large state; where it does, its
/// output must still be swift-custom-dump's, character for character.
@Suite struct StateDiffTests {
  /// A large value that is not `Equatable`, so that equality goes through mirrors.
  struct Numbers {
    var name: String
    var values: [Int]
    var tags: [String: Int]
  }

  /// A large value whose elements are `Identifiable`.
  struct Item: Equatable, Identifiable {
    var id: Int
    var label: String
  }

  @Test func equalStatesHaveNoDiff() throws {
    let state = try ReplayEngine(
      domain: bankingDomain, session: Fixtures.session(bankingDomain, count: 3_000)
    ).replay()
    #expect(stateDiff(state, state) == nil)
    #expect(stateDiff(state, state, maxNodes: 10) == nil)
    #expect(stateDiff(CounterState(count: 1), CounterState(count: 1)) == nil)
  }

  /// Values that `==` tells apart but that dump the same (a type's own `==` that looks at
  /// something its dump does not show): written as swift-custom-dump writes them.
  @Test func valuesThatDumpTheSameDiffAsSwiftCustomDump() {
    struct Stamped: Equatable {
      var value = 1
      static func == (lhs: Stamped, rhs: Stamped) -> Bool { false }
    }
    #expect(stateDiff(Stamped(), Stamped()) == diff(Stamped(), Stamped()))
    #expect(stateDiff(Stamped(), Stamped(), maxNodes: 100)?.text == diff(Stamped(), Stamped()))
  }

  @Test func aSmallStateIsDiffedBySwiftCustomDump() {
    #expect(
      stateDiff(CounterState(count: 1), CounterState(count: 2))
        == diff(CounterState(count: 1), CounterState(count: 2)))
  }

  @Test func largeBankingStatesDiffAsSwiftCustomDumpDoes() throws {
    // Transactions appended, balances changed, accounts added and moved, navigation pushed
    // and popped: pairs of states a few actions to a few thousand apart.
    let debugger = ReplayEngine(
      domain: bankingDomain, session: Fixtures.session(bankingDomain, count: 4_000))
    var random = SeededRandom(seed: 7)
    var pairs: [(UInt64, UInt64)] = [(0, 4_000), (3_999, 4_000), (2_000, 1_000)]
    for _ in 0..<8 {
      let from = UInt64.random(in: 0...4_000, using: &random)
      pairs.append((from, min(4_000, from + UInt64.random(in: 1...300, using: &random))))
    }
    for (from, to) in pairs {
      let old = try debugger.state(at: from)
      let new = try debugger.state(at: to)
      let expected = diff(old, new)
      #expect(stateDiff(old, new) == expected, "from \(from) to \(to)")
    }
  }

  @Test(arguments: [1, 2, 3, 4, 5, 6])
  func largeArraysWithEditsDiffAsSwiftCustomDumpDoes(seed: UInt64) {
    // Elements unique, edits fresh, so that the matching of elements is not ambiguous: the
    // windows between common prefix and suffix are diffed by position when large and by
    // Myers when small, and both must give swift-custom-dump's answer.
    var random = SeededRandom(seed: seed)
    let count = Int.random(in: 1_200...3_000, using: &random)
    let old = Numbers(name: "n", values: Array(0..<count), tags: ["a": 1, "b": 2])
    var new = old
    let scattered = seed.isMultiple(of: 2)
    for _ in 0..<Int.random(in: 1...6, using: &random) {
      let position =
        scattered
        ? Int.random(in: 0..<count, using: &random) : Int.random(in: 600..<620, using: &random)
      new.values[position] = 1_000_000 + Int.random(in: 0..<1_000_000, using: &random)
    }
    switch seed % 3 {
    case 0: new.values.append(contentsOf: (0..<5).map { 2_000_000 + $0 })
    case 1: new.values.removeLast(7)
    default: new.tags["b"] = 3
    }
    #expect(stateDiff(old, new) == diff(old, new))
    #expect(stateDiff(new, old) == diff(new, old))
  }

  @Test func largeOptionalsDiffAsSwiftCustomDumpDoes() {
    struct Screen { var detail: Numbers? }
    let numbers = Numbers(name: "n", values: Array(0..<2_000), tags: [:])
    var changed = numbers
    changed.values[1_000] = -1
    let pairs = [
      (Screen(detail: numbers), Screen(detail: changed)),
      (Screen(detail: nil), Screen(detail: changed)),
      (Screen(detail: numbers), Screen(detail: nil)),
    ]
    for (old, new) in pairs {
      #expect(stateDiff(old, new) == diff(old, new))
    }
  }

  @Test func movedIdentifiableElementsAreMatchedByID() {
    let items = (0..<1_500).map { Item(id: $0, label: "item \($0)") }
    var moved = items
    let item = moved.remove(at: 700)
    moved.insert(item, at: 705)
    moved[702].label = "changed"
    #expect(stateDiff(items, moved) == diff(items, moved))
  }

  @Test func aLargeChangeIsShownInPartWithinTheBudget() throws {
    let state = try ReplayEngine(
      domain: bankingDomain, session: Fixtures.session(bankingDomain, count: 4_000)
    ).replay()
    let initial = bankingDomain.initialState
    let part = try #require(stateDiff(initial, state, maxNodes: 500))
    #expect(!part.isComplete)
    // Each added account is dumped only as deep as the budget allows.
    #expect(part.text.contains("transactions: […]"))
    #expect(part.text.split(separator: "\n").count < 600)
    let whole = try #require(stateDiff(initial, state, maxNodes: .max))
    #expect(whole.isComplete)
    #expect(whole.text == diff(initial, state))
    #expect(whole.text.split(separator: "\n").count > 10_000)
  }

  @Test func changesPastTheBudgetAreCounted() {
    let old = Array(0..<5_000)
    let new = old.map { $0 + 1 }
    let part = stateDiff(old, new, maxNodes: 100)!
    #expect(!part.isComplete)
    // Every element changed: the window is all 5,000, and what the budget leaves out is counted.
    let shown = part.text.split(separator: "\n").filter { $0.hasPrefix("+ ") }.count
    #expect(shown > 10 && shown < 150)
    #expect(part.text.contains("… (\(5_000 - shown) more changes)"))
  }

  @Test func aLargeValueThatGoesAwayIsShownInPart() {
    // swift-custom-dump writes both sides of this whole; within a budget, only their tops.
    struct Screen { var detail: Numbers? }
    let old = Screen(detail: Numbers(name: "n", values: Array(0..<5_000), tags: [:]))
    let part = stateDiff(old, Screen(detail: nil), maxNodes: 100)!
    #expect(!part.isComplete)
    #expect(part.text.split(separator: "\n").count < 120)
    #expect(part.text.hasSuffix("Screen(detail: nil)"))
    #expect(
      stateDiff(old, Screen(detail: nil), maxNodes: .max)?.text == diff(old, Screen(detail: nil)))
  }

  /// Objects that point to themselves: not `Equatable`, compared through mirrors.
  final class Node {
    var value: Int
    var next: Node?
    init(_ value: Int) { self.value = value }
  }

  @Test func cyclesOfObjectsEndAsInSwiftCustomDump() {
    struct Holder { var node: Node }
    let a = Node(1)
    a.next = a
    let b = Node(1)
    b.next = b
    let c = Node(2)
    c.next = c
    // The cycles are broken at the end, so that LeakSanitizer sees no leak.
    defer { for node in [a, b, c] { node.next = nil } }
    #expect(stateDiff(Holder(node: a), Holder(node: b)) == diff(Holder(node: a), Holder(node: b)))
    #expect(stateDiff(Holder(node: a), Holder(node: c)) == diff(Holder(node: a), Holder(node: c)))
  }

  @Test func editsAtTheEndsOfLargeArraysDiffAsSwiftCustomDumpDoes() {
    // Short random tails and heads on a large array: the common prefix and suffix, the Myers
    // matching of what is between, and the separators of removals and insertions that land
    // at other positions (`base + [0, 2, 1, 1]` to `base + [2, 2]`).
    var random = SeededRandom(seed: 21)
    let base = Array(1_000..<2_100)
    var pairs = [(base + [0, 2, 1, 1], base + [2, 2])]
    for _ in 0..<300 {
      let a = (0..<Int.random(in: 0...6, using: &random)).map { _ in
        Int.random(in: 0..<3, using: &random)
      }
      let b = (0..<Int.random(in: 0...6, using: &random)).map { _ in
        Int.random(in: 0..<3, using: &random)
      }
      pairs.append(Bool.random(using: &random) ? (base + a, base + b) : (a + base, b + base))
    }
    let mismatches = pairs.filter { stateDiff($0.0, $0.1) != diff($0.0, $0.1) }
    #expect(
      mismatches.isEmpty,
      "\(mismatches.count) of \(pairs.count), first: \(mismatches.first.map { ($0.0.suffix(6), $0.1.suffix(6)) }.debugDescription)"
    )
  }

  @Test func elementsWithOneIDAreLeftToTheMyersDiff() {
    // The common suffix would take the last `-2`, which the Myers diff matches by id from
    // the front.
    let base = (0..<1_500).map { Item(id: $0, label: "x") }
    let old =
      base + [
        Item(id: -1, label: "y"), Item(id: -2, label: "x"), Item(id: -3, label: "z"),
        Item(id: -2, label: "x"),
      ]
    let new = base + [Item(id: -2, label: "x")]
    #expect(stateDiff(old, new) == diff(old, new))
    let front = [Item(id: 1, label: "a"), Item(id: 2, label: "a"), Item(id: 1, label: "b")] + base
    let back = [Item(id: 1, label: "b")] + base
    #expect(stateDiff(back, front) == diff(back, front))
  }

  @Test func oneChangedElementAmongThousandsIsOneRunOnEachSide() {
    // The Myers diff gets the elements that match by id after the change; the equal ones
    // after those and the common suffix are one run, as swift-custom-dump counts them.
    let items = (0..<3_000).map { Item(id: $0, label: "item \($0)") }
    for position in [0, 1_000, 2_999] {
      var changed = items
      changed[position].label = "changed"
      #expect(stateDiff(items, changed) == diff(items, changed), "at \(position)")
    }
  }

  @Test func cyclesOfObjectsCountOnceInTheBudget() throws {
    struct Holder {
      var node: Node
      var values: [Int]
    }
    let a = Node(1)
    a.next = a
    let c = Node(2)
    c.next = c
    defer { for node in [a, c] { node.next = nil } }
    let old = Holder(node: a, values: Array(0..<2_000))
    var new = Holder(node: c, values: Array(0..<2_000))
    new.values[1_500] = -1
    let part = try #require(stateDiff(old, new, maxNodes: 20_000))
    #expect(part.isComplete)
    #expect(part.text == diff(old, new))
  }

  @Test func aLargeDictionaryThatFitsTheBudgetIsDiffedNotDumped() throws {
    struct Settings {
      var values: [Int]
      var flags: [Int: Int]
    }
    let flags = Dictionary(uniqueKeysWithValues: (0..<3_000).map { ($0, $0) })
    let old = Settings(values: Array(0..<2_000), flags: flags)
    var new = old
    new.flags[1_234] = -1
    let part = try #require(stateDiff(old, new, maxNodes: 20_000))
    #expect(part.isComplete)
    #expect(part.text == diff(old, new))
    #expect(part.text.split(separator: "\n").count < 20)
  }
}
