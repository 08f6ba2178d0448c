import Crypto
import Foundation

/// The public half of a developer's trace key: what an app encrypts its traces to
/// (``TraceRecorderConfiguration/encryptionKey``).
///
/// An X25519 public key, written as one line of text, `RETRACE-PUBLIC-KEY-1:` and the key's
/// 32 bytes in base64, the way `retrace keygen` writes `NAME.pub`. It is not a secret: ship
/// it inside the app. Only the matching ``TracePrivateKey``, which stays with the developers,
/// reads what was encrypted to it (`docs/PRIVACY.md`).
///
/// ```swift
/// let key = try TracePublicKey(text: "RETRACE-PUBLIC-KEY-1:Ql3o…")
/// var configuration = TraceRecorderConfiguration()
/// configuration.encryptionKey = key
/// ```
public struct TracePublicKey: Sendable, Hashable, CustomStringConvertible {
  /// The prefix of the text form.
  static let prefix = "RETRACE-PUBLIC-KEY-1:"

  /// The key's 32 bytes.
  public let rawRepresentation: Data

  /// The key from its 32 bytes.
  ///
  /// - Throws: ``TraceError`` (`corrupted`) unless `rawRepresentation` is an X25519 public key.
  public init(rawRepresentation: Data) throws(TraceError) {
    guard (try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: rawRepresentation)) != nil
    else { throw TraceError(.corrupted, "not an X25519 public key (32 bytes)") }
    self.rawRepresentation = rawRepresentation
  }

  /// The key from its text form, `RETRACE-PUBLIC-KEY-1:` and base64 (white space around it
  /// is ignored).
  ///
  /// - Throws: ``TraceError`` (`corrupted`) when `text` is not a Retrace public key.
  public init(text: String) throws(TraceError) {
    let body = try keyBody(text, prefix: Self.prefix, what: "public key")
    try self.init(rawRepresentation: body)
  }

  /// The key read from a file written by `retrace keygen` (`NAME.pub`).
  ///
  /// - Throws: ``TraceError`` naming the file when it cannot be read or holds no public key.
  public init(contentsOfFile path: String) throws(TraceError) {
    do {
      try self.init(text: try readKeyFile(path))
    } catch {
      throw error.at(path: path)
    }
  }

  /// The text form: `RETRACE-PUBLIC-KEY-1:` and the key in base64.
  public var text: String { Self.prefix + rawRepresentation.base64EncodedString() }

  /// A short name of the key, the first 8 bytes of its SHA-256 in hex: what a trace records
  /// of the key it was encrypted to, so that a reader given another key says so.
  public var id: String {
    SHA256.hash(data: rawRepresentation).prefix(8).hex
  }

  /// The key itself is public; its description is its ``id``.
  public var description: String { "TracePublicKey(\(id))" }

  var agreementKey: Curve25519.KeyAgreement.PublicKey {
    // Checked by every initializer.
    try! Curve25519.KeyAgreement.PublicKey(rawRepresentation: rawRepresentation)
  }
}

/// The private half of a developer's trace key: what reads the traces an app encrypted to its
/// ``publicKey``.
///
/// One line of text, `RETRACE-PRIVATE-KEY-1:` and the key's 32 bytes in base64, as
/// `retrace keygen` writes `NAME.key` (readable by its owner only). Keep it with the
/// developers, never in the app: whoever holds it reads every trace encrypted to its public
/// key. Its ``description`` never shows the key.
public struct TracePrivateKey: Sendable, CustomStringConvertible {
  /// The prefix of the text form.
  static let prefix = "RETRACE-PRIVATE-KEY-1:"

  let key: Curve25519.KeyAgreement.PrivateKey

  /// A new key, from the system's secure random number generator.
  public static func generate() -> TracePrivateKey {
    TracePrivateKey(key: Curve25519.KeyAgreement.PrivateKey())
  }

  private init(key: Curve25519.KeyAgreement.PrivateKey) {
    self.key = key
  }

  /// The key from its 32 bytes.
  ///
  /// - Throws: ``TraceError`` (`corrupted`) unless `rawRepresentation` is 32 bytes.
  public init(rawRepresentation: Data) throws(TraceError) {
    guard let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: rawRepresentation)
    else { throw TraceError(.corrupted, "not an X25519 private key (32 bytes)") }
    self.key = key
  }

  /// The key from its text form, `RETRACE-PRIVATE-KEY-1:` and base64.
  ///
  /// - Throws: ``TraceError`` (`corrupted`) when `text` is not a Retrace private key; the
  ///   message never repeats the text.
  public init(text: String) throws(TraceError) {
    try self.init(rawRepresentation: try keyBody(text, prefix: Self.prefix, what: "private key"))
  }

  /// The key read from a file written by `retrace keygen` (`NAME.key`).
  ///
  /// - Throws: ``TraceError`` naming the file when it cannot be read or holds no private key.
  public init(contentsOfFile path: String) throws(TraceError) {
    do {
      try self.init(text: try readKeyFile(path))
    } catch {
      throw error.at(path: path)
    }
  }

  /// The text form: `RETRACE-PRIVATE-KEY-1:` and the key in base64. Write it only where
  /// the key is meant to be kept.
  public var text: String { Self.prefix + key.rawRepresentation.base64EncodedString() }

  /// The matching public key.
  public var publicKey: TracePublicKey {
    // A private key's public key is always a valid one.
    try! TracePublicKey(rawRepresentation: key.publicKey.rawRepresentation)
  }

  /// Never the key: only the ``TracePublicKey/id`` of its public key.
  public var description: String { "TracePrivateKey(\(publicKey.id))" }
}

/// The base64 body of a key's text form, decoded.
private func keyBody(_ text: String, prefix: String, what: String) throws(TraceError) -> Data {
  let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
  guard trimmed.hasPrefix(prefix) else {
    let other =
      prefix == TracePrivateKey.prefix
      ? TracePublicKey.prefix : TracePrivateKey.prefix
    if trimmed.hasPrefix(other) {
      throw TraceError(
        .corrupted,
        "a Retrace \(what == "public key" ? "private" : "public") key, where a \(what) is needed")
    }
    throw TraceError(.corrupted, "not a Retrace \(what) (it must start with \(prefix))")
  }
  guard let body = Data(base64Encoded: String(trimmed.dropFirst(prefix.count))),
    body.count == 32
  else { throw TraceError(.corrupted, "the \(what) is not 32 bytes of base64") }
  return body
}

private func readKeyFile(_ path: String) throws(TraceError) -> String {
  guard FileManager.default.fileExists(atPath: path) else {
    throw TraceError(.notFound, "no such key file", path: path)
  }
  guard let data = FileManager.default.contents(atPath: path), data.count <= 4096,
    let text = String(data: data, encoding: .utf8)
  else { throw TraceError(.io, "cannot read the key file", path: path) }
  return text
}
