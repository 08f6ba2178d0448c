/// Collections whose `Codable` form lists their elements in hash order, which changes from
/// process to process: deterministic mode sorts the array they encode to.
protocol UnorderedCollection {
  /// How many array elements make one entry: 1 for a set, 2 (key, value) for a
  /// dictionary whose keys are not `String` or `Int` (those encode as maps).
  static var cborGroupSize: UInt8 { get }
}

extension Set: UnorderedCollection {
  static var cborGroupSize: UInt8 { 1 }
}

extension Dictionary: UnorderedCollection {
  static var cborGroupSize: UInt8 { 2 }
}
