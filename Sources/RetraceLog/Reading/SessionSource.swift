import Foundation
import Retrace

/// A recorded session in a file, read through one interface whatever the file's format: a
/// trace (``TraceSession``) or JSON Lines (``JSONLinesSession``).
///
/// What a tool asks of a session: its facts and integrity, the state at a sequence number,
/// the states at two, the actions in a range, or the whole session in memory for the
/// debugger's engine. Each format answers as cheaply as it can: a trace seeks from its
/// nearest snapshot and decodes only the chunks it needs; JSON Lines, read whole when
/// opened, replays.
///
/// ```swift
/// let source: any SessionSource<CounterDomain> = try TraceSession(
///   TraceReader(path: "session.trace"), domain: counterDomain)
/// print(try source.state(at: source.lastSequence))
/// ```
public protocol SessionSource<SessionDomain>: Sendable {
  /// The domain the session is read as.
  associatedtype SessionDomain: Domain

  /// The file the session was read from, when it was read from one.
  var path: String? { get }
  /// The domain the session is read as.
  var domain: SessionDomain { get }
  /// The session's facts, from the file's header.
  var info: SessionInfo { get }
  /// The sequence number of the state the session starts from: the last action before its
  /// first (0 for a whole session).
  var startSequence: UInt64 { get }
  /// The sequence number of the session's last action (``startSequence`` when it has none).
  var lastSequence: UInt64 { get }
  /// Whether the file is whole, as far as it has been checked (see ``intactPart()``).
  var integrity: IntegrityReport { get }

  /// The session as far as it is intact by every check any reader makes: what a tool that
  /// answers for the whole file (verifying it, describing it) reads, so that damage found
  /// late counts as damage there too.
  ///
  /// - Throws: ``TraceError`` when the file cannot be read again.
  func intactPart() throws(TraceError) -> Self

  /// Throws unless `sequence` is one the session has a state for: ``startSequence``
  /// through ``lastSequence``.
  ///
  /// - Throws: ``TraceError`` with code ``TraceError/Code/outOfRange`` naming the range.
  func checkInRange(_ sequence: UInt64) throws(TraceError)

  /// The state after action `sequence` (``startSequence``: the state the session starts
  /// from).
  ///
  /// - Throws: ``TraceError``: ``TraceError/Code/outOfRange`` naming the valid range, or the
  ///   problem in the file.
  func state(at sequence: UInt64) throws(TraceError) -> SessionDomain.State

  /// Calls `body` with each action from sequence number `from` through `through` (by
  /// default, the last), in order, until it returns `false`.
  ///
  /// - Throws: ``TraceError`` naming the position of a problem in the file, after `body` has
  ///   seen the actions before it; or what `body` throws.
  func forEachAction(
    from: UInt64, through: UInt64?,
    _ body: (TimedAction<SessionDomain.Action>) throws(TraceError) -> Bool
  ) throws(TraceError)

  /// The whole session in memory, with its recorded hashes and snapshots: what the
  /// debugger's engine works on.
  ///
  /// - Throws: ``TraceError`` naming the position of a problem in the file.
  func session() throws(TraceError) -> RecordedSession<SessionDomain>

  /// The sequence numbers after which a time-travel jump set the state
  /// (``RecordedSession/jumps``), in order: replaying ``forEachAction(from:through:_:)``'s
  /// actions across one does not give the state there, ``state(at:)`` does.
  var jumpSequences: [UInt64] { get }
}

extension SessionSource {
  /// A session without time-travel jumps, as JSON Lines always is.
  public var jumpSequences: [UInt64] { [] }

  /// The states after actions `from` and `to`, both checked before either is computed.
  ///
  /// - Throws: ``TraceError``: ``TraceError/Code/outOfRange`` naming the valid range, or the
  ///   problem in the file.
  public func states(from: UInt64, to: UInt64) throws(TraceError)
    -> (old: SessionDomain.State, new: SessionDomain.State)
  {
    try checkInRange(from)
    try checkInRange(to)
    let old = try state(at: from)
    // A trace goes on from its last answer when no snapshot lies between.
    return (old, to == from ? old : try state(at: to))
  }
}

