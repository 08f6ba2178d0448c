// XXH64, the 64-bit xxHash by Yann Collet (https://github.com/Cyan4973/xxHash, spec in
// doc/xxhash_spec.md). Hand-written because no package on the list provides it and the
// core module must not depend on libzstd (which bundles a copy). Verified against the
// reference implementation (Python `xxhash` 4.1) by the vectors in XXH64Tests.

/// The XXH64 hash function: fast, well distributed, not cryptographic.
///
/// ```swift
/// XXH64.hash(Array("abc".utf8))   // 0x44bc2cf5ad770999
/// ```
package enum XXH64 {
  static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
  static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
  static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
  static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
  static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

  /// The XXH64 hash of `bytes`.
  ///
  /// - Parameters:
  ///   - bytes: The input.
  ///   - seed: The seed; 0 unless a format says otherwise.
  /// - Returns: The 64-bit hash.
  package static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
    var hasher = XXH64Hasher(seed: seed)
    hasher.update(bytes)
    return hasher.finalize()
  }

  /// The XXH64 hash of `bytes`.
  ///
  /// - Parameters:
  ///   - bytes: The input.
  ///   - seed: The seed; 0 unless a format says otherwise.
  /// - Returns: The 64-bit hash.
  package static func hash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
    bytes.withUnsafeBytes { hash($0, seed: seed) }
  }

  /// The XXH64 hash of three words, as of their 24 little-endian bytes: the short-input
  /// path of ``hash(_:seed:)-(UnsafeRawBufferPointer,_)`` without a buffer, for hashing
  /// small tuples many times a second (the model checker's structure fingerprint).
  ///
  /// - Parameters:
  ///   - a: The first 8 bytes, as a little-endian word.
  ///   - b: The next 8.
  ///   - c: The last 8.
  ///   - seed: The seed.
  /// - Returns: The 64-bit hash.
  @inline(__always)
  package static func hash(words a: UInt64, _ b: UInt64, _ c: UInt64, seed: UInt64) -> UInt64 {
    var hash = seed &+ prime5 &+ 24
    hash ^= round(0, a)
    hash = rotateLeft(hash, 27) &* prime1 &+ prime4
    hash ^= round(0, b)
    hash = rotateLeft(hash, 27) &* prime1 &+ prime4
    hash ^= round(0, c)
    hash = rotateLeft(hash, 27) &* prime1 &+ prime4
    hash ^= hash &>> 33
    hash &*= prime2
    hash ^= hash &>> 29
    hash &*= prime3
    hash ^= hash &>> 32
    return hash
  }

  @inline(__always)
  static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
    rotateLeft(accumulator &+ input &* prime2, 31) &* prime1
  }

  @inline(__always)
  static func mergeRound(_ accumulator: UInt64, _ value: UInt64) -> UInt64 {
    (accumulator ^ round(0, value)) &* prime1 &+ prime4
  }

  @inline(__always)
  static func rotateLeft(_ value: UInt64, _ count: UInt64) -> UInt64 {
    (value &<< count) | (value &>> (64 &- count))
  }

  @inline(__always)
  static func load64(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
    UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
  }

  @inline(__always)
  static func load32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
    UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
  }
}

/// XXH64 over input that arrives in pieces; the result equals ``XXH64/hash(_:seed:)-(UnsafeRawBufferPointer,_)``
/// of the concatenated input.
///
/// ```swift
/// var hasher = XXH64Hasher()
/// hasher.update(Array("ab".utf8))
/// hasher.update(Array("c".utf8))
/// hasher.finalize()   // == XXH64.hash(Array("abc".utf8))
/// ```
package struct XXH64Hasher: Sendable {
  private let seed: UInt64
  private var v1: UInt64
  private var v2: UInt64
  private var v3: UInt64
  private var v4: UInt64
  private var totalLength: UInt64 = 0
  /// Input not yet consumed by a 32-byte stripe.
  private var pending: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
  private var pendingCount = 0

  /// Creates a hasher.
  ///
  /// - Parameter seed: The seed; 0 unless a format says otherwise.
  package init(seed: UInt64 = 0) {
    self.seed = seed
    v1 = seed &+ XXH64.prime1 &+ XXH64.prime2
    v2 = seed &+ XXH64.prime2
    v3 = seed
    v4 = seed &- XXH64.prime1
  }

  /// Adds bytes to the input.
  package mutating func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { update($0) }
  }

  /// Adds bytes to the input.
  package mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    totalLength &+= UInt64(bytes.count)
    var offset = 0
    if pendingCount > 0 {
      let taken = min(32 - pendingCount, bytes.count)
      withUnsafeMutableBytes(of: &pending) { stripe in
        stripe.baseAddress!.advanced(by: pendingCount)
          .copyMemory(from: bytes.baseAddress!, byteCount: taken)
      }
      pendingCount += taken
      offset = taken
      guard pendingCount == 32 else { return }
      let stripe = pending
      withUnsafeBytes(of: stripe) { consumeStripe($0, at: 0) }
      pendingCount = 0
    }
    while bytes.count - offset >= 32 {
      consumeStripe(bytes, at: offset)
      offset += 32
    }
    let rest = bytes.count - offset
    if rest > 0 {
      withUnsafeMutableBytes(of: &pending) { stripe in
        stripe.baseAddress!.copyMemory(
          from: bytes.baseAddress!.advanced(by: offset), byteCount: rest)
      }
      pendingCount = rest
    }
  }

  @inline(__always)
  private mutating func consumeStripe(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
    v1 = XXH64.round(v1, XXH64.load64(bytes, offset))
    v2 = XXH64.round(v2, XXH64.load64(bytes, offset + 8))
    v3 = XXH64.round(v3, XXH64.load64(bytes, offset + 16))
    v4 = XXH64.round(v4, XXH64.load64(bytes, offset + 24))
  }

  /// The hash of all input so far. The hasher can take more input afterwards.
  package func finalize() -> UInt64 {
    var hash: UInt64
    if totalLength >= 32 {
      hash =
        XXH64.rotateLeft(v1, 1) &+ XXH64.rotateLeft(v2, 7)
        &+ XXH64.rotateLeft(v3, 12) &+ XXH64.rotateLeft(v4, 18)
      hash = XXH64.mergeRound(hash, v1)
      hash = XXH64.mergeRound(hash, v2)
      hash = XXH64.mergeRound(hash, v3)
      hash = XXH64.mergeRound(hash, v4)
    } else {
      hash = seed &+ XXH64.prime5
    }
    hash &+= totalLength
    let stripe = pending
    withUnsafeBytes(of: stripe) { tail in
      var offset = 0
      while pendingCount - offset >= 8 {
        hash ^= XXH64.round(0, XXH64.load64(tail, offset))
        hash = XXH64.rotateLeft(hash, 27) &* XXH64.prime1 &+ XXH64.prime4
        offset += 8
      }
      if pendingCount - offset >= 4 {
        hash ^= XXH64.load32(tail, offset) &* XXH64.prime1
        hash = XXH64.rotateLeft(hash, 23) &* XXH64.prime2 &+ XXH64.prime3
        offset += 4
      }
      while offset < pendingCount {
        hash ^= UInt64(tail[offset]) &* XXH64.prime5
        hash = XXH64.rotateLeft(hash, 11) &* XXH64.prime1
        offset += 1
      }
    }
    hash ^= hash &>> 33
    hash &*= XXH64.prime2
    hash ^= hash &>> 29
    hash &*= XXH64.prime3
    hash ^= hash &>> 32
    return hash
  }
}
