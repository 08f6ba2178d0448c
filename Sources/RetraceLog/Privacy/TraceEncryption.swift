import Crypto
import Foundation

/// How a trace is encrypted: the header field `encryption` of an encrypted trace, kept in
/// clear so that a reader knows which key it needs (`docs/TRACE_FORMAT.md` §10).
///
/// The suite is HPKE (RFC 9180) in base mode with DHKEM(X25519, HKDF-SHA256), HKDF-SHA256
/// and ChaCha20-Poly1305; the trace's chunks and journal records are sealed with keys
/// exported from its HPKE context.
public struct TraceEncryption: Codable, Equatable, Sendable {
  /// The HPKE KEM identifier: 0x0020, DHKEM(X25519, HKDF-SHA256).
  public var kem: Int
  /// The HPKE KDF identifier: 0x0001, HKDF-SHA256.
  public var kdf: Int
  /// The HPKE AEAD identifier: 0x0003, ChaCha20-Poly1305.
  public var aead: Int
  /// The HPKE encapsulated key (`enc`): 32 bytes.
  public var encapsulatedKey: Data
  /// The ``TracePublicKey/id`` of the key the trace was encrypted to.
  public var keyID: String

  /// The suite this library writes and reads.
  static let suite = (kem: 0x0020, kdf: 0x0001, aead: 0x0003)

  /// Creates the field.
  public init(kem: Int, kdf: Int, aead: Int, encapsulatedKey: Data, keyID: String) {
    self.kem = kem
    self.kdf = kdf
    self.aead = aead
    self.encapsulatedKey = encapsulatedKey
    self.keyID = keyID
  }
}

extension TraceError {
  /// What reading an encrypted trace's records without a key throws.
  package static func keyNeeded(_ encryption: TraceEncryption, path: String) -> TraceError {
    TraceError(
      .encrypted, "the trace is encrypted (to key \(encryption.keyID))" + keyNeededEnding,
      path: path)
  }

  private static let keyNeededEnding = ", and no key was given to read it"

  /// Whether this is ``keyNeeded(_:path:)``'s error (not another key's), to which a tool can
  /// add how its user gives a key.
  package var isKeyNeeded: Bool { code == .encrypted && message.hasSuffix(Self.keyNeededEnding) }
}

/// The keys that seal and open an encrypted trace's chunks and journal records, exported
/// from the trace's HPKE context, and the digest of its header frame, which every sealed
/// frame authenticates (`docs/TRACE_FORMAT.md` §10).
struct TraceCipher: Sendable {
  /// HPKE's `info`, the same for every trace.
  static let info = Data("retrace trace encryption 1".utf8)
  static let chunkContext = Data("retrace chunk key".utf8)
  static let journalContext = Data("retrace journal key".utf8)

  private let chunkKey: SymmetricKey
  private let journalKey: SymmetricKey
  /// SHA-256 of the header frame's content; set once the header is written or read.
  var headerDigest: [UInt8] = []

  private init(chunkKey: SymmetricKey, journalKey: SymmetricKey) {
    self.chunkKey = chunkKey
    self.journalKey = journalKey
  }

  /// A new HPKE context to `recipient`: the cipher of a trace being written, and the
  /// header field that lets the recipient rebuild it.
  static func sealing(to recipient: TracePublicKey) throws(TraceError) -> (
    TraceCipher, TraceEncryption
  ) {
    do {
      let sender = try HPKE.Sender(
        recipientKey: recipient.agreementKey, ciphersuite: .Curve25519_SHA256_ChachaPoly,
        info: info)
      let cipher = TraceCipher(
        chunkKey: try sender.exportSecret(context: chunkContext, outputByteCount: 32),
        journalKey: try sender.exportSecret(context: journalContext, outputByteCount: 32))
      let field = TraceEncryption(
        kem: TraceEncryption.suite.kem, kdf: TraceEncryption.suite.kdf,
        aead: TraceEncryption.suite.aead,
        encapsulatedKey: sender.encapsulatedKey, keyID: recipient.id)
      return (cipher, field)
    } catch {
      throw TraceError(.io, "cannot set up the encryption: \(error)")
    }
  }

  /// The cipher of a trace whose header carries `field`, opened with `key`.
  ///
  /// - Throws: ``TraceError`` (`encrypted`) when `key` is not the key the trace was
  ///   encrypted to, or the suite is not the one this library reads.
  static func opening(_ field: TraceEncryption, with key: TracePrivateKey) throws(TraceError)
    -> TraceCipher
  {
    let suite = TraceEncryption.suite
    guard field.kem == suite.kem, field.kdf == suite.kdf, field.aead == suite.aead else {
      throw TraceError(
        .encrypted,
        "encrypted with HPKE suite (\(field.kem), \(field.kdf), \(field.aead)), which this reader does not know"
      )
    }
    guard field.keyID == key.publicKey.id else {
      throw TraceError(
        .encrypted,
        "encrypted to key \(field.keyID), and the key given is \(key.publicKey.id)")
    }
    do {
      let recipient = try HPKE.Recipient(
        privateKey: key.key, ciphersuite: .Curve25519_SHA256_ChachaPoly, info: info,
        encapsulatedKey: field.encapsulatedKey)
      return TraceCipher(
        chunkKey: try recipient.exportSecret(context: chunkContext, outputByteCount: 32),
        journalKey: try recipient.exportSecret(context: journalContext, outputByteCount: 32))
    } catch {
      throw TraceError(.corrupted, "the header's encapsulated key does not open with the key")
    }
  }

