/// Collections whose `Codable` form lists their elements in hash order, which changes from
/// process to process: deterministic mode sorts the array they encode to.
protocol _CBORUnorderedCollection {
  /// How many array elements make one entry: 1 for a set, 2 (key, value) for a
  /// dictionary whose keys are not `String` or `Int` (those encode as maps).
  static var cborGroupSize: UInt8 { get }
}

extension Set: _CBORUnorderedCollection {
  static var cborGroupSize: UInt8 { 1 }
}

extension Dictionary: _CBORUnorderedCollection {
  static var cborGroupSize: UInt8 { 2 }
}
