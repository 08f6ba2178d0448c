import CustomDump

// How StateDiffWriter (and stateDump) look into values: through the mirrors swift-custom-dump
// uses, comparing with `==` wherever a type allows, and never entering an object twice.

extension Mirror {
  /// The mirror swift-custom-dump uses: a type's `customDumpMirror` where it has one.
  init(customDumpReflecting subject: Any) {
    self = (subject as? any CustomDumpReflectable)?.customDumpMirror ?? Mirror(reflecting: subject)
  }

  /// Whether swift-custom-dump diffs the value as a whole rather than by its fields: one field
  /// whose own value has nothing inside (as swift-custom-dump decides it, but for the
  /// observable classes it also looks for, which a diff of value states does not meet).
  var isSingleValueContainer: Bool {
    switch displayStyle {
    case .collection?, .dictionary?, .set?:
      return false
    default:
      guard children.count == 1, let child = children.first else { return false }
      var value = child.value
      while let representable = value as? any CustomDumpRepresentable {
        value = representable.customDumpValue
      }
      if let convertible = child.value as? any CustomDumpStringConvertible {
        return !convertible.customDumpDescription.contains("\n")
      }
      return Mirror(customDumpReflecting: value).children.isEmpty
    }
  }
}

/// Whether two values are equal: with `==` where they are `Equatable`, else field by field,
/// as swift-custom-dump compares them (a pair of objects met again inside itself counts as
/// equal, so that a cycle ends).
func areEqual(_ old: Any, _ new: Any) -> Bool {
  var visited: Set<[ObjectIdentifier]> = []
  return areEqual(old, new, visited: &visited)
}

private func areEqual(_ old: Any, _ new: Any, visited: inout Set<[ObjectIdentifier]>) -> Bool {
  if let old = old as? any Equatable {
    func isEqual<T: Equatable>(_ old: T) -> Bool { (new as? T).map { $0 == old } ?? false }
    return isEqual(old)
  }
  if type(of: old) is AnyClass, type(of: new) is AnyClass {
    let pair = [ObjectIdentifier(old as AnyObject), ObjectIdentifier(new as AnyObject)]
    if pair[0] == pair[1] || !visited.insert(pair).inserted { return true }
  }
  let oldMirror = Mirror(customDumpReflecting: old)
  let newMirror = Mirror(customDumpReflecting: new)
  guard oldMirror.subjectType == newMirror.subjectType,
    oldMirror.children.count == newMirror.children.count
  else { return false }
  guard !oldMirror.children.isEmpty else {
    return String(describing: old) == String(describing: new)
  }
  return zip(oldMirror.children, newMirror.children).allSatisfy {
    $0.label == $1.label && areEqual($0.value, $1.value, visited: &visited)
  }
}

/// Whether two values are `Identifiable` with the same `id`: the same element, in
/// swift-custom-dump's diff of a collection, even when it changed.
func isIdentityEqual(_ old: Any, _ new: Any) -> Bool {
  guard let old = old as? any Identifiable else { return false }
  func isSame<T: Identifiable>(_ old: T) -> Bool { (new as? T).map { $0.id == old.id } ?? false }
  return isSame(old)
}

/// How many elements at the start and at the end two collections share, compared with `==`
/// on the collections themselves where their elements are `Equatable` (no mirrors), else
/// element by element through their mirrors. The two never overlap.
func commonEnds(_ old: Any, _ new: Any, oldCount: Int, newCount: Int) -> (prefix: Int, suffix: Int)
{
  if let oldCollection = old as? any BidirectionalCollection, oldCollection.count == oldCount,
    let newCollection = new as? any BidirectionalCollection, newCollection.count == newCount,
    let ends = commonEnds(oldCollection, new)
  {
    return ends
  }
  return commonEnds(
    Array(Mirror(customDumpReflecting: old).children),
    Array(Mirror(customDumpReflecting: new).children)
  ) { areEqual($0.value, $1.value) }
}

private func commonEnds<C: BidirectionalCollection>(_ old: C, _ new: Any) -> (
  prefix: Int, suffix: Int
)? {
  (EquatableElements(old) as? any CommonEnds)?.commonEnds(with: new)
}

