import Retrace

/// What a recorded session says about itself: the facts a trace's header holds.
public struct SessionInfo: Codable, Equatable, Sendable {
  /// The domain the actions belong to, such as `banking`.
  public var domain: String
  /// The version of the action encoding the actions were recorded with.
  public var actionSchemaVersion: Int
  /// A unique identifier of the recording session.
  public var sessionID: String
  /// When the recording started, in seconds since 1970.
  public var startTime: Double
  /// The library that recorded the session, such as `Retrace 0.1.0`.
  public var producer: String
  /// Facts about the app that recorded the session (name, version, build, device), as the
  /// app gave them; `redaction` says that personal data was pseudonymized
  /// (``TraceHeader/app``).
  public var app: [String: String]
  /// The ID of the public key the recording was encrypted to, when it was: a session read
  /// from an encrypted trace (with its private key), or from JSON Lines exported from one.
  public var encryptionKeyID: String?

  /// Creates session facts.
  ///
  /// - Parameters:
  ///   - domain: The domain's name.
  ///   - actionSchemaVersion: The version of the action encoding.
  ///   - sessionID: A unique identifier of the session.
  ///   - startTime: When the recording started, in seconds since 1970.
  ///   - producer: The library that recorded the session.
  ///   - app: Facts about the app that recorded the session.
  ///   - encryptionKeyID: The ID of the key the recording was encrypted to, if it was.
  public init(
    domain: String, actionSchemaVersion: Int = 1, sessionID: String, startTime: Double,
    producer: String = "Retrace \(RetraceVersion.string)", app: [String: String] = [:],
    encryptionKeyID: String? = nil
  ) {
    self.domain = domain
    self.actionSchemaVersion = actionSchemaVersion
    self.sessionID = sessionID
    self.startTime = startTime
    self.producer = producer
    self.app = app
    self.encryptionKeyID = encryptionKeyID
  }

  /// The facts a trace's header holds.
  ///
  /// - Parameter header: The header.
  public init(_ header: TraceHeader) {
    self.init(
      domain: header.domain, actionSchemaVersion: header.actionSchemaVersion,
      sessionID: header.sessionID, startTime: header.startTime, producer: header.producer,
      app: header.app, encryptionKeyID: header.encryption?.keyID)
  }

  private enum CodingKeys: String, CodingKey {
    case domain, actionSchemaVersion, sessionID, startTime, producer, app, encryptionKeyID
  }

  /// Decodes the facts; `app` and `encryptionKeyID` may be absent, as they are from older
  /// writers.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` when a required fact is missing or of the wrong type.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    domain = try container.decode(String.self, forKey: .domain)
    actionSchemaVersion = try container.decode(Int.self, forKey: .actionSchemaVersion)
    sessionID = try container.decode(String.self, forKey: .sessionID)
    startTime = try container.decode(Double.self, forKey: .startTime)
    producer = try container.decode(String.self, forKey: .producer)
    app = try container.decodeIfPresent([String: String].self, forKey: .app) ?? [:]
    encryptionKeyID = try container.decodeIfPresent(String.self, forKey: .encryptionKeyID)
  }
}

/// A recorded hash of the state after an action: what a trace's checkpoint record holds.
public struct Checkpoint: Equatable, Hashable, Sendable {
  /// The sequence number of the action after which the state was hashed.
  public var sequence: UInt64
  /// The state's hash.
  public var hash: UInt64

  /// Creates a checkpoint.
  ///
  /// - Parameters:
  ///   - sequence: The sequence number of the action after which the state was hashed.
  ///   - hash: The state's hash.
  public init(sequence: UInt64, hash: UInt64) {
    self.sequence = sequence
    self.hash = hash
  }
}

