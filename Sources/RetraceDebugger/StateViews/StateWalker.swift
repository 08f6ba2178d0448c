import Foundation
import RetraceLog

/// What a ``StateVisitor`` tells the walk after each key or leaf it is shown.
package enum WalkDecision {
  /// Go on: into the member's value, after a key; to the next thing, after a leaf.
  case proceed
  /// End the walk here.
  case stop
}

/// What a ``StateWalker`` shows: every key and every leaf of a state's JSON (the shape
/// `retrace state --json` writes), in the order of its encoding.
///
/// The visitor decides, at each step, whether the walk goes on; it never throws to stop it.
package protocol StateVisitor: AnyObject {
  /// A member of an object that the walk goes into (an object, an array, or any value of a
  /// type of its own, even one written as a single leaf): its key, with the path of its
  /// value, before the value.
  func key(_ key: String, at path: @autoclosure () -> [PathStep]) -> WalkDecision
  /// A string, number, boolean or null, at its path; `key` is its key when it is a member of
  /// an object (the path's last step). `Data` comes as its base-64 string and a `URL` as its
  /// absolute string, as `JSONEncoder` writes them.
  func leaf(_ value: JSONValue, key: String?, at path: @autoclosure () -> [PathStep])
    -> WalkDecision
}

/// A walk over a whole state by an `Encoder` that writes nothing: every key and every leaf
/// is shown to a ``StateVisitor`` once, with its path, and the walk ends where the visitor
/// says ``WalkDecision/stop``.
///
/// ```swift
/// let finished = try StateWalker.walk(state, with: visitor)  // false: the visitor stopped it
/// ```
///
/// `Encodable` has no way to end an encoding early but an error: the walker throws one of
/// its own at the visitor's `stop` and catches it, so no visitor (nor its caller) handles
/// errors for control flow.
package enum StateWalker {
  /// Walks `state`, showing its keys and leaves to `visitor`.
  ///
  /// - Returns: `true` when the whole state was walked, `false` when the visitor stopped it.
  /// - Throws: What the state's own `encode(to:)` throws.
  package static func walk<State: Encodable>(_ state: State, with visitor: any StateVisitor) throws
    -> Bool
  {
    let walk = Walk(visitor: visitor)
    do {
      try walk.visit(state, at: [])
    } catch is WalkStopped {
      return false
    }
    // A stop answered where the encoder cannot throw, and nothing after it to throw at.
    return !walk.stopped
  }
}

/// Unwinds the encoding when the visitor says stop; caught by ``StateWalker/walk(_:with:)``
/// alone.
private struct WalkStopped: Error {}

/// A walk in progress: the visitor, and whether it said stop.
private final class Walk {
  /// An existential, not a generic parameter: the encoder's containers reach the visitor
  /// through a witness table either way (a generic type's conformances are not specialized),
  /// and this spares them looking up their fields through the type's metadata.
  let visitor: any StateVisitor
  /// Whether the visitor said stop: set where the encoder cannot throw (a nested container's
  /// key), thrown at the next step that can.
  private(set) var stopped = false

  init(visitor: any StateVisitor) {
    self.visitor = visitor
  }

  /// Ends the walk if `decision` (or an earlier answer) says stop.
  func follow(_ decision: WalkDecision) throws {
    if decision == .stop { stopped = true }
    if stopped { throw WalkStopped() }
  }

  /// Notes a stop answered where the encoder cannot throw; the next step that can throws.
  func note(_ decision: WalkDecision) {
    if decision == .stop { stopped = true }
  }

  func visit<T: Encodable>(_ value: T, at path: [PathStep]) throws {
    if stopped { throw WalkStopped() }
    // Foundation's types that JSONEncoder writes its own way, as the preview shows them.
    if let data = value as? Data {
      try follow(visitor.leaf(.string(data.base64EncodedString()), key: nil, at: path))
    } else if let url = value as? URL {
      try follow(visitor.leaf(.string(url.absoluteString), key: nil, at: path))
    } else {
      try value.encode(to: WalkEncoder(walk: self, path: path))
    }
  }