/// How many elements at the start and at the end two collections share, by `areEqual`; the
/// two never overlap. Inlined, so that the `==` the fast path passes is called directly.
@inline(__always)
private func commonEnds<C: BidirectionalCollection>(
  _ old: C, _ new: C, by areEqual: (C.Element, C.Element) -> Bool
) -> (prefix: Int, suffix: Int) {
  var prefix = 0
  var oldIndex = old.startIndex
  var newIndex = new.startIndex
  while oldIndex != old.endIndex, newIndex != new.endIndex, areEqual(old[oldIndex], new[newIndex]) {
    old.formIndex(after: &oldIndex)
    new.formIndex(after: &newIndex)
    prefix += 1
  }
  var suffix = 0
  let limit = min(old.count, new.count) - prefix
  var oldEnd = old.endIndex
  var newEnd = new.endIndex
  while suffix < limit {
    old.formIndex(before: &oldEnd)
    new.formIndex(before: &newEnd)
    guard areEqual(old[oldEnd], new[newEnd]) else { break }
    suffix += 1
  }
  return (prefix, suffix)
}

/// Finds the common prefix and suffix of two collections with `==`.
private protocol CommonEnds {
  func commonEnds(with other: Any) -> (prefix: Int, suffix: Int)?
}

/// A collection, which is ``CommonEnds`` when its elements are `Equatable`: the runtime
/// checks that condition once, so that the comparison loop compares elements with their own
/// `==`, not through a dynamic cast per element (see W8).
private struct EquatableElements<Base: BidirectionalCollection> {
  var base: Base
  init(_ base: Base) { self.base = base }
}

extension EquatableElements: CommonEnds where Base.Element: Equatable {
  func commonEnds(with other: Any) -> (prefix: Int, suffix: Int)? {
    (other as? Base).map { RetraceDebugger.commonEnds(base, $0, by: ==) }
  }
}

/// Whether a value has at most ``StateDiffWriter/smallNodeCount`` nodes.
func isSmall(_ value: Any) -> Bool {
  nodeCount(of: value, limit: StateDiffWriter.smallNodeCount) <= StateDiffWriter.smallNodeCount
}

/// The number of nodes in a value (itself, its fields and elements, theirs, …), as
/// ``dumpDepth(of:maxNodes:)`` counts them; more than `limit` once it passes it.
func nodeCount(of value: Any, limit: Int) -> Int {
  let (depth, nodes) = dumpDepth(of: value, maxNodes: limit)
  return depth == nil ? nodes : limit + 1
}

/// The depth to dump a value at so that it writes about `maxNodes` values at most (`nil`:
/// all of it), and how many values it writes then.
///
/// It counts the value's nodes level by level (fields, elements), as `customDump` descends
/// (through custom dump mirrors, through optionals without a level of their own, and into
/// an object only the first time it meets it), and stops at the first level whose children
/// would take the total past `maxNodes`.
func dumpDepth(of value: Any, maxNodes: Int) -> (depth: Int?, nodes: Int) {
  var level: [Any] = [value]
  var total = 0
  var depth = 0
  var objects = ObjectsSeen()
  while !level.isEmpty {
    total += level.count
    var next: [Any] = []
    for value in level {
      let value = unwrapped(value)
      guard objects.isNew(value) else { continue }
      // A collection's count is known without walking its elements.
      let children = Mirror(customDumpReflecting: value).children
      if total + next.count + children.count > maxNodes { return (depth, total) }
      next.append(contentsOf: children.lazy.map(\.value))
    }
    level = next
    depth += 1
  }
  return (nil, total)
}

/// The objects a walk over a value has entered: an object met again (in a cycle, or shared)
/// is not entered twice, as `customDump` writes it `(↩︎)` the second time.
private struct ObjectsSeen {
  private var seen: Set<ObjectIdentifier> = []

  /// Whether `value` is a value, or an object not met before (which it then remembers).
  mutating func isNew(_ value: Any) -> Bool {
    guard type(of: value) is AnyClass else { return true }
    return seen.insert(ObjectIdentifier(value as AnyObject)).inserted
  }
}

/// The value inside any optionals around it.
private func unwrapped(_ value: Any) -> Any {
  var value = value
  while case let mirror = Mirror(reflecting: value), mirror.displayStyle == .optional,
    let some = mirror.children.first
  {
    value = some.value
  }
  return value
}
