/// A 64-bit fingerprint of a state value, stable across runs, processes and machines.
///
/// Traces store it beside snapshots and at checkpoints; replay recomputes it and reports
/// the first checkpoint where the reducer no longer reproduces the recorded state.
///
/// How it is computed, so that another language can reproduce it: encode the state with
/// ``CBOREncoder`` in deterministic mode (the mapping of `docs/CODEC.md`: maps with text
/// keys sorted by the bytes of their encoded keys, i.e. shorter keys first and then
/// bytewise; shortest integer heads; floats in the shortest of half, single and double
/// precision that keeps the value, every NaN as 0xf97e00; definite lengths; the arrays
/// of a `Set`, and of a `Dictionary` whose keys are not `String` or `Int`, sorted by the
/// bytes of their elements or keys), then take XXH64 with seed 0 of those bytes, and
/// print it as 16 lowercase hex digits. For example, in Python, for a value built of
/// dicts with string keys, lists, strings, integers and floats:
/// `xxhash.xxh64(cbor2.dumps(value, canonical=True)).hexdigest()`.
///
/// ```swift
/// struct Counter: Codable { var count: Int }
/// let hash = try StateHash(of: Counter(count: 3))
/// print(hash)   // 16 lowercase hex digits
/// ```
///
/// Swift's `Hashable` is deliberately not used: its seed changes from process to process.
/// `StateHash` encodes (`Codable`) as a single unsigned integer.
public struct StateHash: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The XXH64 value.
  public var rawValue: UInt64

  /// Wraps a hash value, such as one read from a trace.
  ///
  /// - Parameter rawValue: The XXH64 value.
  public init(rawValue: UInt64) {
    self.rawValue = rawValue
  }

  /// Hashes a state: XXH64 (seed 0) of its deterministic CBOR encoding.
  ///
  /// ```swift
  /// let before = try StateHash(of: state)
  /// ```
  ///
  /// - Parameter state: The state to hash.
  /// - Throws: The errors of ``CBOREncoder/encode(_:)``.
  public init<S: Encodable>(of state: S) throws {
    let bytes = try CBOREncoder(deterministic: true).encode(state)
    self.rawValue = XXH64.hash(bytes, seed: 0)
  }

  /// The hash as 16 lowercase hexadecimal digits, e.g. `44bc2cf5ad770999`.
  public var description: String {
    let digits = String(rawValue, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// Decodes the hash from a single unsigned integer.
  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(UInt64.self)
  }

  /// Encodes the hash as a single unsigned integer.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}
