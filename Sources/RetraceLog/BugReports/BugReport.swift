import Crypto
import Foundation
import Retrace

/// A bug report: the last sessions of a ``SessionDirectory``, the app's facts and the user's
/// note, in one file that the app sends with its own transport.
///
/// The traces go in as they were recorded, so they are redacted and encrypted as the
/// recorder was configured. With ``Options/encryptTo``, a trace not encrypted to that key is
/// left out (and listed as left out), and the note is encrypted to it too: a report made for
/// a key never holds a byte of a session in clear. Sessions go in newest first while they fit
/// in ``Options/maxBytes``; `retrace report list` and `extract` read the file, and every
/// command reads a trace inside it as `REPORT#N` (N from 1, the newest).
///
/// ```swift
/// let report = try sessions.makeReport(
///   BugReport.Options(lastSessions: 3, note: userNote, app: ["version": "2.4.1"],
///                     maxBytes: 5 << 20, encryptTo: developersKey))
/// try await uploader.send(report)   // the app's BugReportTransport
/// ```
///
/// Call ``TraceRecorder/flush(isolation:)`` on the live session's recorder first: the report
/// then holds it up to now (its journal goes in with it).
public struct BugReport: Sendable {
  /// What goes into a report.
  public struct Options: Sendable {
    /// How many sessions, the newest first (the live one included).
    public var lastSessions: Int
    /// What the user wrote about the problem.
    public var note: String?
    /// Facts about the app and the device (name, version, build, OS).
    public var app: [String: String]
    /// The most bytes the report may take; sessions that do not fit are left out.
    public var maxBytes: Int
    /// The developers' public key: only traces encrypted to it go in, and the note is
    /// encrypted to it. `nil` takes the traces as they are and the note in clear.
    public var encryptTo: TracePublicKey?

    /// Creates the options.
    public init(
      lastSessions: Int = 1, note: String? = nil, app: [String: String] = [:],
      maxBytes: Int = 10 << 20, encryptTo: TracePublicKey? = nil
    ) {
      self.lastSessions = lastSessions
      self.note = note
      self.app = app
      self.maxBytes = maxBytes
      self.encryptTo = encryptTo
    }
  }

  /// A session in the report.
  public struct Entry: Codable, Sendable, Equatable {
    /// The trace's file name in the session directory.
    public var name: String
    /// The session's identifier.
    public var sessionID: String
    /// The session's domain.
    public var domain: String
    /// The key the trace is encrypted to (its ``TracePublicKey/id``), or `nil` in clear.
    public var keyID: String?
    /// The trace's bytes in the report.
    public var traceBytes: Int
    /// The bytes of its journal (an unfinished session's last actions), 0 for none.
    public var journalBytes: Int
  }

  /// A session left out, and why.
  public struct Omission: Codable, Sendable, Equatable {
    /// The trace's file name in the session directory.
    public var name: String
    /// Why: over the size budget, not encrypted to the report's key, unreadable.
    public var reason: String
  }

  /// The note, encrypted with HPKE (single shot) to the report's key.
  struct SealedNote: Codable, Equatable {
    var keyID: String
    var encapsulatedKey: Data
    var ciphertext: Data
  }

  /// The report's table of contents: the report frame's CBOR map.
  struct Manifest: Codable, Equatable {
    var createdAt: Double
    var producer: String
    var app: [String: String]
    var note: String?
    var sealedNote: SealedNote?
    var entries: [Entry]
    var omitted: [Omission]
  }

  /// The report file's bytes: what to send.
  public let bytes: [UInt8]
  let manifest: Manifest
  /// Where each entry's bytes start, and after them where the last one ends.
  private let offsets: [Int]

  /// When the report was made, in seconds since 1970.
  public var createdAt: Double { manifest.createdAt }
  /// The app's facts.
  public var app: [String: String] { manifest.app }
  /// The sessions in the report, the newest first.
  public var entries: [Entry] { manifest.entries }
  /// The sessions left out.
  public var omitted: [Omission] { manifest.omitted }
  /// The key the note is encrypted to, when it is.
  public var noteKeyID: String? { manifest.sealedNote?.keyID }

