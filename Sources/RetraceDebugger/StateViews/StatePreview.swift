import Foundation
import RetraceLog

/// One step of a path into a state: an object's key or an array's index.
package enum PathStep: Hashable, Sendable {
  case key(String)
  case index(Int)

  package var json: JSONValue {
    switch self {
    case .key(let key): .string(key)
    case .index(let index): .int(Int64(index))
    }
  }
}

/// A state as the page shows it: its JSON (the shape of `retrace state --json`), except that
/// an array longer than ``head`` + ``tail`` items keeps only its first and last items, and the
/// window asked for.
///
/// A banking state after a million actions holds a million transactions: 115 MB of JSON that
/// no page can show and that takes seconds to write. The preview is written by an `Encoder`
/// that only counts the items of a long array between its ends, and holds the last 50 it has
/// seen to encode them once the array ends: one pass, which costs little more than the items
/// it keeps.
///
/// A long array is written as `{"$window": {"count": N, "ranges": [{"start": I, "items":
/// [...]}, ...]}}`.
package struct StatePreview: Sendable {
  /// How many items of a long array are kept from its start, and from its end.
  package static let head = 50
  package static let tail = 50

  package let root: PreviewValue

  /// Previews `state`, keeping the items `window` names of the array at `path`, and the
  /// items `keeping` names of the arrays at its paths.
  package init<State: Encodable>(
    _ state: State, window: (path: [PathStep], range: Range<Int>)? = nil,
    keeping: [[PathStep]: Set<Int>] = [:]
  ) throws {
    let context = PreviewContext(window: window, keeping: keeping)
    let root = PreviewNode()
    try context.encode(state, into: root, path: [])
    try context.encodeTails()
    self.root = root.value
  }

  /// Previews `state`, and holds on to its long arrays whose items can be compared
  /// (``LongArrays``).
  package static func capturing<State: Encodable>(_ state: State) throws -> (
    StatePreview, LongArrays
  ) {
    let context = PreviewContext(window: nil, keeping: [:])
    context.captured = LongArrays()
    let root = PreviewNode()
    try context.encode(state, into: root, path: [])
    try context.encodeTails()
    var arrays = context.captured ?? LongArrays()
    for (path, array) in context.arrays
    where array.count > StatePreview.head + StatePreview.tail {
      arrays.noteWalked(at: path, count: array.count)
    }
    return (StatePreview(root: root.value), arrays)
  }

  private init(root: PreviewValue) {
    self.root = root
  }

  /// What action changed between the state `old` was made from (whose long arrays
  /// `oldArrays` holds) and `new`: the preview of `new`, which also keeps every item changed
  /// in the middle of a long array, and the changes, those items' included.
  ///
  /// The items of an array are matched as `retrace diff` matches them, by `id` when they are
  /// `Identifiable` (``PreviewComparison``). The middle of a long array is compared through
  /// ``LongArrays``: by identity (``ItemMatch``) when its items are `Identifiable` and few
  /// lie between its common ends, item by item by index otherwise. An item that differs is
  /// kept in the preview and compared with the old item itself, so the change is found to its
  /// field, with the old value.
  package static func changes<State: Encodable>(
    from old: StatePreview, _ oldArrays: LongArrays, to new: State, limit: Int = 2_000
  ) throws -> (preview: StatePreview, changes: [Change]) {
    let (plain, newArrays) = try capturing(new)
    // A long array of `Identifiable` items is matched by identity, once.
    var matches: [[PathStep]: ItemMatch?] = [:]
    let longMatch = { (path: [PathStep], oldPath: [PathStep]) -> ItemMatch? in
      if let known = matches[path] { return known }
      let match = newArrays.identityMatch(at: path, from: oldArrays, at: oldPath)
      matches[path] = match
      return match
    }
    var comparison = PreviewComparison(limit: limit, longMatch: longMatch)
    comparison.compare(old.root, plain.root)
    // An array inside an item that moved is compared with the one at the item's old path.
    let oldPath = comparison.oldPath(of:)
    let changedItems = newArrays.changedItems(
      from: oldArrays, limit: limit, oldPath: oldPath, skipping: comparison.matchedPaths)
    var keeping = changedItems.mapValues(Set.init)
    for item in comparison.unreached { keeping[item.path, default: []].insert(item.new) }
    // Items added or moved between the ends of a long array, so that the page shows them.
    for change in comparison.changes where change.kind == "added" || change.kind == "moved" {
      guard case .index(let index)? = change.path.last,
        case .array(let count, let items, _)? = plain.node(at: Array(change.path.dropLast())),
        items.count < count, !items.contains(where: { $0.index == index })
      else { continue }
      keeping[Array(change.path.dropLast()), default: []].insert(index)
    }
    guard !keeping.isEmpty else { return (plain, comparison.changes) }
    let preview = try StatePreview(new, keeping: keeping)
    var second = PreviewComparison(limit: limit, longMatch: longMatch)
    second.compare(old.root, preview.root)
    var changes = second.changes
    // The items neither preview holds both of: compared with the old item itself.
    var pairs = changedItems.flatMap { path, indexes in indexes.map { (path, $0, $0) } }
    pairs += second.unreached.map { ($0.path, $0.old, $0.new) }
    for (path, index, newIndex) in pairs.sorted(by: { ("\($0.0)", $0.2) < ("\($1.0)", $1.2) }) {
      guard changes.count < limit, let before = oldPath(path),
        let item = oldArrays.item(index, at: before),
        let newItem = preview.node(at: path + [.index(newIndex)])
      else { continue }
      let oldItem = PreviewNode()
      try PreviewContext(window: nil, keeping: [:]).encode(item, into: oldItem, path: [])
      changes += Self.compare(
        oldItem.value, newItem, at: path + [.index(newIndex)], limit: limit - changes.count)
    }
    return (preview, changes)
  }

  /// The preview as JSON.
  package var json: JSONValue { root.json }

  /// The estimated size of the whole state's JSON, in bytes: the preview's own, with each
  /// item of a long array that it does not hold counted as the average of those it holds.
  package var estimatedBytes: Int { root.estimatedBytes }

  /// The value at `path`, if the preview holds it.
  package func node(at path: [PathStep]) -> PreviewValue? {
    var node = root
    for step in path {
      switch (node, step) {
      case (.object(let fields), .key(let key)):
        guard let child = fields.first(where: { $0.key == key })?.value else { return nil }
        node = child
      case (.array(_, let items, _), .index(let index)):
        guard let child = items.first(where: { $0.index == index })?.value else { return nil }
        node = child
      default: return nil
      }
    }
    return node
  }

  /// One place where two states differ.
  package struct Change {
    package var path: [PathStep]
    /// `changed`, `added`, `removed` or `moved`. The path of an item removed from an array
    /// ends with its index in the old array; any other path is in the new state.
    package var kind: String
    /// For a changed value that is not an object or an array: its old value, as JSON. For
    /// a value removed: what the preview held of it, as JSON, when that is at most 2,000
    /// bytes.
    package var old: String?
    /// For an item moved in its array: its index before.
    package var from: Int? = nil
    /// For an item of an array of `Identifiable` values that moved, was added or removed:
    /// its `id`, as text.
    package var id: String? = nil

    package var json: JSONValue {
      .object(
        [("path", .array(path.map(\.json))), ("kind", .string(kind))]
          + (old.map { [("old", .raw($0))] } ?? [])
          + (from.map { [("from", .int(Int64($0)))] } ?? [])
          + (id.map { [("id", .string($0))] } ?? []))
    }
  }

  /// Where `new` differs from this preview, at most `limit` places: every difference in the
  /// items both keep, and the items added or removed at the end of an array.
  package func changes(to new: StatePreview, limit: Int = 2_000) -> [Change] {
    Self.compare(root, new.root, at: [], limit: limit)
  }

  /// Where `new` differs from `old`, both at `start`, at most `limit` places.
  static func compare(
    _ old: PreviewValue, _ new: PreviewValue, at start: [PathStep], limit: Int
  ) -> [Change] {
    var comparison = PreviewComparison(limit: limit, at: start)
    comparison.compare(old, new)
    return comparison.changes
  }
}

