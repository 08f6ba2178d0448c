import Retrace

/// An action read from a trace, with its sequence number and time.
public struct TimedAction<Action> {
  /// The action's sequence number.
  public var sequence: UInt64
  /// When it was reduced, in seconds since 1970.
  public var time: Double
  /// The action.
  public var action: Action

  /// Creates a timed action.
  public init(sequence: UInt64, time: Double, action: Action) {
    self.sequence = sequence
    self.time = time
    self.action = action
  }
}

extension TimedAction: Sendable where Action: Sendable {}
extension TimedAction: Equatable where Action: Equatable {}

/// A trace read as a domain's actions and states: decoding, upcasting older actions, and
/// the state at any sequence number.
///
/// ```swift
/// let trace = try DomainTrace(TraceReader(path: "session.trace"), domain: bankingDomain)
/// let state = try trace.state(at: 500)
/// print(state.accounts.count)
/// ```
public struct DomainTrace<D: Domain>: Sendable {
  /// The underlying reader.
  public let reader: TraceReader
  /// The domain the trace belongs to.
  public let domain: D

  /// Checks that the trace belongs to `domain` and can be decoded by it.
  ///
  /// - Throws: ``TraceError`` with code ``TraceError/Code/wrongDomain`` when the trace was
  ///   recorded for another domain, or ``TraceError/Code/unsupportedVersion`` when its
  ///   action schema is newer than the domain's.
  public init(_ reader: TraceReader, domain: D) throws(TraceError) {
    guard reader.header.domain == domain.name else {
      throw TraceError(
        .wrongDomain, "the trace is of domain '\(reader.header.domain)', not '\(domain.name)'", path: reader.path)
    }
    guard reader.header.actionSchemaVersion <= domain.actionSchemaVersion else {
      throw TraceError(
        .unsupportedVersion,
        "the trace's action schema version \(reader.header.actionSchemaVersion) is newer than domain '\(domain.name)' knows (\(domain.actionSchemaVersion))",
        path: reader.path)
    }
    self.reader = reader
    self.domain = domain
  }

  /// Decodes the action in `record`, upcasting it first when it was recorded with an older
  /// action schema version.
  public func decodeAction(_ record: TraceRecord) throws(TraceError) -> D.Action {
    let recorded = reader.header.actionSchemaVersion
    guard recorded < domain.actionSchemaVersion else { return try record.decode(D.Action.self) }
    let value = try record.value()
    do {
      let upcast = try domain.upcast(value, fromVersion: recorded)
      return try CBORDecoder().decode(D.Action.self, from: upcast.encoded())
    } catch {
      throw TraceError(
        .undecodable,
        "cannot upcast action '\(record.actionCase ?? "?")' from schema version \(recorded): \(error)",
        path: reader.path, chunk: record.source.chunkIndex, sequence: record.sequence, cause: error)
    }
  }

  /// Calls `body` with every action in order, from the first chunk whose actions reach
  /// `from`; stops early when `body` returns `false`.
  public func forEachAction(
    from: UInt64 = 0,
    _ body: (TimedAction<D.Action>) throws(TraceError) -> Bool
  ) throws(TraceError) {
    let firstChunk = reader.chunks.lastIndex { $0.firstSequence <= from } ?? 0
    try reader.forEachRecord(fromChunk: firstChunk) { record throws(TraceError) in
      guard record.kind == .action, record.sequence >= from else { return true }
      return try body(TimedAction(sequence: record.sequence, time: record.time ?? 0, action: decodeAction(record)))
    }
  }

  /// Every action, in order.
  public func actions() throws(TraceError) -> [TimedAction<D.Action>] {
    var actions: [TimedAction<D.Action>] = []
    actions.reserveCapacity(reader.actionCount)
    try forEachAction { action in
      actions.append(action)
      return true
    }
    return actions
  }

  /// The state the recording started from: the first snapshot.
  public func initialState() throws(TraceError) -> D.State {
    try state(at: reader.header.firstSequence)
  }

  /// The state after action `sequence`, replayed from the nearest snapshot before it.
  ///
  /// - Parameter sequence: A sequence number from the header's first sequence (the state
  ///   before any recorded action) to ``TraceReader/lastSequence``.
  /// - Throws: ``TraceError`` with code ``TraceError/Code/outOfRange`` naming the valid range,
  ///   or a decoding error.
  public func state(at sequence: UInt64) throws(TraceError) -> D.State {
    let first = reader.header.firstSequence
    guard (first...reader.lastSequence).contains(sequence) else {
      throw TraceError(
        .outOfRange, "sequence \(sequence) is outside the trace (\(first) to \(reader.lastSequence))",
        path: reader.path)
    }
    guard let chunk = reader.snapshotChunk(atOrBefore: sequence) else {
      throw TraceError(.corrupted, "the trace has no starting snapshot", path: reader.path)
    }
    var state: D.State?
    let domain = self.domain
    try reader.forEachRecord(fromChunk: chunk) { record throws(TraceError) in
      switch record.kind {
      case .snapshot where state == nil:
        state = try record.decode(D.State.self)
        return record.sequence < sequence
      case .action:
        _ = domain.reduce(into: &state!, action: try decodeAction(record))
        return record.sequence < sequence
      default:
        return true
      }
    }
    guard let state else { throw TraceError(.corrupted, "the snapshot could not be read", path: reader.path) }
    return state
  }
}