  /// "RTRP": the first four bytes of the report frame's content.
  static let tag: UInt32 = 0x5052_5452
  /// The skippable-frame magic of the report frame.
  static let magic: UInt32 = 0x184D_2A53
  static let noteInfo = Data("retrace report note 1".utf8)

  /// Reads a report file's bytes.
  ///
  /// - Throws: ``TraceError`` (`notATrace`, `corrupted`, `truncated`) when the bytes are not
  ///   an intact report frame.
  public init(bytes: [UInt8], path: String = "<memory>") throws(TraceError) {
    func fail(_ code: TraceError.Code, _ message: String, _ offset: Int) -> TraceError {
      TraceError(code, message, path: path, offset: offset)
    }
    guard bytes.count >= 8,
      bytes.withUnsafeBytes({ $0.readLittleEndian(UInt32.self, at: 0) }) == Self.magic
    else { throw fail(.notATrace, "not a Retrace bug report", 0) }
    let size = Int(bytes.withUnsafeBytes { $0.readLittleEndian(UInt32.self, at: 4) })
    guard size >= 16, size <= TraceFormat.maxHeaderSize else {
      throw fail(.corrupted, "report frame size \(size) is impossible", 4)
    }
    guard bytes.count - 8 >= size else {
      throw fail(
        .truncated, "the report frame needs \(size) bytes, the file has \(bytes.count - 8)", 8)
    }
    let content = Array(bytes[8..<(8 + size)])
    let valid = content.withUnsafeBytes { content in
      content.readLittleEndian(UInt32.self, at: 0) == Self.tag
        && CRC32C.checksum(UnsafeRawBufferPointer(rebasing: content[0..<(size - 4)]))
          == content.readLittleEndian(UInt32.self, at: size - 4)
    }
    guard valid else { throw fail(.corrupted, "report frame checksum mismatch", 8) }
    let version = content.withUnsafeBytes { $0.readLittleEndian(UInt16.self, at: 4) }
    guard version == 1 else {
      throw fail(
        .unsupportedVersion, "report version \(version) is not supported (this reader knows 1)", 12)
    }
    let length = Int(content.withUnsafeBytes { $0.readLittleEndian(UInt32.self, at: 8) })
    guard length == size - 16 else {
      throw fail(.corrupted, "report manifest length \(length) does not fit its frame", 16)
    }
    do {
      manifest = try CBORDecoder().decode(Manifest.self, from: Array(content[12..<(12 + length)]))
    } catch {
      throw fail(.corrupted, "report manifest: \(error)", 20)
    }
    // Sizes a file can have: their sums cannot overflow however many entries there are.
    let possible = 0...(1 << 40)
    guard
      manifest.entries.allSatisfy({
        possible.contains($0.traceBytes) && possible.contains($0.journalBytes)
      })
    else { throw fail(.corrupted, "report manifest: an entry's size is impossible", 20) }
    self.bytes = bytes
    var offsets = [8 + size]
    for entry in manifest.entries {
      offsets.append(offsets.last! + entry.traceBytes + entry.journalBytes)
    }
    self.offsets = offsets
  }

  /// A report of `manifest` and the files it lists, in order.
  init(manifest: Manifest, files: [[UInt8]]) throws(TraceError) {
    var bytes = try Self.frame(manifest)
    for file in files { bytes.append(contentsOf: file) }
    try self.init(bytes: bytes)
  }

  /// The report frame of `manifest`.
  static func frame(_ manifest: Manifest) throws(TraceError) -> [UInt8] {
    var cbor: [UInt8] = []
    do { try CBOREncoder(deterministic: true).encode(manifest, appendingTo: &cbor) } catch {
      throw TraceError(.io, "cannot encode the report manifest: \(error)")
    }
    var content: [UInt8] = []
    content.appendLittleEndian(Self.tag)
    content.appendLittleEndian(UInt16(1))
    content.appendLittleEndian(UInt16(0))
    content.appendLittleEndian(UInt32(cbor.count))
    content.append(contentsOf: cbor)
    content.appendLittleEndian(CRC32C.checksum(content))
    guard content.count <= TraceFormat.maxHeaderSize else {
      throw TraceError(
        .tooLarge,
        "the report's manifest takes \(content.count) bytes, more than the \(TraceFormat.maxHeaderSize) a reader accepts (a note, app facts or session IDs too long)"
      )
    }
    var bytes: [UInt8] = []
    bytes.appendLittleEndian(Self.magic)
    bytes.appendLittleEndian(UInt32(content.count))
    bytes.append(contentsOf: content)
    return bytes
  }

