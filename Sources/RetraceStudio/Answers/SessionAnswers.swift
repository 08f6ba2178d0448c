import Retrace
import RetraceDebugger
import RetraceLog

/// What `GET /api/sessions` lists for a session, and what its detail starts with: of a
/// file, or of a live segment (``liveStatus``, and `live` true).
struct SessionSummary: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var id: String
  /// The file's path as given; a live segment's recording.
  var file: String
  var format: String
  var domain: String
  var actions: Int
  var firstSequence: UInt64
  var lastSequence: UInt64
  var startTime: Double
  var duration: Double
  var integrity: IntegrityJSON
  /// A live segment's own fields, written beside the others; `nil` for a file.
  var liveStatus: LiveStatus?

  private enum CodingKeys: String, CodingKey {
    case version, id, file, format, domain, actions, firstSequence, lastSequence, startTime
    case duration, integrity, live
  }

  init(
    id: String, file: String, format: String, domain: String, actions: Int,
    firstSequence: UInt64, lastSequence: UInt64, startTime: Double, duration: Double,
    integrity: IntegrityJSON
  ) {
    self.id = id
    self.file = file
    self.format = format
    self.domain = domain
    self.actions = actions
    self.firstSequence = firstSequence
    self.lastSequence = lastSequence
    self.startTime = startTime
    self.duration = duration
    self.integrity = integrity
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    version = try ReportJSON.version(in: container, forKey: .version)
    id = try container.decode(String.self, forKey: .id)
    file = try container.decode(String.self, forKey: .file)
    format = try container.decode(String.self, forKey: .format)
    domain = try container.decode(String.self, forKey: .domain)
    actions = try container.decode(Int.self, forKey: .actions)
    firstSequence = try container.decode(UInt64.self, forKey: .firstSequence)
    lastSequence = try container.decode(UInt64.self, forKey: .lastSequence)
    startTime = try container.decode(Double.self, forKey: .startTime)
    duration = try container.decode(Double.self, forKey: .duration)
    integrity = try container.decode(IntegrityJSON.self, forKey: .integrity)
    liveStatus =
      try container.decode(Bool.self, forKey: .live) ? try LiveStatus(from: decoder) : nil
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(version, forKey: .version)
    try container.encode(id, forKey: .id)
    try container.encode(file, forKey: .file)
    try container.encode(format, forKey: .format)
    try container.encode(domain, forKey: .domain)
    try container.encode(actions, forKey: .actions)
    try container.encode(firstSequence, forKey: .firstSequence)
    try container.encode(lastSequence, forKey: .lastSequence)
    try container.encode(startTime, forKey: .startTime)
    try container.encode(duration, forKey: .duration)
    try container.encode(integrity, forKey: .integrity)
    try container.encode(liveStatus != nil, forKey: .live)
    try liveStatus?.encode(to: encoder)
  }
}

/// A live segment's fields in its summary and detail: whether its app is connected, where it
/// is recorded, how far its checkpoints matched, and what the app did.
struct LiveStatus: Codable, Sendable, Equatable {
  var name: String
  var connected: Bool
  var diverged: Bool
  var recordedTo: String
  var checkedThrough: UInt64
  var segment: Int
  var liveSessionID: String
  var appCheckpoints: AppCheckpoints
  @NullWhenAbsent var divergence: Divergence?
  @NullWhenAbsent var appError: String?
  var commands: [String]
  var jumps: [Jump]
  @NullWhenAbsent var appAt: UInt64?
  @NullWhenAbsent var problem: String?

  struct AppCheckpoints: Codable, Sendable, Equatable {
    var matched: Int
    var unchecked: Int
  }

  /// The first checkpoint whose hash differs: the app's and the Studio's, as text.
  struct Divergence: Codable, Sendable, Equatable {
    var sequence: UInt64
    var app: String
    var studio: String
  }

  /// A time-travel jump: after which action the state was set, and to the state after which
  /// action (`null` when not known).
  struct Jump: Codable, Sendable, Equatable {
    var after: UInt64
    @NullWhenAbsent var to: UInt64?
    var time: Double
  }
}

