import RetraceLog

/// Where two previews differ (``StatePreview/changes(to:limit:)``): every difference in the
/// values both hold, with the items of an array matched as `retrace diff` matches them.
///
/// An array both previews hold whole (at most ``StatePreview/head`` + ``StatePreview/tail``
/// items) has its items matched by ``ElementMatching``, as swift-custom-dump matches them:
/// the common prefix and suffix of equal items, then a Myers diff in which two items are the
/// same when they have one `id` (`Identifiable`, ``PreviewNode/id``) or are equal. An item
/// removed and one inserted that are the same (one `id`, or equal) are one item `moved`; an
/// item removed and one inserted at the same index are one item changed in place, as the
/// text diff writes them. A reordering of accounts shows as an account moved, not as each
/// moved account's IBAN and name changing.
///
/// An array that a preview holds only by its ends is compared by index: its middle is not
/// there to match (``LongArrays`` compares it, by index too).
struct PreviewComparison {
  /// How many changes to find at most.
  let limit: Int
  /// The changes found.
  private(set) var changes: [StatePreview.Change] = []
  /// The old path of each item whose index is not its old one, by its new path; `nil` for
  /// an item added.
  private var renamed: [[PathStep]: [PathStep]?] = [:]
  /// Where the comparison is, in the new state and in the old one.
  private var path: [PathStep]
  private var oldPath: [PathStep]
  /// How the items of the long arrays at a new path and an old one match by identity
  /// (``LongArrays``), when they do.
  private let longMatch: ([PathStep], [PathStep]) -> ItemMatch?
  /// The paths of the long arrays matched by identity.
  private(set) var matchedPaths: Set<[PathStep]> = []
  /// The items of those arrays that are the same item but changed, and that the previews do
  /// not both hold: to compare with the old item itself.
  private(set) var unreached: [(path: [PathStep], old: Int, new: Int)] = []

  init(
    limit: Int, at start: [PathStep] = [],
    longMatch: @escaping ([PathStep], [PathStep]) -> ItemMatch? = { _, _ in nil }
  ) {
    self.limit = limit
    (path, oldPath) = (start, start)
    self.longMatch = longMatch
  }

  /// The path in the old state of what is at `newPath` in the new one: the same, but for
  /// the items that moved on the way; `nil` when it is inside an item added.
  func oldPath(of newPath: [PathStep]) -> [PathStep]? {
    guard !renamed.isEmpty else { return newPath }
    for end in stride(from: newPath.count, to: 0, by: -1) {
      if let old = renamed[Array(newPath[..<end])] {
        return old.map { $0 + newPath[end...] }
      }
    }
    return newPath
  }

  /// Finds where `new` differs from `old`, at the comparison's path.
  mutating func compare(_ old: PreviewValue, _ new: PreviewValue) {
    guard changes.count < limit else { return }
    switch (old, new) {
    case (.object(let a), .object(let b)):
      let oldFields = Dictionary(a, uniquingKeysWith: { x, _ in x })
      let newFields = Dictionary(b, uniquingKeysWith: { x, _ in x })
      for key in Set(oldFields.keys).union(newFields.keys).sorted() {
        switch (oldFields[key], newFields[key]) {
        case (let x?, let y?): descend(.key(key), .key(key), x, y)
        case (nil, _?): note(.key(key), "added")
        case (let x?, nil): note(.key(key), "removed", old: x)
        case (nil, nil): break
        }
      }
    case (.array(let oldCount, let a, let oldIDs), .array(let newCount, let b, let newIDs)):
      if a.count == oldCount, b.count == newCount {
        compareItems(a.map(\.value), b.map(\.value), oldIDs: oldIDs, newIDs: newIDs)
      } else if let match = longMatch(path, oldPath) {
        matchedPaths.insert(path)
        let oldItems = Dictionary(a, uniquingKeysWith: { x, _ in x })
        let newItems = Dictionary(b, uniquingKeysWith: { x, _ in x })
        apply(match) { comparison, before, after in
          if let x = oldItems[before], let y = newItems[after] {
            comparison.descend(.index(before), .index(after), x, y)
          } else {
            comparison.unreached.append((comparison.path, before, after))
          }
        }
      } else {
        compareByIndex(a, b, oldCount: oldCount, newCount: newCount)
      }
    case (.leaf(let a), .leaf(let b)):
      if a != b { changes.append(StatePreview.Change(path: path, kind: "changed", old: a)) }
    default:
      if case .leaf(let a) = old {
        changes.append(StatePreview.Change(path: path, kind: "changed", old: a))
      } else {
        changes.append(StatePreview.Change(path: path, kind: "changed"))
      }
    }
  }