  /// The trace of entry `index` (0 for the first, the newest) and its journal, as they are
  /// in the report; bytes the file lacks (a report cut short) are missing from them, which
  /// the trace reader reports as a truncation.
  public func trace(at index: Int) -> (trace: [UInt8], journal: [UInt8]?) {
    let start = offsets[index]
    let entry = entries[index]
    func slice(_ from: Int, _ count: Int) -> [UInt8] {
      let from = min(from, bytes.count)
      return Array(bytes[from..<min(bytes.count, from + count)])
    }
    let journalStart = start + entry.traceBytes
    return (
      slice(start, entry.traceBytes),
      entry.journalBytes > 0 ? slice(journalStart, entry.journalBytes) : nil
    )
  }

  /// Whether the file holds every byte the manifest lists.
  public var isComplete: Bool {
    bytes.count == offsets.last!
  }

  /// The user's note: in clear, or opened with `key` when it was encrypted.
  ///
  /// - Returns: `nil` when the report has no note, or it is encrypted and `key` is `nil`.
  /// - Throws: ``TraceError`` (`encrypted`) when `key` is not the note's, or (`corrupted`)
  ///   when the note does not decrypt.
  public func note(key: TracePrivateKey?) throws(TraceError) -> String? {
    if let note = manifest.note { return note }
    guard let sealed = manifest.sealedNote, let key else { return nil }
    guard sealed.keyID == key.publicKey.id else {
      throw TraceError(
        .encrypted,
        "the note is encrypted to key \(sealed.keyID), and the key given is \(key.publicKey.id)")
    }
    guard
      var recipient = try? HPKE.Recipient(
        privateKey: key.key, ciphersuite: .Curve25519_SHA256_ChachaPoly, info: Self.noteInfo,
        encapsulatedKey: sealed.encapsulatedKey),
      let text = try? recipient.open(sealed.ciphertext),
      let note = String(data: text, encoding: .utf8)
    else { throw TraceError(.corrupted, "the report's note does not decrypt") }
    return note
  }
}

/// How an app sends a bug report: its own network code (Retrace holds none).
///
/// ```swift
/// struct Uploader: BugReportTransport {
///   func send(_ report: BugReport) async throws {
///     var request = URLRequest(url: URL(string: "https://example.com/reports")!)
///     request.httpMethod = "POST"
///     _ = try await URLSession.shared.upload(for: request, from: Data(report.bytes))
///   }
/// }
/// ```
public protocol BugReportTransport: Sendable {
  /// Sends the report; throws when it could not.
  func send(_ report: BugReport) async throws
}

