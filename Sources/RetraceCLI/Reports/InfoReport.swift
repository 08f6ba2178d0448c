import Foundation
import RetraceDebugger
import RetraceLog

/// What `info --json` says of a file: its header's facts, its contents counted, its size and
/// its integrity.
struct InfoReport: VersionedReport {
  static let currentVersion = 1
  var version = Self.currentVersion
  var file: String
  /// `trace` or `jsonl`.
  var format: String
  /// A trace's format version (1 or 2); `null` for JSON Lines.
  var formatVersion: Int?
  var domain: String
  var actionSchemaVersion: Int
  var producer: String
  var sessionID: String
  var startTime: Double
  var duration: Double
  /// The actions the file holds, those recovered from its journal included; `nil` when
  /// the journal of an unfinished encrypted trace was not read (no key), so that its count
  /// is not known.
  var actions: Int?
  var firstSequence: UInt64
  var lastSequence: UInt64
  /// How many actions of each case the file holds.
  var actionCases: ActionCaseCounts
  /// A trace's chunks; `nil` for JSON Lines.
  var blocks: Int?
  var snapshots: Int
  var checkpoints: Int
  /// The time-travel jumps; left out when there are none.
  var jumps: Int?
  var bytes: Int
  /// Bytes per action the file itself holds, to two decimals.
  var bytesPerAction: Double?
  var journalBytes: Int?
  var encryption: Encryption?
  var integrity: IntegrityJSON
  var app: [String: String]
  var redaction: String?
  var unfinished: Bool
  /// `nil` when the journal was not read, as for ``actions``.
  var recoveredActions: Int?

  /// How a trace is encrypted; for JSON Lines exported from an encrypted trace, only the
  /// key's ID (the suite is `null`, and `opened` true: the file is in clear).
  struct Encryption: Codable, Sendable, Equatable {
    var keyID: String
    var kem: Int?
    var kdf: Int?
    var aead: Int?
    /// Whether the trace was read with its private key.
    var opened: Bool

    private enum CodingKeys: String, CodingKey {
      case keyID, kem, kdf, aead, opened
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(keyID, forKey: .keyID)
      try container.encode(kem, forKey: .kem)
      try container.encode(kdf, forKey: .kdf)
      try container.encode(aead, forKey: .aead)
      try container.encode(opened, forKey: .opened)
    }
  }

  private enum CodingKeys: String, CodingKey {
    case version, file, format, formatVersion, domain, actionSchemaVersion, producer, sessionID,
      startTime
    case duration, actions, firstSequence, lastSequence, actionCases, blocks, snapshots
    case checkpoints, jumps, bytes, bytesPerAction, journalBytes, encryption, integrity, app
    case redaction, unfinished, recoveredActions
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(version, forKey: .version)
    try container.encode(file, forKey: .file)
    try container.encode(format, forKey: .format)
    try container.encode(formatVersion, forKey: .formatVersion)
    try container.encode(domain, forKey: .domain)
    try container.encode(actionSchemaVersion, forKey: .actionSchemaVersion)
    try container.encode(producer, forKey: .producer)
    try container.encode(sessionID, forKey: .sessionID)
    try container.encodeFinite(startTime, forKey: .startTime)
    try container.encodeFinite(duration, forKey: .duration)
    try container.encode(actions, forKey: .actions)
    try container.encode(firstSequence, forKey: .firstSequence)
    try container.encode(lastSequence, forKey: .lastSequence)
    try container.encode(actionCases, forKey: .actionCases)
    try container.encode(blocks, forKey: .blocks)
    try container.encode(snapshots, forKey: .snapshots)
    try container.encode(checkpoints, forKey: .checkpoints)
    try container.encodeIfPresent(jumps, forKey: .jumps)
    try container.encode(bytes, forKey: .bytes)
    try container.encodeFinite(bytesPerAction, forKey: .bytesPerAction)
    try container.encode(journalBytes, forKey: .journalBytes)
    try container.encode(encryption, forKey: .encryption)
    try container.encode(integrity, forKey: .integrity)
    try container.encode(app, forKey: .app)
    try container.encode(redaction, forKey: .redaction)
    try container.encode(unfinished, forKey: .unfinished)
    try container.encode(recoveredActions, forKey: .recoveredActions)
  }
}