/// A value of the preview: a leaf, an object or an array, filled in by the encoder.
final class PreviewNode {
  enum Kind {
    case leaf(JSONValue)
    case object(PreviewObject)
    case array(PreviewArray)
  }

  var kind: Kind = .leaf(.null)
  /// The value's `id`, as text, when it is `Identifiable`: an array's items are matched by it.
  var id: String?

  /// The finished value.
  var value: PreviewValue {
    switch kind {
    case .leaf(let value): .leaf(value.text)
    case .object(let object):
      .object(object.fields.keys.sorted().map { ($0, object.fields[$0]!.value) })
    case .array(let array):
      .array(
        count: array.count, items: array.items.map { ($0.index, $0.node.value) },
        ids: array.items.contains { $0.node.id != nil } ? array.items.map(\.node.id) : [])
    }
  }
}

/// A finished preview: JSON whose long arrays hold some of their items.
package indirect enum PreviewValue: Sendable {
  /// A string, number, boolean or null, as JSON text.
  case leaf(String)
  /// An object's fields, by key.
  case object([(key: String, value: PreviewValue)])
  /// An array's count and the items kept, by index, with the `id` of each (``PreviewNode/id``),
  /// in the same order, when any has one.
  case array(count: Int, items: [(index: Int, value: PreviewValue)], ids: [String?])

  /// The estimated size of the whole value's JSON, in bytes (``StatePreview/estimatedBytes``).
  package var estimatedBytes: Int {
    switch self {
    case .leaf(let text): return text.utf8.count
    case .object(let fields):
      return fields.reduce(2) { $0 + $1.key.utf8.count + 4 + $1.value.estimatedBytes }
    case .array(let count, let items, _):
      let held = items.reduce(0) { $0 + $1.value.estimatedBytes + 1 }
      guard !items.isEmpty else { return 2 }
      return 2 + held + (count - items.count) * (held / items.count)
    }
  }

  /// As JSON: a long array as `{"$window": {"count", "ranges": [{"start", "items"}]}}`.
  package var json: JSONValue {
    switch self {
    case .leaf(let text): return .raw(text)
    case .object(let fields): return .object(fields.map { ($0.key, $0.value.json) })
    case .array(let count, let items, _):
      if items.count == count { return .array(items.map(\.value.json)) }
      var ranges: [(start: Int, items: [JSONValue])] = []
      for (index, value) in items {
        if let last = ranges.last, last.start + last.items.count == index {
          ranges[ranges.count - 1].items.append(value.json)
        } else {
          ranges.append((index, [value.json]))
        }
      }
      return .object([
        (
          "$window",
          .object([
            ("count", .int(Int64(count))),
            (
              "ranges",
              .array(
                ranges.map {
                  .object([("start", .int(Int64($0.start))), ("items", .array($0.items))])
                }
              )
            ),
          ])
        )
      ])
    }
  }
}

