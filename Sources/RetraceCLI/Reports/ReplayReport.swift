import Foundation
import RetraceDebugger
import RetraceLog

/// What `replay --json` says of one trace, alone or as one of the `traces` of several; what
/// `merge-results` reads back and passes on.
struct ReplayReport: VersionedReport {
  static let currentVersion = 1
  var version = Self.currentVersion
  var file: String
  /// `replayed`, `verified`, `diverged`, `unverified`, `damaged`, or `error`. A string, so
  /// that `merge-results` can name one that no `replay` writes.
  var status: String
  /// Why the trace could not be read, for `error`; no other key is written then.
  var error: String?
  /// What replaying the trace found; `nil` for `error`.
  var details: Details?

  /// The keys of a trace that was replayed, written beside `file` and `status`.
  struct Details: Codable, Sendable, Equatable {
    var domain: String
    var actions: Int
    var replayedTo: UInt64
    var seconds: Double
    var checkpoints: Int
    var snapshots: Int
    var hashes: Int
    /// The time-travel jumps followed; left out when there were none.
    var jumps: Int?
    var coveredThrough: UInt64?
    var uncoveredActions: Int
    var integrity: IntegrityJSON?
    var unfinished: Bool
    var recoveredActions: Int
    var nothingChecked: Bool
    var stateHash: String?
    var divergence: Divergence?
    /// The domain every state was compared with side by side, when all were equal.
    var sideBySide: String?
    var lockstep: Lockstep?

    private enum CodingKeys: String, CodingKey {
      case domain, actions, replayedTo, seconds, checkpoints, snapshots, hashes, jumps
      case coveredThrough, uncoveredActions, integrity, unfinished, recoveredActions
      case nothingChecked, stateHash, divergence, sideBySide, lockstep
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(domain, forKey: .domain)
      try container.encode(actions, forKey: .actions)
      try container.encode(replayedTo, forKey: .replayedTo)
      try container.encodeFinite(seconds, forKey: .seconds)
      try container.encode(checkpoints, forKey: .checkpoints)
      try container.encode(snapshots, forKey: .snapshots)
      try container.encode(hashes, forKey: .hashes)
      try container.encodeIfPresent(jumps, forKey: .jumps)
      try container.encode(coveredThrough, forKey: .coveredThrough)
      try container.encode(uncoveredActions, forKey: .uncoveredActions)
      try container.encode(integrity, forKey: .integrity)
      try container.encode(unfinished, forKey: .unfinished)
      try container.encode(recoveredActions, forKey: .recoveredActions)
      try container.encode(nothingChecked, forKey: .nothingChecked)
      try container.encode(stateHash, forKey: .stateHash)
      try container.encode(divergence, forKey: .divergence)
      try container.encode(sideBySide, forKey: .sideBySide)
      try container.encode(lockstep, forKey: .lockstep)
    }
  }

  /// The first recorded hash the replay did not reproduce.
  struct Divergence: Codable, Sendable, Equatable {
    var sequence: UInt64
    /// `checkpoint` or `snapshot`.
    var kind: String
    var recordedHash: String
    var replayedHash: String
    var windowStart: UInt64
    var windowEnd: UInt64
    var stateDiff: String?
    /// How to name the exact action among several.
    var hint: String?

    private enum CodingKeys: String, CodingKey {
      case sequence, kind, recordedHash, replayedHash, windowStart, windowEnd, stateDiff, hint
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(sequence, forKey: .sequence)
      try container.encode(kind, forKey: .kind)
      try container.encode(recordedHash, forKey: .recordedHash)
      try container.encode(replayedHash, forKey: .replayedHash)
      try container.encode(windowStart, forKey: .windowStart)
      try container.encode(windowEnd, forKey: .windowEnd)
      try container.encode(stateDiff, forKey: .stateDiff)
      try container.encode(hint, forKey: .hint)
    }
  }

  /// The first action after which the states differ, replayed side by side (`--as`).
  struct Lockstep: Codable, Sendable, Equatable {
    var against: String?
    var sequence: UInt64
    var actionCase: String
    var hash: String
    var otherHash: String
    var stateDiff: String?

    private enum CodingKeys: String, CodingKey {
      case against, sequence, actionCase, hash, otherHash, stateDiff
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(against, forKey: .against)
      try container.encode(sequence, forKey: .sequence)
      try container.encode(actionCase, forKey: .actionCase)
      try container.encode(hash, forKey: .hash)
      try container.encode(otherHash, forKey: .otherHash)
      try container.encode(stateDiff, forKey: .stateDiff)
    }
  }

  private enum CodingKeys: String, CodingKey {
    case version, file, status, error, domain
  }

  init(file: String, status: String, error: String? = nil, details: Details? = nil) {
    self.file = file
    self.status = status
    self.error = error
    self.details = details
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    version = try ReportJSON.version(in: container, forKey: .version)
    file = try container.decode(String.self, forKey: .file)
    status = try container.decode(String.self, forKey: .status)
    error = try container.decodeIfPresent(String.self, forKey: .error)
    // A trace that was replayed names its domain; one that could not be read does not.
    details = container.contains(.domain) ? try Details(from: decoder) : nil
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(version, forKey: .version)
    try container.encode(file, forKey: .file)
    try container.encode(status, forKey: .status)
    try container.encodeIfPresent(error, forKey: .error)
    try details?.encode(to: encoder)
  }
}

