import Retrace

/// How the checker tells states apart: by a 64-bit fingerprint, never by the state itself.
enum Fingerprint: String, Sendable {
  /// The state's `Hashable` hash (SipHash, seeded once per process): the fast way, for a
  /// state that is `Hashable`.
  case hashable
  /// The state's `StateHash` (XXH64 of its deterministic CBOR encoding): for a state that
  /// is only `Codable & Equatable`; slower, since every state is encoded.
  case stateHash = "state-hash"

  /// The fingerprint function for `State`, and which kind it is.
  static func function<State: Codable & Equatable & Sendable>(
    for type: State.Type
  ) -> (kind: Fingerprint, fingerprint: @Sendable (State) throws -> UInt64) {
    if let hashable = type as? any Hashable.Type {
      return (.hashable, hashing(State.self, as: hashable))
    }
    return (.stateHash, { try StateHash(of: $0).rawValue })
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
