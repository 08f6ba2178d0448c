/// A small, fast, seedable random number generator (xoshiro256**, seeded with SplitMix64).
///
/// Workload generators draw from it so that the same seed gives the same session on every
/// machine and every run; the standard library's generator cannot be seeded.
///
/// ```swift
/// var random = SeededRandom(seed: 42)
/// let amount = Int.random(in: 100...5_000, using: &random)
/// ```
public struct SeededRandom: RandomNumberGenerator, Sendable {
  private var s0, s1, s2, s3: UInt64

  /// Creates a generator from a seed.
  ///
  /// - Parameter seed: Any value; equal seeds give equal sequences.
  public init(seed: UInt64) {
    var x = seed
    func splitMix() -> UInt64 {
      x &+= 0x9E37_79B9_7F4A_7C15
      var z = x
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    s0 = splitMix()
    s1 = splitMix()
    s2 = splitMix()
    s3 = splitMix()
  }

  /// Returns the next 64 random bits.
  public mutating func next() -> UInt64 {
    let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
    let t = s1 << 17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = s3 << 45 | s3 >> 19
    return result
  }
}
