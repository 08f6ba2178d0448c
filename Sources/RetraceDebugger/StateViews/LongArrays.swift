import Foundation

/// The long arrays of a state (more than ``StatePreview/head`` + ``StatePreview/tail``
/// items), held so that the items a preview leaves out can be compared with another state's.
///
/// A preview shows a long array by its ends, so a change in its middle (an item edited in
/// place) is not in either preview. The arrays are compared item by item instead:
///
/// - an `Array` of `Equatable` items, whatever its length (an array that still shares its
///   storage with the other is the same array, found at once);
/// - another collection that encodes as the array of its `Equatable` items (an
///   `IdentifiedArray`), up to ``boxedLimit`` items, since each item is compared through an
///   existential, about ten times slower.
///
/// Only these are held: holding an array makes the reducer copy it when it changes it in
/// place, which a large collection that is not compared (a ledger of a million
/// transactions) should not pay for.
package struct LongArrays {
  /// The longest collection other than an `Array` whose items are compared.
  static let boxedLimit = 20_000

  /// The arrays, by path.
  private(set) var arrays: [[PathStep]: any ItemComparable] = [:]
  /// The long arrays whose items cannot be compared, with their counts: a change between
  /// their ends is not found.
  package private(set) var uncompared: [(path: [PathStep], count: Int)] = []

  /// Holds `collection`, the array at `path`, if its items can be compared.
  mutating func note<C: RandomAccessCollection>(_ collection: C, at path: [PathStep]) {
    if let array = collection as? any ItemComparable {
      arrays[path] = array
    } else if collection.count <= Self.boxedLimit,
      let equal = equality(of: C.Element.self)
    {
      arrays[path] = BoxedCollection(
        items: collection, equal: equal, same: equality(of: C.self))
    } else {
      uncompared.append((path, collection.count))
    }
  }

  /// Notes the long array at `path`, of `count` items, that the preview walked rather than
  /// read by index: its items are not held.
  mutating func noteWalked(at path: [PathStep], count: Int) {
    uncompared.append((path, count))
  }

  /// Item `index` of the array at `path`, if it is held.
  func item(_ index: Int, at path: [PathStep]) -> (any Encodable)? {
    arrays[path]?.item(index)
  }

  /// The indexes, by the path of their array, of the items that differ from those of the
  /// same array in `old` and that a preview leaves out (between the ends); at most `limit`
  /// in all.
  ///
  /// - Parameter oldPath: Where an array of this state was in `old` (an array in an item
  ///   that moved is compared with the one in the same item), `nil` when it was not there.
  /// - Parameter matched: The arrays matched by identity instead (``identityMatch(at:from:at:)``).
  func changedItems(
    from old: LongArrays, limit: Int, oldPath: ([PathStep]) -> [PathStep]? = { $0 },
    skipping matched: Set<[PathStep]> = []
  ) -> [[PathStep]: [Int]] {
    var changed: [[PathStep]: [Int]] = [:]
    var found = 0
    for (path, array) in arrays where found < limit && !matched.contains(path) {
      guard let before = oldPath(path).flatMap({ old.arrays[$0] }) else { continue }
      let middle = StatePreview.head..<(min(array.count, before.count) - StatePreview.tail)
      guard !middle.isEmpty,
        let indexes = array.differingIndexes(from: before, in: middle, limit: limit - found),
        !indexes.isEmpty
      else { continue }
      changed[path] = indexes
      found += indexes.count
    }
    return changed
  }
}

extension LongArrays {
  /// How the items of the array at `path` match those of the array at `oldPath` in `old`
  /// by identity (``ItemMatch``): when both are held, their items are `Identifiable`, and at
  /// most ``ElementMatching/smallWindow`` items lie between their common ends, the cap that
  /// keeps the work of matching small (`retrace diff` matches such arrays by position too).
  func identityMatch(at path: [PathStep], from old: LongArrays, at oldPath: [PathStep])
    -> ItemMatch?
  {
    guard let array = arrays[path], let before = old.arrays[oldPath] else { return nil }
    return array.identityMatch(from: before)
  }
}

/// Matches two arrays' items by identity, reading each item's `id` once.
private func matchByIdentity(
  oldCount: Int, newCount: Int, equal: (Int, Int) -> Bool, old: (Int) -> Any, new: (Int) -> Any
) -> ItemMatch? {
  var oldIDs: [Int: String?] = [:]
  var newIDs: [Int: String?] = [:]
  func oldID(_ index: Int) -> String? {
    if let id = oldIDs[index] { return id }
    let id = identity(of: old(index))
    oldIDs[index] = id
    return id
  }
  func newID(_ index: Int) -> String? {
    if let id = newIDs[index] { return id }
    let id = identity(of: new(index))
    newIDs[index] = id
    return id
  }
  return ItemMatch(
    oldCount: oldCount, newCount: newCount, maxWindow: ElementMatching.smallWindow,
    equal: equal, oldID: oldID, newID: newID, oldKey: { oldID($0) ?? "" },
    newKey: { newID($0) ?? "" })
}