final class PreviewObject {
  var fields: [String: PreviewNode] = [:]
}

final class PreviewArray {
  var items: [(index: Int, node: PreviewNode)] = []
  var count = 0
  /// The last items seen past the head, not yet encoded: a ring of ``StatePreview/tail``.
  var tail: [(index: Int, value: any Encodable)] = []
}

/// What the preview's encoder keeps, and the arrays it has written.
final class PreviewContext {
  /// The window asked for, at one path.
  let window: (path: [PathStep], range: Range<Int>)?
  /// More items to keep, by the path of their array.
  let keeping: [[PathStep]: Set<Int>]
  /// The arrays written, by path.
  var arrays: [(path: [PathStep], array: PreviewArray)] = []
  /// The long arrays seen whose items can be compared, when they are asked for.
  var captured: LongArrays?

  init(window: (path: [PathStep], range: Range<Int>)?, keeping: [[PathStep]: Set<Int>]) {
    self.window = window
    self.keeping = keeping
  }

  /// Whether to encode item `index` of the array at `path` now: it is in the head, the
  /// window or the items to keep. Others may still turn out to be in the tail.
  func keeps(_ index: Int, of path: [PathStep]) -> Bool {
    if index < StatePreview.head { return true }
    if let window, window.path == path, window.range.contains(index) { return true }
    return keeping[path]?.contains(index) ?? false
  }

  /// The indexes of the array at `path`, of `count` items, that a preview keeps: the head,
  /// the tail, the window and the items to keep.
  func keptIndexes(of path: [PathStep], count: Int) -> [Int] {
    var kept = Set(0..<min(count, StatePreview.head))
    kept.formUnion(max(0, count - StatePreview.tail)..<count)
    if let window, window.path == path {
      kept.formUnion(window.range.clamped(to: 0..<count))
    }
    kept.formUnion((keeping[path] ?? []).filter { (0..<count).contains($0) })
    return kept.sorted()
  }

