import Crypto
import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// A trace encrypted to a developer's public key: read with the private key as the same
/// session in clear, unreadable without it, and damaged, truncated or tampered with, never
/// decoded into anything but a prefix of the session.
@Suite struct EncryptionTests {
  static let key = TracePrivateKey.generate()

  typealias Fixture = (
    clear: [UInt8], encrypted: [UInt8], actions: [BankingAction], unfinished: [UInt8],
    journal: [UInt8], unfinishedActions: [BankingAction]
  )

  /// For each trace format: the same session recorded in clear and encrypted, in small
  /// chunks, and an unfinished encrypted one with its journal.
  static let fixtures: [UInt16: Fixture] = Dictionary(
    uniqueKeysWithValues: traceFormats.map { format in
      let directory = temporaryDirectory("encryption\(format)")
      var configuration = smallChunks(reproducible: true, format: format)
      let clear = try! recordWithoutStore(
        bankingDomain, count: 800, to: directory + "/clear.trace", configuration: configuration)
      configuration.encryptionKey = key.publicKey
      _ = try! recordWithoutStore(
        bankingDomain, count: 800, to: directory + "/encrypted.trace",
        configuration: configuration)
      configuration.chunkSize = 8_192
      let open = try! recordWithoutStore(
        bankingDomain, count: 400, seed: 3, to: directory + "/open.trace",
        configuration: configuration, close: false)
      let unfinished = bytes(of: directory + "/open.trace")
      let journal = bytes(of: directory + "/open.trace.journal")
      try! open.recorder.close()
      return (
        format,
        (
          bytes(of: directory + "/clear.trace"), bytes(of: directory + "/encrypted.trace"),
          clear.actions, unfinished, journal, open.actions
        )
      )
    })

  /// The fixture of trace format `format`.
  static func fixture(_ format: UInt16) -> Fixture {
    let fixture = fixtures[format]!
    #expect(fixture.encrypted[12] == format, "the fixture is not in format \(format)")
    return fixture
  }

