import Foundation
import RetraceDebugger
import RetraceLog

/// What `verify --json` says of a file.
struct VerifyReport: VersionedReport {
  static let currentVersion = 1
  var version = Self.currentVersion
  var file: String
  var integrity: IntegrityJSON
  var unfinished: Bool
  var recoveredActions: Int
  /// Whether the file held no action to check: its framing was all there was.
  var nothingChecked: Bool
}

/// What `bisect --json` says: where an invariant first fails, and where it holds again.
struct BisectReport: VersionedReport {
  static let currentVersion = 1
  var version = Self.currentVersion
  var invariant: String
  var firstViolation: UInt64?
  /// The action after which the invariant first fails, as `JSONEncoder` writes it.
  var action: JSONFragment?
  var healedAt: UInt64?
  var actions: Int
  var nothingChecked: Bool
  var failsAtJump: Bool
  var healsAtJump: Bool
  var readWhole: Bool
  /// Left out when the session was read whole.
  var integrity: IntegrityJSON?
  var unfinished: Bool
  var recoveredActions: Int
  /// Whether today's replay reproduces every recorded hash it reaches: when not, the answer
  /// is about the replay, not about what the recorded session did; `nil` when no recorded
  /// hash was compared (JSON Lines hold none).
  var reproduced: Bool?
  /// The sequence number of the first recorded hash the replay does not match.
  var divergedAt: UInt64?

  private enum CodingKeys: String, CodingKey {
    case version, invariant, firstViolation, action, healedAt, actions, nothingChecked
    case failsAtJump, healsAtJump, readWhole, integrity, unfinished, recoveredActions
    case reproduced, divergedAt
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(version, forKey: .version)
    try container.encode(invariant, forKey: .invariant)
    try container.encode(firstViolation, forKey: .firstViolation)
    try container.encode(action, forKey: .action)
    try container.encode(healedAt, forKey: .healedAt)
    try container.encode(actions, forKey: .actions)
    try container.encode(nothingChecked, forKey: .nothingChecked)
    try container.encode(failsAtJump, forKey: .failsAtJump)
    try container.encode(healsAtJump, forKey: .healsAtJump)
    try container.encode(readWhole, forKey: .readWhole)
    try container.encodeIfPresent(integrity, forKey: .integrity)
    try container.encode(unfinished, forKey: .unfinished)
    try container.encode(recoveredActions, forKey: .recoveredActions)
    try container.encode(reproduced, forKey: .reproduced)
    try container.encode(divergedAt, forKey: .divergedAt)
  }
}

/// What `diff TRACE --from N --to M --json` says: the change of the state between two points.
struct PointsDiffReport: VersionedReport {
  static let currentVersion = 1
  var version = Self.currentVersion
  var from: UInt64
  var to: UInt64
  var changed: Bool
  var diff: String?
  /// The changes from the state at `from` to the state at `to`, as the Studio marks them:
  /// `path` (keys and indexes into the state's JSON), `kind` (`changed`, `added`, `removed`,
  /// `moved`), and `old`, `from`, `id` where they apply.
  var changes: [JSONFragment]
  /// Whether ``changes`` holds every change: not when there were more than 100,000, or when
  /// a long array's items between its first and last 50 could not be compared (`diff`, the
  /// text, is whole all the same).
  var changesComplete: Bool
  /// The actions after which a time-travel jump set the state in the range.
  var jumpsAfter: [UInt64]
  var unfinished: Bool
  var recoveredActions: Int

  private enum CodingKeys: String, CodingKey {
    case version, from, to, changed, diff, changes, changesComplete, jumpsAfter, unfinished
    case recoveredActions
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(version, forKey: .version)
    try container.encode(from, forKey: .from)
    try container.encode(to, forKey: .to)
    try container.encode(changed, forKey: .changed)
    try container.encode(diff, forKey: .diff)
    try container.encode(changes, forKey: .changes)
    try container.encode(changesComplete, forKey: .changesComplete)
    try container.encode(jumpsAfter, forKey: .jumpsAfter)
    try container.encode(unfinished, forKey: .unfinished)
    try container.encode(recoveredActions, forKey: .recoveredActions)
  }
}

/// What `diff A B --json` says: where two traces first differ.
struct TracesDiffReport: VersionedReport {
  static let currentVersion = 1
  var version = Self.currentVersion
  var firstDifference: UInt64?
  /// `initialState`, `action`, `onlyInFirst`, `onlyInSecond` or `jump`.
  var reason: String?
  /// The sequence numbers the first and the second trace's compared states are after:
  /// both `firstDifference`, except for traces that start at different points.
  var statesAfter: [UInt64]?
  /// The sequence numbers the two traces start after.
  var starts: [UInt64]
  /// The first trace's action there, as `JSONEncoder` writes it.
  var first: JSONFragment?
  /// The second trace's action there.
  var second: JSONFragment?
  var stateDiff: String?
  /// Every change from the first trace's state there to the second's, as in
  /// ``PointsDiffReport/changes``; empty when they are equal or the traces identical.
  var changes: [JSONFragment]
  /// Whether ``changes`` holds every change, as ``PointsDiffReport/changesComplete``.
  var changesComplete: Bool
  var unfinished: Bool
  var unfinishedTraces: [UnfinishedTrace]

  /// A trace of the two whose session never closed.
  struct UnfinishedTrace: Codable, Sendable, Equatable {
    var file: String
    var recoveredActions: Int
  }
  /// Whether both traces were read to their ends; when not, the actions after the damage
  /// were not compared, and no difference found is no answer.
  var readWhole: Bool
  /// Each trace of the two that could not be read whole, with what was wrong.
  var damagedTraces: [DamagedTrace]

