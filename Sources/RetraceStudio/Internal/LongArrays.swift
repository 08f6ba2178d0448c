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
struct LongArrays {
  /// The longest collection other than an `Array` whose items are compared.
  static let boxedLimit = 20_000

  /// The arrays, by path.
  private(set) var arrays: [[PathStep]: any ItemComparable] = [:]

  /// Holds `collection`, the array at `path`, if its items can be compared.
  mutating func note<C: RandomAccessCollection>(_ collection: C, at path: [PathStep]) {
    if let array = collection as? any ItemComparable {
      arrays[path] = array
    } else if collection.count <= Self.boxedLimit,
      let equal = equality(of: C.Element.self)
    {
      arrays[path] = BoxedCollection(
        items: collection, equal: equal, same: equality(of: C.self))
    }
  }

  /// Item `index` of the array at `path`, if it is held.
  func item(_ index: Int, at path: [PathStep]) -> (any Encodable)? {
    arrays[path]?.item(index)
  }

  /// The indexes, by the path of their array, of the items that differ from those of the
  /// same array in `old` and that a preview leaves out (between the ends); at most `limit`
  /// in all.
  func changedItems(from old: LongArrays, limit: Int) -> [[PathStep]: [Int]] {
    var changed: [[PathStep]: [Int]] = [:]
    var found = 0
    for (path, array) in arrays where found < limit {
      guard let before = old.arrays[path] else { continue }
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
}

extension Array: ItemComparable where Element: Equatable {
  func item(_ index: Int) -> (any Encodable)? { self[index] as? any Encodable }

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