  static func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(index, offsetBy: 2)
      bytes.append(UInt8(text[index..<next], radix: 16)!)
      index = next
    }
    return bytes
  }

  /// RFC 9180, Appendix A.2.1: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305,
  /// base mode, the suite traces are encrypted with. The recipient side (what reads a
  /// trace) opens the vectors' first two messages and exports their secrets.
  @Test func theSuiteMeetsRFC9180sTestVectors() throws {
    let privateKey = try Curve25519.KeyAgreement.PrivateKey(
      rawRepresentation: Self.hex(
        "8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb"))
    #expect(
      Array(privateKey.publicKey.rawRepresentation)
        == Self.hex("4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a"))
    var recipient = try HPKE.Recipient(
      privateKey: privateKey, ciphersuite: .Curve25519_SHA256_ChachaPoly,
      info: Data(Self.hex("4f6465206f6e2061204772656369616e2055726e")),
      encapsulatedKey: Data(
        Self.hex("1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a")))
    let plaintext = Self.hex("4265617574792069732074727574682c20747275746820626561757479")
    let first = try recipient.open(
      Self.hex(
        "1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db21993c62ce81883d2dd1b51a28"
      ),
      authenticating: Self.hex("436f756e742d30"))
    #expect(Array(first) == plaintext)
    let second = try recipient.open(
      Self.hex(
        "6b53c051e4199c518de79594e1c4ab18b96f081549d45ce015be002090bb119e85285337cc95ba5f59992dc98c"
      ),
      authenticating: Self.hex("436f756e742d31"))
    #expect(Array(second) == plaintext)
    let exports: [(context: String, value: String)] = [
      ("", "4bbd6243b8bb54cec311fac9df81841b6fd61f56538a775e7c80a9f40160606e"),
      ("00", "8c1df14732580e5501b00f82b10a1647b40713191b7c1240ac80e2b68808ba69"),
      (
        "54657374436f6e74657874", "5acb09211139c43b3090489a9da433e8a30ee7188ba8b0a9a1ccf0c229283e53"
      ),
    ]
    for export in exports {
      let secret = try recipient.exportSecret(
        context: Self.hex(export.context), outputByteCount: 32)
      #expect(secret.withUnsafeBytes { Array($0) } == Self.hex(export.value))
    }
  }

  @Test(arguments: traceFormats)
  func withItsKeyAnEncryptedTraceReadsAsTheSameSessionInClear(format: UInt16) throws {
    let (clear, encrypted, original, _, _, _) = Self.fixture(format)
    let reader = try TraceReader(bytes: encrypted, key: Self.key)
    #expect(reader.isEncrypted && reader.canReadRecords)
    #expect(reader.header.encryption?.keyID == Self.key.publicKey.id)
    #expect(reader.intactPart().integrity.status == .clean)
    #expect(try readActions(bankingDomain, reader) == original)
    let plain = try TraceSession(TraceReader(bytes: clear), domain: bankingDomain)
    let opened = try TraceSession(reader, domain: bankingDomain)
    for sequence: UInt64 in [0, 1, 399, 500, 800] {
      #expect(try opened.state(at: sequence) == plain.state(at: sequence))
    }
    // The same chunks, checkpoints and snapshots; each chunk 24 bytes larger.
    let clearReader = try TraceReader(bytes: clear)
    #expect(reader.chunks.count == clearReader.chunks.count)
    #expect(reader.checkpointCount == clearReader.checkpointCount)
    #expect(reader.snapshotSequences == clearReader.snapshotSequences)
  }

  @Test(arguments: traceFormats)
  func anEncryptedTraceHoldsNoPlaintextActionOrState(format: UInt16) throws {
    let (clear, encrypted, original, unfinished, journal, _) = Self.fixture(format)
    let strings =
      RedactionTests.personalStrings(of: original).union([
        "addTransaction", "addAccount", "accounts", "beneficiary",
      ])
    // The test can fail: the clear trace's records hold them.
    var clearContent: [UInt8] = []
    try TraceReader(bytes: clear).forEachChunk { records throws(TraceError) in
      for record in records { clearContent += Array(record.payload) }
      return true
    }
    #expect(strings.allSatisfy { RedactionTests.contains(clearContent, $0) })
    for (name, file) in [("trace", encrypted), ("unfinished", unfinished), ("journal", journal)] {
      for string in strings {
        #expect(!RedactionTests.contains(file, string), "\(string) in the \(name)")
      }
      // No zstd frame either: `zstd -dc` finds nothing to decompress.
      let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
      #expect(
        !file.indices.dropLast(3).contains { file[$0..<($0 + 4)].elementsEqual(magic) },
        "a zstd frame in the \(name)")
    }
    // Nor any form of the private key.
    let secret = Array(Self.key.key.rawRepresentation)
    #expect(
      !encrypted.indices.dropLast(31).contains { encrypted[$0..<($0 + 32)].elementsEqual(secret) })
  }

  @Test(arguments: traceFormats)
  func withoutTheKeyOnlyWhatTheTraceKeepsInClearIsRead(format: UInt16) throws {
    let (_, encrypted, original, unfinished, journal, _) = Self.fixture(format)
    let reader = try TraceReader(bytes: encrypted)
    #expect(reader.isEncrypted && !reader.canReadRecords)
    #expect(reader.header.domain == "banking" && reader.actionCount == original.count)
    // Its records, and the domain's view of them, need the key.
    #expect(throws: TraceError.self) { try reader.forEachRecord { _ in true } }
    do {
      _ = try TraceSession(reader, domain: bankingDomain)
      Issue.record("an encrypted trace was opened without its key")
    } catch {
      #expect(error.code == .encrypted)
      #expect(error.message.contains(Self.key.publicKey.id))
    }
    // Its integrity is not claimed beyond what was checked.
    #expect(reader.intactPart() === reader)
    // A crashed session's journal is not read without the key.
    let crashed = try TraceReader(bytes: unfinished, journal: journal)
    #expect(crashed.integrity.recoveredActions == 0)
  }

  @Test(arguments: traceFormats)
  func anotherKeyIsRefusedByNameNeverShown(format: UInt16) throws {
    let (_, encrypted, _, _, _, _) = Self.fixture(format)
    let other = TracePrivateKey.generate()
    do {
      _ = try TraceReader(bytes: encrypted, path: "bug.trace", key: other)
      Issue.record("the wrong key was accepted")
    } catch {
      #expect(error.code == .encrypted)
      #expect(
        error.description
          == "bug.trace: encrypted to key \(Self.key.publicKey.id), and the key given is \(other.publicKey.id)"
      )
      #expect(!error.description.contains(other.text.dropFirst(22).prefix(20)))
    }
    #expect("\(other)" == "TracePrivateKey(\(other.publicKey.id))")
  }

  @Test func keysRoundTripThroughTheirTextAndRefuseAnythingElse() throws {
    let key = TracePrivateKey.generate()
    let again = try TracePrivateKey(text: key.text + "\n")
    #expect(again.publicKey == key.publicKey)
    #expect(try TracePublicKey(text: key.publicKey.text) == key.publicKey)
    #expect(key.publicKey.id.count == 16)
    func refusal(_ body: () throws(TraceError) -> Void) -> String? {
      do throws(TraceError) {
        try body()
        return nil
      } catch {
        return error.message
      }
    }
    #expect(
      refusal { () throws(TraceError) in _ = try TracePrivateKey(text: key.publicKey.text) }
        == "a Retrace public key, where a private key is needed")
    #expect(
      refusal { () throws(TraceError) in _ = try TracePublicKey(text: key.text) }
        == "a Retrace private key, where a public key is needed")
    #expect(
      refusal { () throws(TraceError) in
        _ = try TracePrivateKey(text: "RETRACE-PRIVATE-KEY-1:c2hvcnQ=")
      }
        == "the private key is not 32 bytes of base64")
    #expect(refusal { () throws(TraceError) in _ = try TracePublicKey(text: "hello") } != nil)
  }

  @Test(arguments: traceFormats)
  func truncatingAnEncryptedTraceAtEveryOffsetGivesAnIntactPrefix(format: UInt16) {
    let (_, encrypted, original, _, _, _) = Self.fixture(format)
    let headerEnd = 8 + Int(encrypted[4]) + Int(encrypted[5]) << 8
    DamageTests().checkEveryTruncation(
      encrypted, original: original, headerEnd: headerEnd, key: Self.key)
  }

  @Test(arguments: traceFormats)
  func truncatingAnEncryptedJournalAtEveryOffsetKeepsAPrefix(format: UInt16) {
    let (_, _, _, unfinished, journal, original) = Self.fixture(format)
    let used = (journal.lastIndex { $0 != 0 } ?? 0) + 64
    let reader = try! TraceReader(bytes: unfinished, journal: journal, key: Self.key)
    // The journal holds the actions after the last chunk, and they are read.
    #expect(reader.integrity.recoveredActions > 0)
    #expect(reader.actionCount == original.count)
    DamageTests().checkEveryTruncation(
      unfinished, original: original, headerEnd: 0, journal: Array(journal.prefix(used)),
      key: Self.key)
  }

  /// A sealed journal's middle record changed: damage, naming the journal, as in the clear.
  @Test(arguments: traceFormats)
  func anEncryptedJournalDamagedInTheMiddleIsDamage(format: UInt16) throws {
    // Every action in the journal, sealed in batches of 50 (a flush ends a batch).
    let path = temporaryDirectory() + "/open.trace"
    var configuration = TraceRecorderConfiguration()
    configuration.formatVersion = format
    configuration.encryptionKey = Self.key.publicKey
    let recorder = try TraceRecorder(
      path: path, domain: bankingDomain, sessionID: "s", startTime: 1_763_771_000,
      configuration: configuration)
    var state = bankingDomain.initialState
    recorder.attached(sequence: 0, state: state)
    var random = SeededRandom(seed: 3)
    var original: [BankingAction] = []
    for step in 0..<200 {
      let action = bankingDomain.workload!.next(state, step, &random)
      _ = bankingDomain.reduce(into: &state, action: action)
      original.append(action)
      recorder.record(
        Transition(
          sequence: UInt64(step + 1), time: 1_763_771_000 + Double(step + 1), action: action,
          stateBefore: nil, stateAfter: state))
      if step % 50 == 49 { try recorder.flush() }
    }
    let unfinished = bytes(of: path)
    let journal = bytes(of: path + ".journal")
    try recorder.close()
    let records = DamageTests.recordOffsets(journal)
    #expect(records.count >= 3)
    let middle = records[records.count / 2]
    var flipped = journal
    for i in (middle + 10)..<(middle + 18) { flipped[i] ^= 0xFF }
    let reader = try TraceReader(bytes: unfinished, journal: flipped, key: Self.key)
    #expect(reader.integrity.status == .damaged, "\(reader.integrity)")
    #expect(reader.integrity.isInJournal)
    #expect(reader.integrity.damage?.offset == middle)
    let read = try #require(DamageTests().actions(unfinished, journal: flipped, key: Self.key))
    #expect(read.actions.count > 0 && read.actions.count < original.count)
    #expect(Array(original.prefix(read.actions.count)) == read.actions)
    // Without the key, the journal's records are not read: nothing is said of them.
    #expect(try TraceReader(bytes: unfinished, journal: flipped).integrity.status == .unfinished)
    // Its header is in clear, and is checked without the key: one tied to another trace is
    // damage. It was not looked at.
    var another = journal
    another[6] ^= 0x01
    another.setLittleEndian(CRC32C.checksum(Array(another[0..<28])), at: 28)
    let foreign = try TraceReader(bytes: unfinished, journal: another).integrity
    #expect(foreign.status == .damaged, "\(foreign)")
    #expect(foreign.damage?.offset == 6)
  }

  /// A flipped bit fails the chunk's CRC32C; a byte changed with the CRC32C made to match
  /// (someone who meant it) fails authentication. Either way the chunk is damage, and what
  /// is read is a prefix of the session.
  @Test(arguments: traceFormats)
  func aChangedByteIsDetectedNeverDecoded(format: UInt16) throws {
    let (_, encrypted, original, _, _, _) = Self.fixture(format)
    let damage = DamageTests()
    let chunks = try TraceReader(bytes: encrypted, key: Self.key).chunks
    var random = SeededRandom(seed: 7)
    for round in 0..<400 {
      var changed = encrypted
      let position = Int.random(in: 0..<changed.count, using: &random)
      changed[position] ^= 1 << UInt8.random(in: 0..<8, using: &random)
      var tampered = false
      // Every other round, inside a chunk's sealed frame, with its checksum fixed up.
      if round % 2 == 1,
        let chunk = chunks.first(where: {
          $0.frameOffset <= position && position < $0.offset + $0.byteCount
        })
      {
        let header = Array(changed[chunk.offset..<chunk.frameOffset])
        let frame = Array(changed[chunk.frameOffset..<(chunk.offset + chunk.byteCount)])
        var crc = CRC32C.checksum(Array(header[8..<48]))
        crc = header.withUnsafeBytes {
          CRC32C.update(crc, UnsafeRawBufferPointer(rebasing: $0[52..<56]))
        }
        crc = frame.withUnsafeBytes { CRC32C.update(crc, $0) }
        withUnsafeBytes(of: crc.littleEndian) {
          changed.replaceSubrange((chunk.offset + 48)..<(chunk.offset + 52), with: $0)
        }
        tampered = true
      }
      guard let opened = try? TraceReader(bytes: changed, key: Self.key) else { continue }
      // What every check finds intact (a changed chunk fails its checksum, or with the
      // checksum fixed up, its authentication), and its actions: a prefix of the session.
      let reader = opened.intactPart()
      let read = try readActions(bankingDomain, reader)
      #expect(Array(original.prefix(read.count)) == read, "changed byte at \(position)")
      if read.count < original.count {
        #expect(reader.integrity.status == .damaged || reader.integrity.status == .truncated)
        if tampered, reader.integrity.damage?.message.contains("checksum") == false {
          #expect(
            reader.integrity.damage?.message.contains("does not decrypt") == true,
            "\(reader.integrity.damage.map { "\($0)" } ?? "")")
        }
      }
      if !tampered, let result = damage.actions(changed, key: Self.key) {
        #expect(Array(original.prefix(result.actions.count)) == result.actions)
      }
    }
  }

  @Test(arguments: traceFormats)
  func aChunkMovedFromItsPlaceDoesNotDecrypt(format: UInt16) throws {
    let (_, encrypted, _, _, _, _) = Self.fixture(format)
    let reader = try TraceReader(bytes: encrypted, key: Self.key)
    // Chunk 2's sealed frame read as chunk 3's: the nonce and the header it authenticates
    // differ, so it fails, though each is intact.
    let second = reader.chunks[2]
    let header = Array(encrypted[(second.offset + 8)..<second.frameOffset])
    let sealed = Array(encrypted[second.frameOffset..<(second.offset + second.byteCount)])
    var cipher = try TraceCipher.opening(reader.header.encryption!, with: Self.key)
    cipher.headerDigest = Array(SHA256.hash(data: Array(encrypted[8..<reader.chunks[0].offset])))
    let opened = sealed.withUnsafeBytes { sealed in
      header.withUnsafeBytes { header in
        (
          cipher.openChunk(sealed, ordinal: 2, header: header),
          cipher.openChunk(sealed, ordinal: 3, header: header)
        )
      }
    }
    #expect(opened.0 != nil)
    #expect(opened.1 == nil)
  }
}
