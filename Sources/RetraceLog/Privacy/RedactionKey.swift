import Crypto
import Foundation

/// The secret that keys a recorder's pseudonyms (``TraceRecorderConfiguration/redactionKey``).
///
/// Keep it on the device, in the Keychain or the app's own protected storage, created once
/// per install (or per app): it never appears in a trace, a log line or an error, and without
/// it nobody can tell which value a pseudonym stands for, or find a value's pseudonym by
/// trying candidates.
///
/// ```swift
/// let key = RedactionKey.random()
/// keychain.store(key.bytes)          // the app's own storage
/// var configuration = TraceRecorderConfiguration()
/// configuration.redactionKey = key
/// ```
public struct RedactionKey: Sendable, Equatable, CustomStringConvertible {
  /// The key's 32 bytes.
  public let bytes: [UInt8]

  /// A key read back from where the app keeps it.
  ///
  /// - Parameter bytes: 32 bytes.
  /// - Returns: `nil` unless `bytes` is 32 bytes long.
  public init?(bytes: [UInt8]) {
    guard bytes.count == 32 else { return nil }
    self.bytes = bytes
  }

  /// A new random key, from the system's secure random number generator.
  public static func random() -> RedactionKey {
    let key = SymmetricKey(size: .bits256)
    return RedactionKey(bytes: key.withUnsafeBytes { Array($0) })!
  }

  /// A key anyone can derive from `seed`, for sample traces made by `retrace generate
  /// --redact` (so that they are the same every time). It protects nothing: apps use
  /// ``random()`` and keep the key.
  package static func demonstration(seed: UInt64) -> RedactionKey {
    RedactionKey(bytes: Array(SHA256.hash(data: Array("retrace demonstration key \(seed)".utf8))))!
  }

  /// Never the key's bytes: a key printed by mistake does not leak.
  public var description: String { "RedactionKey(32 bytes)" }
}