extension SessionDirectory {
  /// Makes a bug report of the directory's last sessions (see ``BugReport``).
  ///
  /// - Parameter options: What goes in.
  /// - Throws: ``TraceError`` when the directory cannot be read, the note not encrypted, or
  ///   the note and app facts alone take more than ``BugReport/Options/maxBytes`` (or 1 MiB).
  public func makeReport(_ options: BugReport.Options) throws(TraceError) -> BugReport {
    var entries: [BugReport.Entry] = []
    var omitted: [BugReport.Omission] = []
    var files: [[UInt8]] = []
    var manifest = BugReport.Manifest(
      createdAt: StoreClock.system.now(0), producer: "Retrace \(RetraceVersion.string)",
      app: options.app, note: nil, sealedNote: nil, entries: [], omitted: [])
    if let note = options.note {
      if let key = options.encryptTo {
        manifest.sealedNote = try Self.seal(note, to: key)
      } else {
        manifest.note = note
      }
    }
    // The report frame without sessions, and a generous share of it per entry or omission.
    let base = try BugReport.frame(manifest).count
    let perEntry = 512
    guard base + perEntry <= min(options.maxBytes, TraceFormat.maxHeaderSize) else {
      throw TraceError(
        .tooLarge,
        "the note and app facts take \(base) bytes, more than the report may (\(min(options.maxBytes, TraceFormat.maxHeaderSize)) bytes)",
        path: path)
    }
    var total = base
    for session in try sessions().reversed().prefix(max(options.lastSessions, 0)) {
      let name = String(session.path.split(separator: "/").last ?? "")
      total += perEntry
      // The journal first, then the trace: a chunk written in between is then in the trace,
      // and the journal's records before it are skipped as already there.
      let journal = (try? readFile(session.path + ".journal")).map(Self.usedJournal) ?? []
      guard let trace = try? readFile(session.path),
        let reader = try? TraceReader(bytes: trace, journal: nil, path: name)
      else {
        omitted.append(.init(name: name, reason: "unreadable"))
        continue
      }
      let keyID = reader.header.encryption?.keyID
      if let key = options.encryptTo, keyID != key.id {
        omitted.append(
          .init(
            name: name,
            reason: keyID == nil
              ? "recorded in clear, and the report is for key \(key.id)"
              : "encrypted to key \(keyID!), and the report is for key \(key.id)"))
        continue
      }
      guard total + trace.count + journal.count <= options.maxBytes else {
        omitted.append(
          .init(name: name, reason: "\(trace.count + journal.count) bytes, over the size budget"))
        continue
      }
      total += trace.count + journal.count
      entries.append(
        .init(
          name: name, sessionID: reader.header.sessionID, domain: reader.header.domain,
          keyID: keyID, traceBytes: trace.count, journalBytes: journal.count))
      files.append(trace + journal)
    }
    manifest.entries = entries
    manifest.omitted = omitted
    var report = try BugReport(manifest: manifest, files: files)
    // The share per entry is an estimate (a session ID may be long): the budget is the file's.
    while report.bytes.count > options.maxBytes, let last = manifest.entries.popLast() {
      files.removeLast()
      manifest.omitted.append(.init(name: last.name, reason: "over the size budget"))
      report = try BugReport(manifest: manifest, files: files)
    }
    return report
  }

  /// `note` sealed with HPKE (single shot) to `key`.
  private static func seal(_ note: String, to key: TracePublicKey) throws(TraceError)
    -> BugReport.SealedNote
  {
    do {
      var sender = try HPKE.Sender(
        recipientKey: key.agreementKey, ciphersuite: .Curve25519_SHA256_ChachaPoly,
        info: BugReport.noteInfo)
      let ciphertext = try sender.seal(Data(note.utf8))
      return .init(keyID: key.id, encapsulatedKey: sender.encapsulatedKey, ciphertext: ciphertext)
    } catch {
      throw TraceError(.io, "cannot encrypt the note: \(error)")
    }
  }

  /// Makes a bug report (``makeReport(_:)``) and sends it with `transport`.
  ///
  /// - Returns: The report sent.
  @discardableResult
  public func sendReport(_ options: BugReport.Options, via transport: some BugReportTransport)
    async throws -> BugReport
  {
    let report = try makeReport(options)
    try await transport.send(report)
    return report
  }

  /// A journal's bytes up to the end of its last record (it is a fixed-size mapped file,
  /// zeros after that), and the empty record that marks the end.
  static func usedJournal(_ journal: [UInt8]) -> [UInt8] {
    let h = TraceFormat.journalHeaderSize
    guard journal.count >= h else { return [] }
    var offset = h
    journal.withUnsafeBytes { bytes in
      while bytes.count - offset >= 8 {
        let length = Int(bytes.readLittleEndian(UInt32.self, at: offset))
        guard length > 0, bytes.count - offset - 8 >= length else { break }
        offset += 8 + length
      }
    }
    return Array(journal[..<min(journal.count, offset + 8)])
  }
}
