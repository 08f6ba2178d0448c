import Foundation
import RetraceLog

/// One step of a path into a state: an object's key or an array's index.
enum PathStep: Hashable, Sendable {
  case key(String)
  case index(Int)

  var json: JSONValue {
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
/// that counts the items of a long array without encoding them, so it costs about as much
/// as the items it keeps. It is written twice: once to count the arrays, then to keep the
/// tail of each.
///
/// A long array is written as `{"$window": {"count": N, "ranges": [{"start": I, "items":
/// [...]}, ...]}}`.
struct StatePreview {
  /// How many items of a long array are kept from its start, and from its end.
  static let head = 50
  static let tail = 50

  let root: PreviewNode

  /// Previews `state`, keeping the items `window` names of the array at `path`.
  init<State: Encodable>(
    _ state: State, window: (path: [PathStep], range: Range<Int>)? = nil
  ) throws {
    let counting = PreviewContext(counts: nil, window: window)
    var root = PreviewNode()
    try counting.encode(state, into: root, path: [])
    if counting.truncated {
      let keeping = PreviewContext(counts: counting.counted, window: window)
      root = PreviewNode()
      try keeping.encode(state, into: root, path: [])
    }
    self.root = root
  }

  /// The preview as JSON.
  var json: JSONValue { root.json }

  /// The node at `path`, if the preview holds it.
  func node(at path: [PathStep]) -> PreviewNode? {
    var node = root
    for step in path {
      switch (node.kind, step) {
      case (.object(let object), .key(let key)):
        guard let child = object.fields[key] else { return nil }
        node = child
      case (.array(let array), .index(let index)):
        guard let child = array.items.first(where: { $0.index == index })?.node else { return nil }
        node = child
      default: return nil
      }
    }
    return node
  }

  /// One place where two states differ.
  struct Change {
    var path: [PathStep]
    /// `changed`, `added` or `removed`.
    var kind: String
    /// For a changed value that is not an object or an array: its old value.
    var old: JSONValue?

    var json: JSONValue {
      .object(
        [("path", .array(path.map(\.json))), ("kind", .string(kind))]
          + (old.map { [("old", $0)] } ?? []))
    }
  }

  /// Where `new` differs from this preview, at most `limit` places: every difference in the
  /// items both keep, and the items added or removed at the end of an array.
  func changes(to new: StatePreview, limit: Int = 2_000) -> [Change] {
    var changes: [Change] = []
    var path: [PathStep] = []
    func compare(_ old: PreviewNode, _ new: PreviewNode) {
      guard changes.count < limit else { return }
      switch (old.kind, new.kind) {
      case (.object(let a), .object(let b)):
        for key in Set(a.fields.keys).union(b.fields.keys).sorted() {
          path.append(.key(key))
          switch (a.fields[key], b.fields[key]) {
          case (let x?, let y?): compare(x, y)
          case (nil, _?): changes.append(Change(path: path, kind: "added"))
          case (_?, nil): changes.append(Change(path: path, kind: "removed"))
          case (nil, nil): break
          }
          path.removeLast()
        }
      case (.array(let a), .array(let b)):
        let oldItems = Dictionary(
          a.items.map { ($0.index, $0.node) }, uniquingKeysWith: { x, _ in x })
        for (index, node) in b.items {
          path.append(.index(index))
          if index >= a.count {
            changes.append(Change(path: path, kind: "added"))
          } else if let before = oldItems[index] {
            compare(before, node)
          }
          path.removeLast()
        }
        for (index, _) in a.items where index >= b.count {
          path.append(.index(index))
          changes.append(Change(path: path, kind: "removed"))
          path.removeLast()
        }
      case (.leaf(let a), .leaf(let b)):
        if a.text != b.text { changes.append(Change(path: path, kind: "changed", old: a)) }
      default:
        if case .leaf(let a) = old.kind {
          changes.append(Change(path: path, kind: "changed", old: a))
        } else {
          changes.append(Change(path: path, kind: "changed"))
        }
      }
    }
    compare(root, new.root)
    return changes
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

  var json: JSONValue {
    switch kind {
    case .leaf(let value): return value
    case .object(let object):
      return .object(object.fields.keys.sorted().map { ($0, object.fields[$0]!.json) })
    case .array(let array):
      if array.items.count == array.count { return .array(array.items.map(\.node.json)) }
      var ranges: [(start: Int, items: [JSONValue])] = []
      for (index, node) in array.items {
        if let last = ranges.last, last.start + last.items.count == index {
          ranges[ranges.count - 1].items.append(node.json)
        } else {
          ranges.append((index, [node.json]))
        }
      }
      return .object([
        (
          "$window",
          .object([
            ("count", .int(Int64(array.count))),
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
}

/// What one pass of the preview's encoder keeps, and what it counted.
final class PreviewContext {
  /// The arrays' counts from the first pass; `nil` in the first pass.
  let counts: [[PathStep]: Int]?
  /// The window asked for, at one path.
  let window: (path: [PathStep], range: Range<Int>)?
  /// The arrays written in this pass, by path.
  var arrays: [(path: [PathStep], array: PreviewArray)] = []
  /// The counts of the arrays written in this pass.
  var counted: [[PathStep]: Int] {
    Dictionary(arrays.map { ($0.path, $0.array.count) }, uniquingKeysWith: { a, _ in a })
  }
  /// Whether some array was longer than what the first pass keeps.
  var truncated = false

  init(counts: [[PathStep]: Int]?, window: (path: [PathStep], range: Range<Int>)?) {
    self.counts = counts
    self.window = window
  }

  func keeps(_ index: Int, of path: [PathStep]) -> Bool {
    if let window, window.path == path, window.range.contains(index) { return true }
    if index < StatePreview.head { return true }
    guard let count = counts?[path] else {
      truncated = true
      return false
    }
    return index >= count - StatePreview.tail
  }

  func encode<T: Encodable>(_ value: T, into node: PreviewNode, path: [PathStep]) throws {
    // Foundation's types that JSONEncoder writes its own way.
    if let data = value as? Data {
      node.kind = .leaf(.string(data.base64EncodedString()))
    } else if let url = value as? URL {
      node.kind = .leaf(.string(url.absoluteString))
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
  private func next() -> (PreviewNode, [PathStep])? {
    let index = array.count
    array.count += 1
    guard context.keeps(index, of: path) else { return nil }
    let node = PreviewNode()
    array.items.append((index, node))
    return (node, path + [.index(index)])
  }

  private func leaf(_ value: JSONValue) { next()?.0.kind = .leaf(value) }

  mutating func encodeNil() throws { leaf(.null) }
  mutating func encode(_ value: Bool) throws { leaf(.bool(value)) }
  mutating func encode(_ value: String) throws { leaf(.string(value)) }
  mutating func encode(_ value: Double) throws { leaf(.double(value)) }
  mutating func encode(_ value: Float) throws { leaf(.double(Double(value))) }
  mutating func encode(_ value: Int) throws { leaf(.int(Int64(value))) }
  mutating func encode(_ value: Int8) throws { leaf(.int(Int64(value))) }
  mutating func encode(_ value: Int16) throws { leaf(.int(Int64(value))) }
  mutating func encode(_ value: Int32) throws { leaf(.int(Int64(value))) }
  mutating func encode(_ value: Int64) throws { leaf(.int(value)) }
  mutating func encode(_ value: UInt) throws { leaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt8) throws { leaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt16) throws { leaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt32) throws { leaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt64) throws { leaf(.uint(value)) }
  mutating func encode<T: Encodable>(_ value: T) throws {
    guard let (node, itemPath) = next() else { return }
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

private struct PreviewSingleContainer: SingleValueEncodingContainer {
  let node: PreviewNode
  let path: [PathStep]
  let context: PreviewContext
  var codingPath: [any CodingKey] { [] }

  private func leaf(_ value: JSONValue) { node.kind = .leaf(value) }

  mutating func encodeNil() throws { leaf(.null) }
  mutating func encode(_ value: Bool) throws { leaf(.bool(value)) }
  mutating func encode(_ value: String) throws { leaf(.string(value)) }
  mutating func encode(_ value: Double) throws { leaf(.double(value)) }
  mutating func encode(_ value: Float) throws { leaf(.double(Double(value))) }
  mutating func encode(_ value: Int) throws { leaf(.int(Int64(value))) }
  mutating func encode(_ value: Int8) throws { leaf(.int(Int64(value))) }
  mutating func encode(_ value: Int16) throws { leaf(.int(Int64(value))) }
  mutating func encode(_ value: Int32) throws { leaf(.int(Int64(value))) }
  mutating func encode(_ value: Int64) throws { leaf(.int(value)) }
  mutating func encode(_ value: UInt) throws { leaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt8) throws { leaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt16) throws { leaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt32) throws { leaf(.uint(UInt64(value))) }
  mutating func encode(_ value: UInt64) throws { leaf(.uint(value)) }
  mutating func encode<T: Encodable>(_ value: T) throws {
    try context.encode(value, into: node, path: path)
  }
}