  /// The 12-byte nonce of frame or record `counter`: four zero bytes, then the counter,
  /// little-endian.
  private static func nonce(_ counter: UInt64) -> ChaChaPoly.Nonce {
    var bytes = [UInt8](repeating: 0, count: 12)
    withUnsafeBytes(of: counter.littleEndian) { bytes.replaceSubrange(4..<12, with: $0) }
    return try! ChaChaPoly.Nonce(data: bytes)
  }

  /// The associated data of chunk `header` (its 48 bytes of content): the header digest,
  /// then the chunk header's content without its checksum.
  private func chunkAAD(_ header: UnsafeRawBufferPointer) -> [UInt8] {
    headerDigest + Array(header[0..<40]) + Array(header[44..<48])
  }

  /// Seals chunk number `ordinal`'s zstd `frame` into a sealed frame (a skippable frame of
  /// magic 0x184D2A52 holding the ciphertext and its tag), appended to `output`.
  ///
  /// - Parameter header: The chunk header's 48 bytes of content, with every field set but
  ///   its checksum.
  func sealChunk(
    _ frame: UnsafeRawBufferPointer, ordinal: Int, header: UnsafeRawBufferPointer,
    appendingTo output: inout [UInt8]
  ) throws(TraceError) {
    let box: ChaChaPoly.SealedBox
    do {
      box = try ChaChaPoly.seal(
        frame, using: chunkKey, nonce: Self.nonce(UInt64(ordinal)),
        authenticating: chunkAAD(header))
    } catch {
      throw TraceError(.io, "cannot encrypt chunk \(ordinal): \(error)")
    }
    output.appendLittleEndian(TraceFormat.sealedMagic)
    output.appendLittleEndian(UInt32(box.ciphertext.count + box.tag.count))
    output.append(contentsOf: box.ciphertext)
    output.append(contentsOf: box.tag)
  }

  /// The size of the sealed frame of a zstd frame of `size` bytes.
  static func sealedSize(_ size: Int) -> Int { 8 + size + 16 }

  /// Opens chunk number `ordinal`'s sealed frame into its zstd frame.
  ///
  /// - Returns: `nil` when the frame is not a sealed frame or does not authenticate (a
  ///   changed byte, another key, a chunk moved from another place).
  func openChunk(
    _ sealed: UnsafeRawBufferPointer, ordinal: Int, header: UnsafeRawBufferPointer
  ) -> Data? {
    guard sealed.count >= 24,
      sealed.readLittleEndian(UInt32.self, at: 0) == TraceFormat.sealedMagic,
      Int(sealed.readLittleEndian(UInt32.self, at: 4)) == sealed.count - 8,
      let box = try? ChaChaPoly.SealedBox(
        nonce: Self.nonce(UInt64(ordinal)), ciphertext: sealed[8..<(sealed.count - 16)],
        tag: sealed[(sealed.count - 16)...])
    else { return nil }
    return try? ChaChaPoly.open(box, using: chunkKey, authenticating: chunkAAD(header))
  }

  /// Seals journal record number `counter` (`records`: one or more CBOR records, one after
  /// another) into the payload a sealed journal holds: the counter (8 bytes, little-endian),
  /// the ciphertext and its tag.
  func sealJournalRecord(_ records: [UInt8], counter: UInt64) throws(TraceError) -> [UInt8] {
    let box: ChaChaPoly.SealedBox
    do {
      box = try ChaChaPoly.seal(
        records, using: journalKey, nonce: Self.nonce(counter), authenticating: headerDigest)
    } catch {
      throw TraceError(.io, "cannot encrypt a journal record: \(error)")
    }
    var payload: [UInt8] = []
    payload.reserveCapacity(8 + records.count + 16)
    payload.appendLittleEndian(counter)
    payload.append(contentsOf: box.ciphertext)
    payload.append(contentsOf: box.tag)
    return payload
  }

  /// Opens a sealed journal record's payload into its CBOR records; `nil` when it does not
  /// authenticate.
  func openJournalRecord(_ payload: UnsafeRawBufferPointer) -> [UInt8]? {
    guard payload.count >= 24,
      let box = try? ChaChaPoly.SealedBox(
        nonce: Self.nonce(payload.readLittleEndian(UInt64.self, at: 0)),
        ciphertext: payload[8..<(payload.count - 16)], tag: payload[(payload.count - 16)...]),
      let record = try? ChaChaPoly.open(box, using: journalKey, authenticating: headerDigest)
    else { return nil }
    return Array(record)
  }
}