/// A recorded state after an action, with its hash: what a trace's snapshot record holds.
public struct Snapshot<State> {
  /// The sequence number of the action after which the state was recorded.
  public var sequence: UInt64
  /// The state's hash, as the recorder computed it.
  public var hash: UInt64
  /// The state; `nil` when the loader left it undecoded in the file (decoding a large
  /// state costs more than replaying to it), in which case
  /// ``RecordedSession/loadSnapshotState`` can fetch it.
  public var state: State?

  /// Creates a snapshot.
  ///
  /// - Parameters:
  ///   - sequence: The sequence number of the action after which the state was recorded.
  ///   - hash: The state's hash.
  ///   - state: The state, or `nil` if it was not decoded.
  public init(sequence: UInt64, hash: UInt64, state: State?) {
    self.sequence = sequence
    self.hash = hash
    self.state = state
  }
}

extension Snapshot: Sendable where State: Sendable {}

/// A recorded session of one domain, in memory: the starting state, the actions after it,
/// and the hashes and snapshots the recorder took along the way.
///
/// The debugger's engine (`ReplayEngine`) works on this value and knows nothing of file formats;
/// a ``SessionSource`` reads it from a trace or a JSON Lines file. It may be a slice of a longer recording:
/// ``startSequence`` is the sequence number of the last action before ``actions`` (0 for a
/// whole session), and ``initialState`` is the state after it.
///
/// ```swift
/// let (actions, _) = counterDomain.generate(count: 3, seed: 7)
/// let session = RecordedSession(domain: counterDomain, actions: actions)
/// print(session.actions.map(\.sequence), session.endSequence)
/// ```
///
/// ```
/// [1, 2, 3] 3
/// ```
public struct RecordedSession<D: Domain>: Sendable {
  /// The session's facts.
  public var info: SessionInfo
  /// The sequence number of the last action before ``actions``; 0 for a whole session.
  public var startSequence: UInt64
  /// The state at ``startSequence``.
  public var initialState: D.State
  /// The actions, in order, numbered `startSequence + 1`, `startSequence + 2`, …
  public var actions: [TimedAction<D.Action>]
  /// The recorded state hashes, in increasing sequence order.
  public var checkpoints: [Checkpoint]
  /// The recorded states, in increasing sequence order.
  public var snapshots: [Snapshot<D.State>]
  /// The time-travel jumps, in increasing sequence order: after action
  /// ``Snapshot/sequence`` the app's state was set to ``Snapshot/state`` (always decoded)
  /// without an action (`Store.jump(to:)`), and the next action applied to it. Of several
  /// jumps after one action, the last stands. The state at a sequence number is the one
  /// after its action and its jumps.
  public var jumps: [Snapshot<D.State>] = []
  /// Fetches the recorded state of the snapshot at a sequence number from where the session
  /// was read, for snapshots whose ``Snapshot/state`` was not decoded; `nil` when there is
  /// no such snapshot or no file to read it from.
  public var loadSnapshotState: (@Sendable (_ sequence: UInt64) -> D.State?)?

  /// Creates a session from its parts.
  ///
  /// - Parameters:
  ///   - info: The session's facts.
  ///   - startSequence: The sequence number of the last action before `actions`.
  ///   - initialState: The state at `startSequence`.
  ///   - actions: The actions, numbered from `startSequence + 1` without gaps.
  ///   - checkpoints: The recorded state hashes, in increasing sequence order.
  ///   - snapshots: The recorded states, in increasing sequence order.
  ///   - jumps: The time-travel jumps, in increasing sequence order, with their states.
  public init(
    info: SessionInfo,
    startSequence: UInt64 = 0,
    initialState: D.State,
    actions: [TimedAction<D.Action>],
    checkpoints: [Checkpoint] = [],
    snapshots: [Snapshot<D.State>] = [],
    jumps: [Snapshot<D.State>] = []
  ) {
    precondition(
      Self.numberedWithoutGaps(actions, after: startSequence),
      "actions must be numbered from startSequence + 1 without gaps")
    self.info = info
    self.startSequence = startSequence
    self.initialState = initialState
    self.actions = actions
    self.checkpoints = checkpoints
    self.snapshots = snapshots
    self.jumps = jumps
  }