  /// Compares the items of two whole arrays, matched as ``ElementMatching`` matches them.
  private mutating func compareItems(
    _ old: [PreviewValue], _ new: [PreviewValue], oldIDs: [String?], newIDs: [String?]
  ) {
    let oldID = { (index: Int) in oldIDs.isEmpty ? nil : oldIDs[index] }
    let newID = { (index: Int) in newIDs.isEmpty ? nil : newIDs[index] }
    let match = ItemMatch(
      oldCount: old.count, newCount: new.count, maxWindow: .max,
      equal: { old[$0].isEqual(to: new[$1]) }, oldID: oldID, newID: newID,
      oldKey: { oldID($0) ?? old[$0].json.text }, newKey: { newID($0) ?? new[$0].json.text })
    guard let match else { return }
    apply(
      match, oldItem: { old[$0] },
      compare: { comparison, before, after in
        comparison.descend(.index(before), .index(after), old[before], new[after])
      })
  }

  /// Notes the moves, insertions and removals of `match`, the items of an array at the
  /// comparison's path, and compares each item that is the same but changed with `compare`.
  private mutating func apply(
    _ match: ItemMatch, oldItem: (Int) -> PreviewValue? = { _ in nil },
    compare: (inout Self, _ old: Int, _ new: Int) -> Void
  ) {
    for (before, after) in match.shifted {
      renamed[path + [.index(after)]] = oldPath + [.index(before)]
    }
    for (before, after) in match.changed where changes.count < limit {
      compare(&self, before, after)
    }
    for index in match.added where changes.count < limit {
      if let from = match.moves[index] {
        renamed[path + [.index(index)]] = oldPath + [.index(from)]
        note(.index(index), "moved", from: from, id: match.ids[index])
        compare(&self, from, index)
      } else {
        renamed[path + [.index(index)]] = .some(nil)
        note(.index(index), "added", id: match.ids[index])
      }
    }
    let moved = Set(match.moves.values)
    for index in match.removed where !moved.contains(index) {
      note(.index(index), "removed", id: match.oldIDs[index], old: oldItem(index))
    }
  }

  /// Compares the items of arrays that a preview holds only by their ends, index by index.
  private mutating func compareByIndex(
    _ old: [(index: Int, value: PreviewValue)], _ new: [(index: Int, value: PreviewValue)],
    oldCount: Int, newCount: Int
  ) {
    let oldItems = Dictionary(old, uniquingKeysWith: { x, _ in x })
    for (index, item) in new {
      if index >= oldCount {
        renamed[path + [.index(index)]] = .some(nil)
        note(.index(index), "added")
      } else if let before = oldItems[index] {
        descend(.index(index), .index(index), before, item)
      }
    }
    for (index, item) in old where index >= newCount {
      note(.index(index), "removed", old: item)
    }
  }

  /// Compares `old`, at `oldStep` of the old value, with `new`, at `newStep` of the new one.
  private mutating func descend(
    _ oldStep: PathStep, _ newStep: PathStep, _ old: PreviewValue, _ new: PreviewValue
  ) {
    path.append(newStep)
    oldPath.append(oldStep)
    compare(old, new)
    path.removeLast()
    oldPath.removeLast()
  }

  /// Notes a change at `step` of the value compared.
  private mutating func note(
    _ step: PathStep, _ kind: String, from: Int? = nil, id: String? = nil,
    old: PreviewValue? = nil
  ) {
    guard changes.count < limit else { return }
    // What was removed, as far as the preview holds it and while it stays short: the page
    // shows it on the removed item's line.
    let removed = old.map(\.json.text).flatMap {
      $0.utf8.count <= Self.removedValueLimit ? $0 : nil
    }
    changes.append(
      StatePreview.Change(path: path + [step], kind: kind, old: removed, from: from, id: id))
  }

  /// The longest JSON of a removed value the change carries, in bytes.
  static let removedValueLimit = 2_000
}

extension PreviewValue {
  /// Whether this value and `other` are the same JSON, as far as both hold it.
  func isEqual(to other: PreviewValue) -> Bool {
    switch (self, other) {
    case (.leaf(let a), .leaf(let b)):
      return a == b
    case (.object(let a), .object(let b)):
      return a.count == b.count
        && zip(a, b).allSatisfy { $0.key == $1.key && $0.value.isEqual(to: $1.value) }
    case (.array(let aCount, let a, _), .array(let bCount, let b, _)):
      return aCount == bCount && a.count == b.count
        && zip(a, b).allSatisfy { $0.index == $1.index && $0.value.isEqual(to: $1.value) }
    default:
      return false
    }
  }
}

