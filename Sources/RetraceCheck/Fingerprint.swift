import Retrace

/// How a model checker tells states apart: by a 64-bit fingerprint, never by the state
/// itself.
public enum StateFingerprint: String, Sendable, CaseIterable {
  /// A 64-bit hash of every value the state's `encode(to:)` writes, each with its path of
  /// keys and indices, computed as the state encodes, without writing bytes. The default
  /// for a domain that does not declare `statesHashEveryField`: two states differ whenever
  /// their encodings differ, as with ``stateHash``, whatever order a dictionary's or a
  /// set's entries come in, faster.
  case structure
  /// The state's `StateHash`: XXH64 of its deterministic CBOR encoding, every field that
  /// `Codable` encodes (what a trace's snapshots hold). Tells states apart as ``structure``
  /// does, more slowly: the state is encoded to bytes and its map keys sorted.
  case stateHash = "state-hash"
  /// The state's `Hashable` hash (SipHash, seeded once per process): several times faster,
  /// and right only when the state's `hash(into:)` combines every field that `==` compares,
  /// as the domain says by declaring `statesHashEveryField` (then it is the default).
  /// `Hashable` allows hashing fewer (a type that hashes its `id` alone), and then states
  /// that differ only in the other fields count as one, and what only the second leads to
  /// is never searched: a false pass.
  case hashable

  /// The fingerprint function for `State` of this kind; `nil` for ``hashable`` when the
  /// state is not `Hashable`.
  func function<State: Codable & Equatable & Sendable>(
    for type: State.Type
  ) -> (@Sendable (State) throws -> UInt64)? {
    switch self {
    case .structure:
      return { try StructureHash.of($0) }
    case .stateHash:
      return { try StateHash(of: $0).rawValue }
    case .hashable:
      guard let hashable = type as? any Hashable.Type else { return nil }
      return Self.hashing(State.self, as: hashable)
    }
  }

  /// Hashes a `State` with the `Hashable` conformance of `Hashed`, which is `State` itself
  /// (the caller found it so), without boxing the state in an existential.
  private static func hashing<State, Hashed: Hashable>(
    _ state: State.Type, as hashed: Hashed.Type
  ) -> @Sendable (State) -> UInt64 {
    precondition(State.self == Hashed.self)
    return { state in
      withUnsafePointer(to: state) {
        $0.withMemoryRebound(to: Hashed.self, capacity: 1) {
          UInt64(bitPattern: Int64($0.pointee.hashValue))
        }
      }
    }
  }
}