  /// Whether `actions` are numbered `start + 1`, `start + 2`, … without gaps.
  ///
  /// A plain loop that reads each sequence number in place: this runs unspecialized for
  /// every domain a tool reads, where a closure per action would copy each action and look
  /// up its type's metadata again (3% of a replay).
  private static func numberedWithoutGaps(
    _ actions: [TimedAction<D.Action>], after start: UInt64
  ) -> Bool {
    var expected = start
    for index in actions.indices {
      expected &+= 1
      guard actions[index].sequence == expected else { return false }
    }
    return true
  }

  /// Creates a whole session of `domain` from plain actions, numbered from 1, one second
  /// apart, with no checkpoints or snapshots.
  ///
  /// Use `ReplayEngine.recordingCheckpoints(every:snapshotEvery:)` (RetraceDebugger) to add them.
  ///
  /// - Parameters:
  ///   - domain: The domain the actions belong to.
  ///   - actions: The actions.
  ///   - startTime: The time of the first action, in seconds since 1970.
  ///   - sessionID: The session's identifier.
  public init(
    domain: D, actions: [D.Action], startTime: Double = 1_763_771_000,
    sessionID: String = "generated"
  ) {
    self.init(
      info: SessionInfo(
        domain: domain.name, actionSchemaVersion: domain.actionSchemaVersion, sessionID: sessionID,
        startTime: startTime),
      initialState: domain.initialState,
      actions: actions.enumerated().map {
        TimedAction(
          sequence: UInt64($0.offset + 1), time: startTime + Double($0.offset), action: $0.element)
      }
    )
  }

  /// The sequence number of the last action: the end of the session.
  public var endSequence: UInt64 { startSequence + UInt64(actions.count) }

  /// The sequence numbers whose state the session can give: ``startSequence`` through
  /// ``endSequence``.
  public var sequenceRange: ClosedRange<UInt64> { startSequence...endSequence }

  /// The action with sequence number `sequence`, if the session holds it.
  ///
  /// - Parameter sequence: A sequence number.
  /// - Returns: The recorded action, or `nil`.
  public func action(at sequence: UInt64) -> TimedAction<D.Action>? {
    guard sequence > startSequence, sequence <= endSequence else { return nil }
    return actions[Int(sequence - startSequence - 1)]
  }

  /// The index in ``actions`` of the action with sequence number `sequence`.
  package func index(of sequence: UInt64) -> Int {
    Int(sequence - startSequence - 1)
  }

  /// The duration from the first to the last action, in seconds (0 with fewer than two).
  public var duration: Double {
    guard let first = actions.first, let last = actions.last else { return 0 }
    return last.time - first.time
  }
}

extension RecordedSession {
  /// How many actions of each case the session holds, by case name (see
  /// `actionCaseName(of:)`), in the order of `order` and then by first appearance.
  ///
  /// ```swift
  /// session.actionCaseCounts(order: counterDomain.actionCases)
  /// ```
  ///
  /// ```
  /// [(name: "increment", count: 2), (name: "decrement", count: 1)]
  /// ```
  ///
  /// - Parameter order: Case names to list first (usually the domain's `Domain.actionCases`).
  /// - Returns: The case names with their counts; cases that do not occur are left out.
  public func actionCaseCounts(order: [String] = []) -> [(name: String, count: Int)] {
    var counts: [String: Int] = [:]
    var appearance: [String] = []
    for action in actions {
      let name = actionCaseName(of: action.action)
      if counts[name] == nil { appearance.append(name) }
      counts[name, default: 0] += 1
    }
    let ordered = order.filter { counts[$0] != nil } + appearance.filter { !order.contains($0) }
    return ordered.map { ($0, counts[$0]!) }
  }
}