/// A JSON Lines session (the format of `retrace export`), read whole, as a ``SessionSource``.
///
/// ```swift
/// let source = try JSONLinesSession(data: data, domain: counterDomain, path: "s.jsonl")
/// print(source.lastSequence)
/// ```
public struct JSONLinesSession<D: Domain>: SessionSource {
  /// The file's name, for errors.
  public let path: String?
  /// The domain the session is read as.
  public let domain: D
  /// The actions before the first bad line, if any.
  public let intact: RecordedSession<D>
  /// The first bad line, if any.
  public let damage: JSONLines.Damage?
  /// What the header says was wrong with the trace the session was exported from
  /// (``JSONLines/Header/damage``): its actions end before that damage.
  public let exportedFromDamage: String?

  /// Reads a JSON Lines session of `domain` up to its first bad line.
  ///
  /// - Parameters:
  ///   - data: The file's contents.
  ///   - domain: The domain the header must name.
  ///   - path: The file's name, for errors.
  /// - Throws: ``TraceError`` when the header is missing or bad, or names another domain.
  public init(data: some DataProtocol, domain: D, path: String? = nil) throws(TraceError) {
    let data = Data(data)
    (intact, damage) = try JSONLines.readIntactPrefix(from: data, domain: domain, path: path)
    exportedFromDamage = try JSONLines.readHeader(from: data, path: path).damage
    self.domain = domain
    self.path = path
  }

  /// The session's facts, from the header.
  public var info: SessionInfo { intact.info }
  /// The header's `firstSequence`.
  public var startSequence: UInt64 { intact.startSequence }
  /// The last intact action's sequence number.
  public var lastSequence: UInt64 { intact.endSequence }

  /// `clean`, or where the first bad line is; `damaged` at line 1 for a session exported
  /// from a damaged trace, whose lines are intact but end before that trace's damage.
  public var integrity: IntegrityReport {
    guard let damage else {
      if let exportedFromDamage {
        return IntegrityReport(
          status: .damaged, intactActions: intact.actions.count,
          problem:
            "exported from a damaged trace, so its actions end before the damage: \(exportedFromDamage)",
          line: 1)
      }
      return IntegrityReport(status: .clean, intactActions: intact.actions.count)
    }
    return IntegrityReport(
      status: damage.isTruncation ? .truncated : .damaged, intactActions: intact.actions.count,
      problem: damage.error.message, line: damage.error.line, sequence: intact.endSequence + 1)
  }

  /// The same session: its lines were all checked when it was read.
  public func intactPart() -> Self { self }

  /// Throws unless `sequence` is within the session: the first bad line first, when the file
  /// has one (a text file is refused whole).
  public func checkInRange(_ sequence: UInt64) throws(TraceError) {
    if let damage { throw damage.error }
    try intact.checkInRange(sequence, path: path)
  }

  /// The state after action `sequence`, replayed from the session's initial state.
  ///
  /// - Throws: ``TraceError`` with code ``TraceError/Code/outOfRange`` naming the valid range,
  ///   or the first bad line when the file is damaged.
  public func state(at sequence: UInt64) throws(TraceError) -> D.State {
    try session().checkInRange(sequence, path: path)
    var state = intact.initialState
    for action in intact.actions.prefix(Int(sequence - intact.startSequence)) {
      _ = domain.reduce(into: &state, action: action.action)
    }
    return state
  }

  /// Calls `body` with each action from `from` through `through`.
  ///
  /// - Throws: The first bad line, before any action, when the file has one; or what `body`
  ///   throws.
  public func forEachAction(
    from: UInt64 = 0, through: UInt64? = nil,
    _ body: (TimedAction<D.Action>) throws(TraceError) -> Bool
  ) throws(TraceError) {
    // A text file is refused whole: it has no checksums to say which lines before a bad one
    // are sound.
    if let damage { throw damage.error }
    // The actions are numbered without gaps: `from`'s is found by its number.
    let first =
      from > intact.startSequence
      ? Int(min(from - intact.startSequence - 1, UInt64(intact.actions.count))) : 0
    for action in intact.actions[min(first, intact.actions.count)...] {
      if let through, action.sequence > through { return }
      guard try body(action) else { return }
    }
  }

  /// The session.
  ///
  /// - Throws: The first bad line, when the file has one.
  public func session() throws(TraceError) -> RecordedSession<D> {
    if let damage { throw damage.error }
    return intact
  }
}

extension RecordedSession {
  /// Throws unless the session has a state for `sequence`.
  func checkInRange(_ sequence: UInt64, path: String?) throws(TraceError) {
    guard sequenceRange.contains(sequence) else {
      throw TraceError(
        .outOfRange, "out of range \(startSequence)...\(endSequence)", path: path,
        sequence: sequence)
    }
  }
}