  func leaf(_ value: JSONValue, at path: @autoclosure () -> [PathStep]) throws {
    try follow(visitor.leaf(value, key: nil, at: path()))
  }
}

private struct WalkEncoder: Encoder {
  let walk: Walk
  let path: [PathStep]
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(WalkKeyedContainer(walk: walk, path: path))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    WalkUnkeyedContainer(walk: walk, path: path)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    WalkSingleContainer(walk: walk, path: path)
  }
}

private struct WalkKeyedContainer<Key: CodingKey>:
  KeyedEncodingContainerProtocol
{
  let walk: Walk
  let path: [PathStep]
  var codingPath: [any CodingKey] { [] }

  /// Shows the key, then the value `visit` walks.
  private func member(_ key: Key, _ visit: ([PathStep]) throws -> Void) throws {
    let child = path + [.key(key.stringValue)]
    try walk.follow(walk.visitor.key(key.stringValue, at: child))
    try visit(child)
  }

  /// Shows the leaf with its key.
  private func leaf(_ value: JSONValue, _ key: Key) throws {
    try walk.follow(
      walk.visitor.leaf(value, key: key.stringValue, at: path + [.key(key.stringValue)]))
  }

  mutating func encodeNil(forKey key: Key) throws { try leaf(.null, key) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { try leaf(.bool(value), key) }
  mutating func encode(_ value: String, forKey key: Key) throws { try leaf(.string(value), key) }
  mutating func encode(_ value: Double, forKey key: Key) throws { try leaf(.double(value), key) }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    try leaf(.double(Double(value)), key)
  }
  mutating func encode(_ value: Int, forKey key: Key) throws { try leaf(.int(Int64(value)), key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { try leaf(.int(Int64(value)), key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    try leaf(.int(Int64(value)), key)
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    try leaf(.int(Int64(value)), key)
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws { try leaf(.int(value), key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    try leaf(.uint(UInt64(value)), key)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    try leaf(.uint(UInt64(value)), key)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    try leaf(.uint(UInt64(value)), key)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    try leaf(.uint(UInt64(value)), key)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try leaf(.uint(value), key) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try member(key) { try walk.visit(value, at: $0) }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    // This cannot throw: a stop here ends the walk at its next step.
    let child = path + [.key(key.stringValue)]
    walk.note(walk.visitor.key(key.stringValue, at: child))
    return KeyedEncodingContainer(
      WalkKeyedContainer<NestedKey>(walk: walk, path: child))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let child = path + [.key(key.stringValue)]
    walk.note(walk.visitor.key(key.stringValue, at: child))
    return WalkUnkeyedContainer(walk: walk, path: child)
  }

  mutating func superEncoder() -> any Encoder { WalkEncoder(walk: walk, path: path) }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    WalkEncoder(walk: walk, path: path + [.key(key.stringValue)])
  }
}

private struct WalkUnkeyedContainer: UnkeyedEncodingContainer,
  LeafEncodingContainer
{
  let walk: Walk
  let path: [PathStep]
  var codingPath: [any CodingKey] { [] }
  private(set) var count = 0

  init(walk: Walk, path: [PathStep]) {
    self.walk = walk
    self.path = path
  }

  /// The next item's path.
  private mutating func next() -> [PathStep] {
    defer { count += 1 }
    return path + [.index(count)]
  }

  mutating func encodeLeaf(_ value: JSONValue) throws {
    let index = count
    count += 1
    try walk.leaf(value, at: path + [.index(index)])
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    try walk.visit(value, at: next())
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    KeyedEncodingContainer(WalkKeyedContainer<NestedKey>(walk: walk, path: next()))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    WalkUnkeyedContainer(walk: walk, path: next())
  }

  mutating func superEncoder() -> any Encoder { WalkEncoder(walk: walk, path: next()) }
}

private struct WalkSingleContainer: SingleValueEncodingContainer,
  LeafEncodingContainer
{
  let walk: Walk
  let path: [PathStep]
  var codingPath: [any CodingKey] { [] }

  func encodeLeaf(_ value: JSONValue) throws { try walk.leaf(value, at: path) }

  mutating func encode<T: Encodable>(_ value: T) throws {
    try walk.visit(value, at: path)
  }
}