  /// A trace of the two that could not be read whole.
  struct DamagedTrace: Codable, Sendable, Equatable {
    var file: String
    var integrity: IntegrityJSON
  }

  private enum CodingKeys: String, CodingKey {
    case version, firstDifference, reason, statesAfter, starts, first, second, stateDiff, changes
    case changesComplete, unfinished
    case unfinishedTraces, readWhole, damagedTraces
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(version, forKey: .version)
    try container.encode(firstDifference, forKey: .firstDifference)
    try container.encode(reason, forKey: .reason)
    try container.encode(statesAfter, forKey: .statesAfter)
    try container.encode(starts, forKey: .starts)
    try container.encode(first, forKey: .first)
    try container.encode(second, forKey: .second)
    try container.encode(stateDiff, forKey: .stateDiff)
    try container.encode(changes, forKey: .changes)
    try container.encode(changesComplete, forKey: .changesComplete)
    try container.encode(unfinished, forKey: .unfinished)
    try container.encode(unfinishedTraces, forKey: .unfinishedTraces)
    try container.encode(readWhole, forKey: .readWhole)
    try container.encode(damagedTraces, forKey: .damagedTraces)
  }
}

/// What `domains --json` lists: the registered domains.
struct DomainsReport: VersionedReport {
  static let currentVersion = 1
  var version = Self.currentVersion
  var domains: [RegisteredDomain]

  /// One registered domain.
  struct RegisteredDomain: Codable, Sendable, Equatable {
    var name: String
    var summary: String
    var actionSchemaVersion: Int
    var actionCases: [String]
    var invariants: [Invariant]
    /// The domain's named predicates, for `check --reach` (absent in reports written before
    /// `check` existed).
    var predicates: [Invariant]?
    /// Whether the domain declares exploration actions, so that `check` can search it.
    var explorable: Bool?
  }

  /// One of a domain's invariants.
  struct Invariant: Codable, Sendable, Equatable {
    var name: String
    var summary: String
  }
}

/// What `report list --json` says of a bug report.
struct ReportListReport: VersionedReport {
  static let currentVersion = 1
  var version = Self.currentVersion
  var file: String
  var createdAt: Double
  var app: [String: String]
  /// `nil` when there is none or it cannot be opened with the key given.
  var note: String?
  var noteKeyID: String?
  var complete: Bool
  var entries: [Entry]
  var omitted: [Omitted]

  /// One session the report holds.
  struct Entry: Codable, Sendable, Equatable {
    var number: Int
    /// `REPORT#N`, which commands read the session by.
    var reference: String
    var name: String
    var sessionID: String
    var domain: String
    var keyID: String?
    /// `nil` when the trace cannot be read (encrypted to another key, damaged).
    var actions: Int?
    var traceBytes: Int
    var journalBytes: Int

    private enum CodingKeys: String, CodingKey {
      case number, reference, name, sessionID, domain, keyID, actions, traceBytes, journalBytes
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(number, forKey: .number)
      try container.encode(reference, forKey: .reference)
      try container.encode(name, forKey: .name)
      try container.encode(sessionID, forKey: .sessionID)
      try container.encode(domain, forKey: .domain)
      try container.encode(keyID, forKey: .keyID)
      try container.encode(actions, forKey: .actions)
      try container.encode(traceBytes, forKey: .traceBytes)
      try container.encode(journalBytes, forKey: .journalBytes)
    }
  }

  /// A session left out of the report, and why.
  struct Omitted: Codable, Sendable, Equatable {
    var name: String
    var reason: String
  }

  private enum CodingKeys: String, CodingKey {
    case version, file, createdAt, app, note, noteKeyID, complete, entries, omitted
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(version, forKey: .version)
    try container.encode(file, forKey: .file)
    try container.encodeFinite(createdAt, forKey: .createdAt)
    try container.encode(app, forKey: .app)
    try container.encode(note, forKey: .note)
    try container.encode(noteKeyID, forKey: .noteKeyID)
    try container.encode(complete, forKey: .complete)
    try container.encode(entries, forKey: .entries)
    try container.encode(omitted, forKey: .omitted)
  }
}

/// What `upgrade --json` says: the trace rewritten, and how.
struct UpgradeReport: VersionedReport {
  static let currentVersion = 1
  var version = Self.currentVersion
  /// The trace read.
  var file: String
  /// The trace written.
  var output: String
  var fromFormat: Int
  var toFormat: Int
  /// Whether the trace was already closed and in that format, and was copied byte for byte.
  var copied: Bool
  var chunks: Int
  var actions: Int
  var encrypted: Bool
  /// Whether the trace is unfinished: written without an index, its journal's actions as its
  /// last chunk, and an empty journal beside it.
  var unfinished: Bool
  var recoveredActions: Int
  var bytesBefore: Int
  var bytesAfter: Int
  /// False for an encrypted trace copied without its key: its chunks were not checked.
  var contentsChecked: Bool

  init(file: String, output: String, _ summary: TraceTranscoder.Summary) {
    self.file = file
    self.output = output
    fromFormat = Int(summary.fromVersion)
    toFormat = Int(summary.toVersion)
    copied = summary.copied
    chunks = summary.chunks
    actions = summary.actions
    encrypted = summary.encrypted
    unfinished = summary.unfinished
    recoveredActions = summary.recoveredActions
    bytesBefore = summary.bytesBefore
    bytesAfter = summary.bytesAfter
    contentsChecked = summary.contentsChecked
  }
}