/// The `id` of `value`, as text, when it is `Identifiable`.
func identity<T>(of value: T) -> String? {
  guard let value = value as? any Identifiable else { return nil }
  func text<V: Identifiable>(_ value: V) -> String { String(describing: value.id) }
  return text(value)
}

/// How the items of two versions of an array match (``ElementMatching``): the items that are
/// the same item but changed, those that shifted to another index, those added, removed, and
/// the added ones that are a removed one moved.
struct ItemMatch {
  /// No change.
  init() {}

  /// Items that are the same item (one `id`, or equal) but differ, by old and new index.
  var changed: [(old: Int, new: Int)] = []
  /// Items that are the same item at another index, changed or not.
  var shifted: [(old: Int, new: Int)] = []
  /// The new indexes of the items added, moved ones included.
  var added: [Int] = []
  /// The old indexes of the items removed, moved ones included.
  var removed: [Int] = []
  /// The old index of each item moved, by its new index.
  var moves: [Int: Int] = [:]
  /// The `id` of the items added and removed, by their index, when they have one.
  var ids: [Int: String] = [:]
  var oldIDs: [Int: String] = [:]

  /// Matches two arrays by their items' ``ElementMatching``; `nil` when more than
  /// `maxWindow` items lie between their common ends.
  ///
  /// - Parameters:
  ///   - equal: Whether old item `i` and new item `j` are equal.
  ///   - oldID: The `id` of an old item, when it has one.
  ///   - newID: The `id` of a new item.
  ///   - oldKey: What makes an old item removed the same as a new one added (`oldID` or its
  ///     value), asked only of those items.
  ///   - newKey: The same of a new item.
  init?(
    oldCount: Int, newCount: Int, maxWindow: Int, equal: (Int, Int) -> Bool,
    oldID: (Int) -> String?, newID: (Int) -> String?, oldKey: (Int) -> String,
    newKey: (Int) -> String
  ) {
    let shorter = min(oldCount, newCount)
    var prefix = 0
    while prefix < shorter, equal(prefix, prefix) { prefix += 1 }
    var suffix = 0
    while suffix < shorter - prefix, equal(oldCount - 1 - suffix, newCount - 1 - suffix) {
      suffix += 1
    }
    guard oldCount + newCount - 2 * (prefix + suffix) <= maxWindow else { return nil }
    let matching = ElementMatching(
      oldCount: oldCount, newCount: newCount, prefix: prefix, equalSuffix: suffix
    ) { oldOffset, newOffset in
      let (before, after) = (prefix + oldOffset, prefix + newOffset)
      if let a = oldID(before), let b = newID(after), a == b { return true }
      return equal(before, after)
    }
    // The walk swift-custom-dump makes through the window: same items in step, removals,
    // insertions, and a removal met with an insertion, which is one item changed when both
    // are at one index.
    var (oldOffset, newOffset) = (0, 0)
    while oldOffset < matching.oldWindow || newOffset < matching.newWindow {
      let isRemoval = oldOffset < matching.oldWindow && matching.isRemoval(oldOffset)
      let isInsertion = newOffset < matching.newWindow && matching.isInsertion(newOffset)
      let (before, after) = (prefix + oldOffset, prefix + newOffset)
      switch (isRemoval, isInsertion) {
      case (true, true) where before != after:
        removed.append(before)
        added.append(after)
      case (true, false):
        removed.append(before)
        oldOffset += 1
        continue
      case (false, true):
        added.append(after)
        newOffset += 1
        continue
      default:
        if before != after { shifted.append((before, after)) }
        if !equal(before, after) { changed.append((before, after)) }
      }
      oldOffset += 1
      newOffset += 1
    }
    // The items after the window that shifted (an insertion or removal before them): those
    // a preview holds, its tail, are all that may hold arrays of their own to compare.
    if oldCount != newCount {
      for offset in 0..<min(matching.suffix, StatePreview.tail) {
        shifted.append((oldCount - 1 - offset, newCount - 1 - offset))
      }
    }
    for index in added { ids[index] = newID(index) }
    for index in removed { oldIDs[index] = oldID(index) }
    // A removed item and an added one that are the same item: moved.
    guard !removed.isEmpty, !added.isEmpty else { return }
    var removedByKey: [String: [Int]] = [:]
    for index in removed { removedByKey[oldKey(index), default: []].append(index) }
    for index in added {
      let key = newKey(index)
      if let from = removedByKey[key]?.first {
        moves[index] = from
        removedByKey[key]?.removeFirst()
      }
    }
  }
}