/// The counts of `replay --json` on several traces and of `merge-results --json`: one key
/// per answer, the first named `verified` (with `--verify`) or `replayed`.
struct ReplayCounts: Codable, Sendable, Equatable {
  /// Whether the traces were replayed with `--verify`: the key of ``passed``.
  var verify: Bool
  var passed: Int
  var diverged: Int
  var unverified: Int
  var damaged: Int
  var errors: Int

  init(verify: Bool, passed: Int, diverged: Int, unverified: Int, damaged: Int, errors: Int) {
    self.verify = verify
    self.passed = passed
    self.diverged = diverged
    self.unverified = unverified
    self.damaged = damaged
    self.errors = errors
  }

  /// The counts of `traces`' statuses.
  init(verify: Bool, traces: [ReplayReport]) {
    func count(_ status: String) -> Int { traces.count { $0.status == status } }
    let negative = count("diverged") + count("unverified") + count("damaged")
    self.init(
      verify: verify, passed: traces.count - negative - count("error"),
      diverged: count("diverged"), unverified: count("unverified"), damaged: count("damaged"),
      errors: count("error"))
  }

  private enum CodingKeys: String, CodingKey {
    case verified, replayed, diverged, unverified, damaged, errors
  }

  /// A missing count reads as 0: the counts follow from the traces, which a reader counts
  /// again.
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    verify = container.contains(.verified)
    guard verify || container.contains(.replayed) else {
      throw DecodingError.keyNotFound(
        CodingKeys.verified,
        DecodingError.Context(
          codingPath: container.codingPath,
          debugDescription: "no \"verified\" or \"replayed\" count"))
    }
    passed = try container.decode(Int.self, forKey: verify ? .verified : .replayed)
    diverged = try container.decodeIfPresent(Int.self, forKey: .diverged) ?? 0
    unverified = try container.decodeIfPresent(Int.self, forKey: .unverified) ?? 0
    damaged = try container.decodeIfPresent(Int.self, forKey: .damaged) ?? 0
    errors = try container.decodeIfPresent(Int.self, forKey: .errors) ?? 0
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(passed, forKey: verify ? .verified : .replayed)
    try container.encode(diverged, forKey: .diverged)
    try container.encode(unverified, forKey: .unverified)
    try container.encode(damaged, forKey: .damaged)
    try container.encode(errors, forKey: .errors)
  }
}

/// What `replay --json` says of several traces: each trace's report, the counts, and the
/// shard they were (`shard`, `null` without `--shard`).
typealias ReplayManyReport = ReplayTracesReport<ReplayShard>

/// What `merge-results --json` says: every trace of the merged results once, sorted by
/// path, the counts, and how many shards were merged (`shards`, `null` when the results
/// named none).
typealias MergeResultsReport = ReplayTracesReport<MergedShards>

/// A report on several replayed traces: each trace's report, the counts, and one key that
/// says which part of a corpus they are, written under `Part.key`. ``ReplayManyReport`` and
/// ``MergeResultsReport`` differ in that key alone, so that `merge-results` reads and writes
/// the traces and counts as `replay` does.
struct ReplayTracesReport<Part: ReplayTracesPart>: VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var traces: [ReplayReport]
  var counts: ReplayCounts
  /// The shard or shards; written as `null` when there are none.
  var part: Part?

  private struct CodingKeys: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    static var version: Self { Self(stringValue: "version") }
    static var traces: Self { Self(stringValue: "traces") }
    static var part: Self { Self(stringValue: Part.key) }
  }

  init(traces: [ReplayReport], counts: ReplayCounts, part: Part?) {
    self.traces = traces
    self.counts = counts
    self.part = part
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    version = try ReportJSON.version(in: container, forKey: .version)
    traces = try container.decode([ReplayReport].self, forKey: .traces)
    part = try container.decodeIfPresent(Part.self, forKey: .part)
    counts = try ReplayCounts(from: decoder)
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(version, forKey: .version)
    try container.encode(traces, forKey: .traces)
    try container.encode(part, forKey: .part)
    try counts.encode(to: encoder)
  }
}

/// What a ``ReplayTracesReport`` says beside its traces, and the key it is written under.
protocol ReplayTracesPart: Codable, Sendable, Equatable {
  /// The report's key for it.
  static var key: String { get }
}

/// `replay --shard K/N` as `"shard":{"index":K,"count":N}`.
struct ReplayShard: ReplayTracesPart {
  static var key: String { "shard" }
  var index: Int
  var count: Int
}

/// How many shards `merge-results` merged, as `"shards":N`.
struct MergedShards: ReplayTracesPart {
  static var key: String { "shards" }
  var count: Int

  init(count: Int) { self.count = count }

  init(from decoder: any Decoder) throws {
    count = try decoder.singleValueContainer().decode(Int.self)
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(count)
  }
}
