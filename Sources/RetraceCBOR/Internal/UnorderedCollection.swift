/// Collections whose `Codable` form lists their elements in hash order, which changes from
/// one instance to another: deterministic mode sorts the array they encode to, and the
/// model checker's structure fingerprint combines its entries in any order.
package protocol UnorderedCollection {
  /// How many array elements make one entry: 1 for a set, 2 (key, value) for a
  /// dictionary whose keys are not `String` or `Int` (those encode as maps).
  static var cborGroupSize: UInt8 { get }
}

extension Set: UnorderedCollection {
  package static var cborGroupSize: UInt8 { 1 }
}

extension Dictionary: UnorderedCollection {
  package static var cborGroupSize: UInt8 { 2 }
}