  /// Whether each type of collection encodes as the array of its elements, as found by
  /// ``encodesAsItsElements(_:_:)``.
  private var arrayLike: [ObjectIdentifier: Bool] = [:]

  /// Encodes `collection` as an array read by index, if its type encodes as the array of its
  /// elements; returns `false` (encoding nothing) if not.
  private func encodeByIndex<C: RandomAccessCollection, T: Encodable>(
    _ collection: C, as value: T, into node: PreviewNode, path: [PathStep]
  ) throws -> Bool {
    guard collection.count > StatePreview.head + StatePreview.tail else { return false }
    let type = ObjectIdentifier(C.self)
    let verdict: Bool
    if let known = arrayLike[type] {
      verdict = known
    } else {
      verdict = try encodesAsItsElements(collection, value)
      arrayLike[type] = verdict
    }
    guard verdict else { return false }
    captured?.note(collection, at: path)
    var items: [any Encodable] = []
    let indexes = keptIndexes(of: path, count: collection.count)
    for index in indexes {
      guard
        let item = collection[collection.index(collection.startIndex, offsetBy: index)]
          as? any Encodable
      else { return false }
      items.append(item)
    }
    let array = PreviewArray()
    array.count = collection.count
    node.kind = .array(array)
    for (index, item) in zip(indexes, items) {
      let child = PreviewNode()
      array.items.append((index, child))
      try encode(item, into: child, path: path + [.index(index)])
    }
    return true
  }

  /// Whether `value` (which is `collection`) encodes as the array of its elements: walked by
  /// ``StateWalker`` until its third item begins, its first two items are the collection's
  /// first two elements, step for step.
  private func encodesAsItsElements<C: RandomAccessCollection, T: Encodable>(
    _ collection: C, _ value: T
  ) throws -> Bool {
    let probe = ItemProbe(items: 2)
    guard (try? StateWalker.walk(value, with: probe)) != nil, probe.isArray else { return false }
    for offset in 0..<2 {
      guard
        let element = collection[collection.index(collection.startIndex, offsetBy: offset)]
          as? any Encodable
      else { return false }
      let walk = ItemProbe(items: nil)
      guard (try? StateWalker.walk(element, with: walk)) == true,
        walk.steps[0] == probe.steps[offset]
      else { return false }
    }
    return true
  }

  /// Encodes the tail of every array, once all of them have been seen; a tail's items may
  /// hold arrays of their own, which are done in turn.
  func encodeTails() throws {
    var done = 0
    while done < arrays.count {
      let (path, array) = arrays[done]
      done += 1
      let kept = Set(array.items.map(\.index))
      for (index, value) in array.tail.sorted(by: { $0.index < $1.index })
      where index >= array.count - StatePreview.tail && !kept.contains(index) {
        let node = PreviewNode()
        array.items.append((index, node))
        try encode(value, into: node, path: path + [.index(index)])
      }
      array.tail = []
      array.items.sort { $0.index < $1.index }
    }
  }

  func encode<T: Encodable>(_ value: T, into node: PreviewNode, path: [PathStep]) throws {
    if let id = identity(of: value) { node.id = id }
    // Foundation's types that JSONEncoder writes its own way.
    if let data = value as? Data {
      node.kind = .leaf(.string(data.base64EncodedString()))
    } else if let url = value as? URL {
      node.kind = .leaf(.string(url.absoluteString))
    } else if let array = value as? any PreviewableArray {
      // An array is read by index: its items between the ends are not visited at all.
      try array.encodePreview(into: node, path: path, context: self)
    } else if let collection = value as? any RandomAccessCollection,
      try encodeByIndex(collection, as: value, into: node, path: path)
    {
      // A collection that encodes as the array of its elements (a ledger of
      // transactions), read by index as an array is.
    } else {
      try value.encode(to: PreviewEncoder(node: node, path: path, context: self))
    }
  }
}