/// An array whose items can be compared with another's.
protocol ItemComparable {
  /// How many items it has.
  var count: Int { get }
  /// Item `index`, to encode.
  func item(_ index: Int) -> (any Encodable)?
  /// The indexes in `range` where this array's items differ from `old`'s, at most `limit`;
  /// `nil` when `old` is not an array of the same type.
  func differingIndexes(from old: any ItemComparable, in range: Range<Int>, limit: Int)
    -> [Int]?
  /// How this array's items match `old`'s by identity, when they are `Identifiable` and few
  /// lie between the common ends (``LongArrays/identityMatch(at:from:at:)``).
  func identityMatch(from old: any ItemComparable) -> ItemMatch?
}

extension Array: ItemComparable where Element: Equatable {
  func item(_ index: Int) -> (any Encodable)? { self[index] as? any Encodable }

  func identityMatch(from old: any ItemComparable) -> ItemMatch? {
    guard Element.self is any Identifiable.Type, let old = old as? [Element] else { return nil }
    let same = withUnsafeBufferPointer { new in
      old.withUnsafeBufferPointer { $0.baseAddress == new.baseAddress }
    }
    if same { return ItemMatch() }
    return matchByIdentity(
      oldCount: old.count, newCount: count, equal: { old[$0] == self[$1] }, old: { old[$0] },
      new: { self[$0] })
  }

  func differingIndexes(from old: any ItemComparable, in range: Range<Int>, limit: Int)
    -> [Int]?
  {
    guard let old = old as? [Element] else { return nil }
    // The same storage: nothing changed.
    let same = withUnsafeBufferPointer { new in
      old.withUnsafeBufferPointer { $0.baseAddress == new.baseAddress }
    }
    if same { return [] }
    var indexes: [Int] = []
    for index in range where self[index] != old[index] {
      indexes.append(index)
      if indexes.count == limit { break }
    }
    return indexes
  }
}

/// A collection other than an `Array` whose items are compared through an existential.
private struct BoxedCollection<C: RandomAccessCollection>: ItemComparable {
  let items: C
  let equal: (Any, Any) -> Bool
  /// `==` for whole collections, when they are `Equatable`: one the action did not touch
  /// still shares its storage, and is found equal at once.
  let same: ((Any, Any) -> Bool)?

  var count: Int { items.count }

  func item(_ index: Int) -> (any Encodable)? {
    items[items.index(items.startIndex, offsetBy: index)] as? any Encodable
  }

  func identityMatch(from old: any ItemComparable) -> ItemMatch? {
    guard C.Element.self is any Identifiable.Type, let old = old as? BoxedCollection<C> else {
      return nil
    }
    if let same, same(items, old.items) { return ItemMatch() }
    let oldItem = { old.items[old.items.index(old.items.startIndex, offsetBy: $0)] }
    let newItem = { items[items.index(items.startIndex, offsetBy: $0)] }
    return matchByIdentity(
      oldCount: old.count, newCount: count, equal: { equal(oldItem($0), newItem($1)) },
      old: oldItem, new: newItem)
  }

  func differingIndexes(from old: any ItemComparable, in range: Range<Int>, limit: Int)
    -> [Int]?
  {
    guard let old = old as? BoxedCollection<C> else { return nil }
    if let same, same(items, old.items) { return [] }
    var indexes: [Int] = []
    var new = items.index(items.startIndex, offsetBy: range.lowerBound)
    var before = old.items.index(old.items.startIndex, offsetBy: range.lowerBound)
    for index in range {
      if !equal(items[new], old.items[before]) {
        indexes.append(index)
        if indexes.count == limit { break }
      }
      items.formIndex(after: &new)
      old.items.formIndex(after: &before)
    }
    return indexes
  }
}

/// `==` for values of type `T`, if it is `Equatable`.
private func equality<T>(of type: T.Type) -> ((Any, Any) -> Bool)? {
  guard let equatable = type as? any Equatable.Type else { return nil }
  func make<E: Equatable>(_: E.Type) -> (Any, Any) -> Bool {
    { ($0 as? E) == ($1 as? E) }
  }
  return make(equatable)
}