/// How many actions of each case a file holds, in the domain's order of its cases (the rest
/// as they first appear): a JSON object whose keys keep that order in `info --json`
/// (``InfoReport/text()``), which scripts read the cases in.
struct ActionCaseCounts: Codable, Sendable, Equatable {
  var counts: [(name: String, count: Int)]

  init(_ counts: [(name: String, count: Int)]) {
    self.counts = counts
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: ReportKey.self)
    // JSON objects are unordered to a decoder: by name.
    counts = try container.allKeys.sorted { $0.stringValue < $1.stringValue }.map {
      ($0.stringValue, try container.decode(Int.self, forKey: $0))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: ReportKey.self)
    for (name, count) in counts { try container.encode(count, forKey: ReportKey(name)) }
  }

  static func == (lhs: ActionCaseCounts, rhs: ActionCaseCounts) -> Bool {
    lhs.counts.map(\.name) == rhs.counts.map(\.name)
      && lhs.counts.map(\.count) == rhs.counts.map(\.count)
  }

  /// The object with its keys in ``counts``' order, as one line of JSON.
  func orderedText() throws -> String {
    "{"
      + (try counts.map { try ReportJSON.text($0.name) + ":" + String($0.count) }
        .joined(separator: ","))
      + "}"
  }
}

extension InfoReport {
  /// The report as `info --json` prints it: as ``ReportJSON`` writes it, but with
  /// `actionCases` in the domain's order of its cases rather than sorted, as it always was.
  func text() throws -> String {
    let text = try ReportJSON.text(self)
    // The encoder sorts every object's keys. `"actionCases":` is found once: a string value
    // that holds it has its quotes escaped.
    let sorted = "\"actionCases\":" + (try ReportJSON.text(actionCases))
    return text.replacingOccurrences(
      of: sorted, with: "\"actionCases\":" + (try actionCases.orderedText()))
  }

  /// The report of `summary`, the file at `path` (as it was given) described.
  ///
  /// - Parameters:
  ///   - unfinished: Whether the session never closed, and what its journal gave.
  ///   - unreadable: What the integrity's `problem` says of an encrypted trace read without
  ///     its key.
  init(
    path: String, summary: SessionFile.Summary, unfinished: SessionFile.Unfinished?,
    bytesPerAction: Double?, unreadable: String
  ) {
    let info = summary.info
    // An unfinished encrypted trace read without its key: its journal's sealed records
    // were not read, so how many actions it holds is not known.
    let journalUnread = unfinished != nil && !summary.contentsRead
    // Without the key, only the framing and the checksums were checked: never "clean".
    let integrity =
      summary.contentsRead
      ? IntegrityJSON(summary.integrity)
      : .encrypted(intactActions: summary.integrity.intactActions, problem: unreadable)
    let encryption =
      summary.encryption.map {
        Encryption(
          keyID: $0.keyID, kem: Int($0.kem), kdf: Int($0.kdf), aead: Int($0.aead),
          opened: summary.contentsRead)
      }
      ?? info.encryptionKeyID.map {
        Encryption(keyID: $0, kem: nil, kdf: nil, aead: nil, opened: true)
      }
    self.init(
      file: path, format: summary.format, formatVersion: summary.formatVersion,
      domain: info.domain,
      actionSchemaVersion: Int(info.actionSchemaVersion), producer: info.producer,
      sessionID: info.sessionID, startTime: info.startTime, duration: summary.duration,
      actions: journalUnread ? nil : summary.actionCount, firstSequence: summary.firstSequence,
      lastSequence: summary.lastSequence,
      actionCases: ActionCaseCounts(summary.caseCounts),
      blocks: summary.blocks, snapshots: summary.snapshots, checkpoints: summary.checkpoints,
      // Only for a trace with jumps, so that every other answer stays as it was.
      jumps: summary.jumps > 0 ? summary.jumps : nil, bytes: summary.bytes,
      bytesPerAction: bytesPerAction.map { ($0 * 100).rounded() / 100 },
      journalBytes: summary.journalBytes, encryption: encryption, integrity: integrity,
      app: info.app, redaction: info.app["redaction"], unfinished: unfinished != nil,
      recoveredActions: journalUnread ? nil : unfinished?.recoveredActions ?? 0)
  }
}