private struct PreviewEncoder: Encoder {
  let node: PreviewNode
  let path: [PathStep]
  let context: PreviewContext
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    let object: PreviewObject
    if case .object(let existing) = node.kind {
      object = existing
    } else {
      object = PreviewObject()
      node.kind = .object(object)
    }
    return KeyedEncodingContainer(
      PreviewKeyedContainer(object: object, path: path, context: context))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    let array: PreviewArray
    if case .array(let existing) = node.kind {
      array = existing
    } else {
      array = PreviewArray()
      node.kind = .array(array)
      context.arrays.append((path, array))
    }
    return PreviewUnkeyedContainer(array: array, path: path, context: context)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    PreviewSingleContainer(node: node, path: path, context: context)
  }
}

private struct PreviewKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let object: PreviewObject
  let path: [PathStep]
  let context: PreviewContext
  var codingPath: [any CodingKey] { [] }

  private func child(_ key: Key) -> PreviewNode {
    let node = PreviewNode()
    object.fields[key.stringValue] = node
    return node
  }

  private func leaf(_ value: JSONValue, _ key: Key) { child(key).kind = .leaf(value) }

  mutating func encodeNil(forKey key: Key) throws { leaf(.null, key) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { leaf(.bool(value), key) }
  mutating func encode(_ value: String, forKey key: Key) throws { leaf(.string(value), key) }
  mutating func encode(_ value: Double, forKey key: Key) throws { leaf(.double(value), key) }
  mutating func encode(_ value: Float, forKey key: Key) throws { leaf(.double(Double(value)), key) }
  mutating func encode(_ value: Int, forKey key: Key) throws { leaf(.int(Int64(value)), key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { leaf(.int(Int64(value)), key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { leaf(.int(Int64(value)), key) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { leaf(.int(Int64(value)), key) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { leaf(.int(value), key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { leaf(.uint(UInt64(value)), key) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { leaf(.uint(UInt64(value)), key) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { leaf(.uint(UInt64(value)), key) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { leaf(.uint(UInt64(value)), key) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { leaf(.uint(value), key) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try context.encode(value, into: child(key), path: path + [.key(key.stringValue)])
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    PreviewEncoder(node: child(key), path: path + [.key(key.stringValue)], context: context)
      .container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    PreviewEncoder(node: child(key), path: path + [.key(key.stringValue)], context: context)
      .unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    PreviewEncoder(node: PreviewNode(), path: path, context: context)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    PreviewEncoder(node: child(key), path: path + [.key(key.stringValue)], context: context)
  }
}

private struct PreviewUnkeyedContainer: UnkeyedEncodingContainer {
  let array: PreviewArray
  let path: [PathStep]
  let context: PreviewContext
  var codingPath: [any CodingKey] { [] }
  var count: Int { array.count }

  /// The next item's node, or `nil` when the preview does not keep it: it is then only
  /// counted, never encoded.
  private func next(_ value: (any Encodable)? = nil) -> (PreviewNode, [PathStep])? {
    let index = array.count
    array.count += 1
    guard context.keeps(index, of: path) else {
      if let value {
        if array.tail.count < StatePreview.tail {
          array.tail.append((index, value))
        } else {
          array.tail[index % StatePreview.tail] = (index, value)
        }
      }
      return nil
    }
    let node = PreviewNode()
    array.items.append((index, node))
    return (node, path + [.index(index)])
  }

  private func leaf(_ value: JSONValue, _ original: any Encodable) {
    next(original)?.0.kind = .leaf(value)
  }

  mutating func encodeNil() throws { leaf(.null, Optional<Int>.none) }
  mutating func encode(_ value: Bool) throws { leaf(.bool(value), value) }
  mutating func encode(_ value: String) throws { leaf(.string(value), value) }
  mutating func encode(_ value: Double) throws { leaf(.double(value), value) }
  mutating func encode(_ value: Float) throws { leaf(.double(Double(value)), value) }
  mutating func encode(_ value: Int) throws { leaf(.int(Int64(value)), value) }
  mutating func encode(_ value: Int8) throws { leaf(.int(Int64(value)), value) }
  mutating func encode(_ value: Int16) throws { leaf(.int(Int64(value)), value) }
  mutating func encode(_ value: Int32) throws { leaf(.int(Int64(value)), value) }
  mutating func encode(_ value: Int64) throws { leaf(.int(value), value) }
  mutating func encode(_ value: UInt) throws { leaf(.uint(UInt64(value)), value) }
  mutating func encode(_ value: UInt8) throws { leaf(.uint(UInt64(value)), value) }
  mutating func encode(_ value: UInt16) throws { leaf(.uint(UInt64(value)), value) }
  mutating func encode(_ value: UInt32) throws { leaf(.uint(UInt64(value)), value) }
  mutating func encode(_ value: UInt64) throws { leaf(.uint(value), value) }
  mutating func encode<T: Encodable>(_ value: T) throws {
    guard let (node, itemPath) = next(value) else { return }
    try context.encode(value, into: node, path: itemPath)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let (node, itemPath) = next() ?? (PreviewNode(), path)
    return PreviewEncoder(node: node, path: itemPath, context: context).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let (node, itemPath) = next() ?? (PreviewNode(), path + [.index(-1)])
    return PreviewEncoder(node: node, path: itemPath, context: context).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    let (node, itemPath) = next() ?? (PreviewNode(), path + [.index(-1)])
    return PreviewEncoder(node: node, path: itemPath, context: context)
  }
}

private struct PreviewSingleContainer: SingleValueEncodingContainer, LeafEncodingContainer {
  let node: PreviewNode
  let path: [PathStep]
  let context: PreviewContext
  var codingPath: [any CodingKey] { [] }

  func encodeLeaf(_ value: JSONValue) { node.kind = .leaf(value) }

  mutating func encode<T: Encodable>(_ value: T) throws {
    try context.encode(value, into: node, path: path)
  }
}

/// An array whose preview is made by reading only the items it keeps.
protocol PreviewableArray {
  func encodePreview(into node: PreviewNode, path: [PathStep], context: PreviewContext) throws
}

extension Array: PreviewableArray where Element: Encodable {
  /// Encodes the items the preview keeps, as an unkeyed container would have them: the
  /// head, the tail and the window asked for.
  func encodePreview(into node: PreviewNode, path: [PathStep], context: PreviewContext) throws {
    let array = PreviewArray()
    array.count = count
    node.kind = .array(array)
    if count > StatePreview.head + StatePreview.tail { context.captured?.note(self, at: path) }
    for index in context.keptIndexes(of: path, count: count) {
      let child = PreviewNode()
      array.items.append((index, child))
      try context.encode(self[index], into: child, path: path + [.index(index)])
    }
  }
}

/// A visitor that notes each step of a walk, item by item when the value is an array: what
/// the preview's probe compares to tell a collection that encodes as the array of its
/// elements.
private final class ItemProbe: StateVisitor {
  /// How many items of an array to note before stopping; `nil`: the whole value, as one item.
  let items: Int?
  /// Each item's steps, a key or a leaf with its path inside the item.
  var steps: [[Step]]
  /// Whether every step so far was inside an item of an array.
  var isArray = true

  /// A key (`nil` text) or a leaf (its JSON), at its path.
  struct Step: Equatable {
    var path: [PathStep]
    var text: String?
  }

  init(items: Int?) {
    self.items = items
    steps = Array(repeating: [], count: items ?? 1)
  }

  /// Notes `step` at `path`: in its item, or in the one whole value.
  private func note(_ step: String?, at path: [PathStep]) -> WalkDecision {
    guard let items else {
      steps[0].append(Step(path: path, text: step))
      return .proceed
    }
    guard case .index(let index)? = path.first else {
      isArray = false
      return .stop
    }
    guard index < items else { return .stop }
    steps[index].append(Step(path: Array(path.dropFirst()), text: step))
    return .proceed
  }

  func key(_ key: String, at path: @autoclosure () -> [PathStep]) -> WalkDecision {
    note(nil, at: path())
  }

  func leaf(_ value: JSONValue, key: String?, at path: @autoclosure () -> [PathStep])
    -> WalkDecision
  {
    note(value.text, at: path())
  }
}

extension StatePreview {
  /// The estimated size of `state`'s JSON, in bytes (``estimatedBytes``); 0 when it cannot
  /// be previewed: how the Studio weighs the spaced states it keeps (`SpacedStates`).
  package static func estimate<State: Encodable>(_ state: State) -> Int {
    (try? StatePreview(state).estimatedBytes) ?? 0
  }
}