/// `GET /api/sessions/{id}`: the summary, with the file's facts and the domain's invariants,
/// action cases and display formats.
struct SessionDetail: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version: Int { summary.version }
  var summary: SessionSummary
  var startSequence: UInt64
  var producer: String
  var sessionID: String
  var bytes: Int
  var snapshots: Int
  var checkpoints: Int
  /// The time-travel jumps of a session recorded from a moved app: after which action each
  /// set the state (`to` is `null`: the recording holds the state, not the action it came
  /// from). A live segment gives its own (``LiveStatus/jumps``) instead.
  var jumps: [Jump]
  var domainSummary: String
  var actionCases: [ActionCase]
  var invariants: [InvariantName]
  var navigation: Bool
  var displayFormats: [String: DisplayFormatAnswer]

  struct Jump: Codable, Sendable, Equatable {
    var after: UInt64
    @NullWhenAbsent var to: UInt64?
  }

  struct ActionCase: Codable, Sendable, Equatable {
    var name: String
    var count: Int
  }

  struct InvariantName: Codable, Sendable, Equatable {
    var name: String
    var summary: String
  }

  private enum CodingKeys: String, CodingKey {
    case startSequence, producer, sessionID, bytes, snapshots, checkpoints, jumps
    case domainSummary, actionCases, invariants, navigation, displayFormats
  }

  init(
    summary: SessionSummary, startSequence: UInt64, producer: String, sessionID: String,
    bytes: Int, snapshots: Int, checkpoints: Int, jumps: [Jump], domainSummary: String,
    actionCases: [ActionCase], invariants: [InvariantName], navigation: Bool,
    displayFormats: [String: DisplayFormatAnswer]
  ) {
    self.summary = summary
    self.startSequence = startSequence
    self.producer = producer
    self.sessionID = sessionID
    self.bytes = bytes
    self.snapshots = snapshots
    self.checkpoints = checkpoints
    self.jumps = jumps
    self.domainSummary = domainSummary
    self.actionCases = actionCases
    self.invariants = invariants
    self.navigation = navigation
    self.displayFormats = displayFormats
  }

  init(from decoder: any Decoder) throws {
    summary = try SessionSummary(from: decoder)
    let container = try decoder.container(keyedBy: CodingKeys.self)
    startSequence = try container.decode(UInt64.self, forKey: .startSequence)
    producer = try container.decode(String.self, forKey: .producer)
    sessionID = try container.decode(String.self, forKey: .sessionID)
    bytes = try container.decode(Int.self, forKey: .bytes)
    snapshots = try container.decode(Int.self, forKey: .snapshots)
    checkpoints = try container.decode(Int.self, forKey: .checkpoints)
    jumps = summary.liveStatus == nil ? try container.decode([Jump].self, forKey: .jumps) : []
    domainSummary = try container.decode(String.self, forKey: .domainSummary)
    actionCases = try container.decode([ActionCase].self, forKey: .actionCases)
    invariants = try container.decode([InvariantName].self, forKey: .invariants)
    navigation = try container.decode(Bool.self, forKey: .navigation)
    displayFormats = try container.decode(
      [String: DisplayFormatAnswer].self, forKey: .displayFormats)
  }

  func encode(to encoder: any Encoder) throws {
    try summary.encode(to: encoder)
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(startSequence, forKey: .startSequence)
    try container.encode(producer, forKey: .producer)
    try container.encode(sessionID, forKey: .sessionID)
    try container.encode(bytes, forKey: .bytes)
    try container.encode(snapshots, forKey: .snapshots)
    try container.encode(checkpoints, forKey: .checkpoints)
    if summary.liveStatus == nil { try container.encode(jumps, forKey: .jumps) }
    try container.encode(domainSummary, forKey: .domainSummary)
    try container.encode(actionCases, forKey: .actionCases)
    try container.encode(invariants, forKey: .invariants)
    try container.encode(navigation, forKey: .navigation)
    try container.encode(displayFormats, forKey: .displayFormats)
  }
}

/// A display format as the page reads it: `{"money": {"currencyCode": "EUR", "minorUnits":
/// 2}}` or `{"date": "epochSeconds"}`.
struct DisplayFormatAnswer: Codable, Sendable, Equatable {
  var money: Money?
  var date: String?

  struct Money: Codable, Sendable, Equatable {
    var currencyCode: String
    var minorUnits: Int
  }

  init(_ format: DisplayFormat) {
    switch format {
    case .money(let currencyCode, let minorUnits):
      money = Money(currencyCode: currencyCode, minorUnits: minorUnits)
    case .date(let encoding): date = encoding.rawValue
    }
  }
}

/// What `GET /api/sessions?wait=MS` lists for a session whose summary is still being made:
/// its id, and nothing that could be read as a count.
struct LoadingEntry: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var id: String
  var loading = true
  var live: Bool
}

/// What the session list says of a session whose summary failed: its id, the fields the
/// page shows, an integrity and the `error`; `file`, a damaged file's path.
struct UnreadableEntry: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var id: String
  /// What the page shows of a live session's row.
  var name: String
  var domain = ""
  var actions = 0
  var duration = 0.0
  var integrity: IntegrityJSON
  var live: Bool
  var error: String
  var file: String?
}
