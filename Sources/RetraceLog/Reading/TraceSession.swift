import Foundation
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
  @inlinable
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
/// let trace = try TraceSession(TraceReader(path: "session.trace"), domain: bankingDomain)
/// let state = try trace.state(at: 500)
/// print(state.accounts.count)
/// ```
public struct TraceSession<D: Domain>: Sendable {
  /// The underlying reader.
  public let reader: TraceReader
  /// The domain the trace belongs to.
  public let domain: D
  /// The states ``state(at:)`` reconstructed, shared by the copies of this value.
  @usableFromInline let cache: StateCache<D.State, D.Action>

  /// Checks that the trace belongs to `domain` and can be decoded by it.
  ///
  /// - Parameters:
  ///   - reader: The opened trace.
  ///   - domain: The domain to decode it with.
  ///   - cachedSnapshots: How many decoded snapshots ``state(at:)`` keeps in memory, so that
  ///     seeking near one again does not decode it again (the most recently used are kept).
  ///     Each costs the memory of a state of its point in the session, and of the decoded
  ///     actions of its chunk (at most one chunk's worth); the recorder spaces
  ///     snapshots so that they add up to at most 64 encoded bytes per action
  ///     (``TraceRecorderConfiguration/maxStateBytesPerAction``), which bounds the whole
  ///     cache too. 0 keeps none.
  /// - Throws: ``TraceError`` with code ``TraceError/Code/wrongDomain`` when the trace was
  ///   recorded for another domain, or ``TraceError/Code/unsupportedVersion`` when its
  ///   action schema is newer than the domain's, or ``TraceError/Code/encrypted`` when it
  ///   is encrypted and was opened without its key.
  public init(_ reader: TraceReader, domain: D, cachedSnapshots: Int = 16) throws(TraceError) {
    if let encryption = reader.header.encryption, !reader.canReadRecords {
      throw .keyNeeded(encryption, path: reader.path)
    }
    guard reader.header.domain == domain.name else {
      throw TraceError(
        .wrongDomain, "the trace is of domain '\(reader.header.domain)', not '\(domain.name)'",
        path: reader.path)
    }
    guard reader.header.actionSchemaVersion <= domain.actionSchemaVersion else {
      throw TraceError(
        .unsupportedVersion,
        "the trace's action schema version \(reader.header.actionSchemaVersion) is newer than domain '\(domain.name)' knows (\(domain.actionSchemaVersion))",
        path: reader.path)
    }
    self.reader = reader
    self.domain = domain
    self.cache = StateCache(capacity: cachedSnapshots)
  }

  /// Decodes the action in `record`, upcasting it first when it was recorded with an older
  /// action schema version.
  @inlinable
  public func decodeAction(_ record: TraceRecord) throws(TraceError) -> D.Action {
    guard reader.header.actionSchemaVersion < domain.actionSchemaVersion else {
      do {
        return try domain.decodeAction(from: record.payload)
      } catch {
        throw actionDecodingFailure(record, error)
      }
    }
    return try upcastAction(record)
  }

  /// The error for an action that does not decode as the domain's: one line that names the
  /// action's case, the type and domain tried, and the domain the trace names, with the
  /// decoder's reason in short (the sequence number is the error's position).
  @usableFromInline
  func actionDecodingFailure(_ record: TraceRecord, _ error: any Error) -> TraceError {
    let header = reader.header
    return TraceError(
      .undecodable,
      "action '\(record.actionCase ?? "?")' does not decode as \(D.Action.self) of domain '\(domain.name)' "
        + "(the trace names domain '\(header.domain)', action schema \(header.actionSchemaVersion)): "
        + shortReason(error),
      path: reader.path, chunk: record.source.chunkIndex, sequence: record.sequence, cause: error)
  }

  /// Decodes an action recorded with an older action schema version, through the domain's
  /// upcaster.
  @usableFromInline
  func upcastAction(_ record: TraceRecord) throws(TraceError) -> D.Action {
    let recorded = reader.header.actionSchemaVersion
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

  /// Calls `body` with every action from sequence number `from` (through `through`, when
  /// given), in order; stops early when `body` returns `false`.
  ///
  /// Only the chunks that hold those actions are decoded, and, with a trace opened from its
  /// index (`TraceReader(path:usingIndex:)`), read from the file.
  ///
  /// The chunks after the one `body` is working through are decoded ahead, on other
  /// threads (at most as many chunks as there are cores), so that decoding and `body`'s
  /// work (typically reducing) run at the same time. `body` itself is called on the
  /// caller's thread, in order.
  ///
  /// Inlinable, so that code that knows the domain's type (an app, a benchmark) runs the
  /// decoding loop compiled for it, without generic metadata lookups per action.
  ///
  /// - Throws: ``TraceError`` when an action cannot be read or decoded, after `body` has
  ///   seen every action before it; or what `body` throws.
  @inlinable
  public func forEachAction(
    from: UInt64 = 0,
    through: UInt64? = nil,
    _ body: (TimedAction<D.Action>) throws(TraceError) -> Bool
  ) throws(TraceError) {
    try actionPipeline(
      from: from, through: through, window: max(ProcessInfo.processInfo.activeProcessorCount, 2)
    )
    .forEach(body)
  }

  /// Starts decoding the actions from sequence `from` on (through `through`, if given), at
  /// most `window` chunks ahead of the consumer, on other threads.
  @inlinable
  func actionPipeline(from: UInt64, through: UInt64?, window: Int) -> ActionPipeline {
    // From the first chunk with an action at or after `from` to the one holding `through`:
    // the chunks, then the journal (which `forEachChunk` numbers `chunks.count`).
    let chunks = reader.chunks
    /// The chunk that holds action `sequence`, or the journal.
    func chunk(holding sequence: UInt64) -> Int {
      chunks.firstIndex { $0.endSequence > sequence } ?? chunks.count
    }
    let firstChunk = chunk(holding: from)
    let endChunk = chunk(holding: through ?? .max) + 1
    return ActionPipeline(
      pipeline: ChunkPipeline(count: max(endChunk - firstChunk, 0), window: window) {
        [self] index in
        actions(ofChunk: firstChunk + index, from: from, through: through ?? .max)
      })
  }

  /// How many chunks ``state(at:)`` decodes ahead: the ones between the snapshot and the
  /// target, up to 16 (about 160,000 actions, some tens of megabytes while they wait).
  @usableFromInline static var seekWindow: Int { 16 }

  /// Decoded actions, chunk by chunk, in order (see ``actionPipeline(from:through:window:)``).
  @usableFromInline
  struct ActionPipeline {
    @usableFromInline let pipeline:
      ChunkPipeline<(actions: [TimedAction<D.Action>], error: TraceError?)>

    @usableFromInline
    init(pipeline: ChunkPipeline<(actions: [TimedAction<D.Action>], error: TraceError?)>) {
      self.pipeline = pipeline
    }

    /// Calls `body` with every action in order until it returns `false`, then stops the
    /// decoding.
    @inlinable
    func forEach(_ body: (TimedAction<D.Action>) throws(TraceError) -> Bool) throws(TraceError) {
      defer { pipeline.finish() }
      for index in 0..<pipeline.count {
        let (actions, error) = pipeline.take(index)
        for action in actions where try !body(action) { return }
        if let error { throw error }
      }
    }
  }

  /// The actions of chunk `index` (the journal for `reader.chunks.count`) from sequence
  /// `from` through `through`, and the error that stopped reading them part way, if one did.
  @inlinable
  func actions(ofChunk index: Int, from: UInt64, through: UInt64) -> (
    actions: [TimedAction<D.Action>], error: TraceError?
  ) {
    var actions: [TimedAction<D.Action>] = []
    do {
      try reader.forEachChunk(fromChunk: index, endChunk: index + 1) { records throws(TraceError) in
        actions.reserveCapacity(records.count)
        _ = try appendActions(of: records, from: from, through: through, to: &actions)
        return true
      }
    } catch {
      return (actions, error)
    }
    return (actions, nil)
  }

  /// Decodes the actions among `records` from sequence `from` through `through`, in order,
  /// onto `actions`; returns `false` when it stopped at `through` before the records'
  /// end.
  ///
  /// - Throws: ``TraceError`` for the first action that cannot be decoded, after appending
  ///   those before it.
  @inlinable
  func appendActions(
    of records: some Collection<TraceRecord>, from: UInt64, through: UInt64,
    to actions: inout [TimedAction<D.Action>]
  ) throws(TraceError) -> Bool {
    for record in records where record.kind == .action && record.sequence >= from {
      guard record.sequence <= through else { return false }
      actions.append(
        TimedAction(
          sequence: record.sequence, time: record.time ?? 0, action: try decodeAction(record)))
    }
    return true
  }

  /// Every action, in order.
  public func actions() throws(TraceError) -> [TimedAction<D.Action>] {
    // Not reserved from the chunk headers' counts: a crafted header claims gigabytes.
    var actions: [TimedAction<D.Action>] = []
    try forEachAction { action in
      actions.append(action)
      return true
    }
    return actions
  }

  /// The state the recording started from: the first snapshot.
  public func initialState() throws(TraceError) -> D.State {
    // The first chunk's, not a jump's at the same sequence number.
    guard let first = reader.chunks.firstIndex(where: { $0.startsWithSnapshot && !$0.isJump }),
      reader.chunks[first].firstSequence == reader.header.firstSequence + 1,
      let state = try snapshot(inChunk: first)
    else { return try state(at: reader.header.firstSequence) }
    return state
  }

  /// The state in the snapshot that starts chunk `chunk`, decoded; `nil` when the chunk
  /// does not start with one.
  ///
  /// - Throws: ``TraceError`` when the chunk or the state cannot be read.
  @inlinable
  public func snapshot(inChunk chunk: Int) throws(TraceError) -> D.State? {
    // Actions follow their snapshot's sequence number, so none is at or before it.
    try snapshotAndActions(inChunk: chunk, through: 0)?.state
  }

  /// The snapshot that starts chunk `chunk`, and the chunk's actions up to `through`, from
  /// one read of the chunk (a snapshot's chunk holds the whole state: tens of megabytes to
  /// decompress and check in a large trace); `nil` when the chunk does not start with a
  /// snapshot. An action that cannot be decoded ends the actions, with its error: it
  /// matters only to a target at or after it.
  @inlinable
  func snapshotAndActions(inChunk chunk: Int, through: UInt64) throws(TraceError)
    -> DecodedSnapshot<D.State, D.Action>?
  {
    var snapshot: D.State?
    var actions: [TimedAction<D.Action>] = []
    var failure: TraceError?
    var complete = true
    // The state is decoded as the chunk is parsed: that finds where it ends, for its hash,
    // in the same pass.
    var decoded: (value: D.State, count: Int)?
    let decodeState = { (bytes: UnsafeRawBufferPointer) -> Int? in
      decoded = CBORDecoder().decodePrefix(D.State.self, from: bytes)
      return decoded?.count
    }
    try reader.forEachChunk(fromChunk: chunk, endChunk: chunk + 1, decodingState: decodeState) {
      records throws(TraceError) in
      guard let first = records.first, first.kind == .snapshot || first.kind == .jump else {
        return false
      }
      // The decoded state, unless the record's payload is not what it was decoded from.
      if let decoded, decoded.count == first.payload.count {
        snapshot = decoded.value
      } else {
        snapshot = try first.decode(D.State.self)
      }
      do throws(TraceError) {
        complete = try appendActions(
          of: records.dropFirst(), from: 0, through: through, to: &actions)
      } catch {
        failure = error
      }
      return false
    }
    return snapshot.map {
      DecodedSnapshot(state: $0, actions: actions, complete: complete, error: failure)
    }
  }

  /// Throws unless `sequence` is one a state can be asked for: from the header's first
  /// sequence (the state before any recorded action) to ``TraceReader/lastSequence``, in a
  /// trace with a snapshot to start from.
  ///
  /// - Throws: ``TraceError`` with code ``TraceError/Code/outOfRange`` naming the valid range,
  ///   or ``TraceError/Code/corrupted`` when the trace has no snapshot at all (a session
  ///   ended before its first chunk was written, without its journal), so no state.
  @inlinable
  public func checkInRange(_ sequence: UInt64) throws(TraceError) {
    _ = try snapshotChunk(for: sequence)
  }

  /// The chunk whose snapshot the state after action `sequence` is replayed from: the last
  /// one at or before it. Checks `sequence` as ``checkInRange(_:)`` does.
  @inlinable
  func snapshotChunk(for sequence: UInt64) throws(TraceError) -> Int {
    let first = reader.header.firstSequence
    let last = reader.lastSequence
    guard reader.snapshotChunk(atOrBefore: last) != nil else { throw noStartingSnapshot }
    guard (first...last).contains(sequence) else {
      throw TraceError(
        .outOfRange, "out of range \(first)...\(last)", path: reader.path, sequence: sequence)
    }
    guard let chunk = reader.snapshotChunk(atOrBefore: sequence) else { throw noStartingSnapshot }
    return chunk
  }

  @usableFromInline
  var noStartingSnapshot: TraceError {
    TraceError(.corrupted, "the trace has no starting snapshot", path: reader.path)
  }

  /// The state after action `sequence`, replayed from the nearest snapshot before it.
  ///
  /// Snapshots decoded here are kept (see `cachedSnapshots` in ``init(_:domain:cachedSnapshots:)``),
  /// and so is the state answered last: a later call replays from whichever of the two is
  /// nearest before its target. Moving forward step by step, as a debugger does, replays only
  /// the actions in between. While a snapshot is decoded, the actions after it (up to
  /// `sequence`) are decoded on other threads, so that only reducing them is left once the
  /// snapshot is ready.
  ///
  /// - Parameter sequence: A sequence number from the header's first sequence (the state
  ///   before any recorded action) to ``TraceReader/lastSequence``.
  /// - Throws: ``TraceError`` with code ``TraceError/Code/outOfRange`` naming the valid range,
  ///   or a decoding error.
  @inlinable
  public func state(at sequence: UInt64) throws(TraceError) -> D.State {
    let chunk = try snapshotChunk(for: sequence)
    let snapshotSequence = reader.chunks[chunk].firstSequence - 1
    let afterChunk = reader.chunks[chunk].endSequence
    var snapshot = cache.snapshot(at: snapshotSequence)
    var start: (sequence: UInt64, state: D.State)
    var pipeline: ActionPipeline?
    if let last = cache.last(in: snapshotSequence...sequence) {
      start = last
    } else {
      // The actions after the snapshot's chunk are decoded on other threads while this one
      // decodes the snapshot and its chunk's actions (or takes them from the cache): both
      // take tens of milliseconds on a large trace. Up to `seekWindow` chunks ahead, a bound
      // on the memory they take meanwhile. Only when the target lies beyond
      // the chunk and its actions will all be at hand: a cached snapshot may hold only those
      // up to an earlier target.
      if afterChunk <= sequence, snapshot?.complete ?? true {
        pipeline = actionPipeline(from: afterChunk, through: sequence, window: Self.seekWindow)
      }
      if let snapshot {
        start = (snapshotSequence, snapshot.state)
      } else {
        let decoded: DecodedSnapshot<D.State, D.Action>
        do throws(TraceError) {
          guard let read = try snapshotAndActions(inChunk: chunk, through: sequence) else {
            throw TraceError(.corrupted, "the snapshot could not be read", path: reader.path)
          }
          decoded = read
        } catch {
          pipeline?.pipeline.finish()
          throw error
        }
        cache.keepSnapshot(decoded, at: snapshotSequence)
        snapshot = decoded
        start = (snapshotSequence, decoded.state)
      }
    }
    var state = start.state
    var reached = start.sequence
    // The snapshot's chunk's actions after `start` come from those decoded with the
    // snapshot (a state answered before may lie inside that chunk too).
    if let snapshot, reached < afterChunk {
      for action in snapshot.actions where action.sequence > reached {
        guard action.sequence <= sequence else { break }
        _ = domain.reduce(into: &state, action: action.action)
        reached = action.sequence
      }
      if reached < sequence, let error = snapshot.error {
        pipeline?.pipeline.finish()
        throw error
      }
    }
    // What is left (the rest of a partly decoded chunk, or the chunks after it) comes from
    // the pipeline, or from one started at `reached`.
    // (A pipeline started above always has work left: the target lies beyond the chunk.)
    if reached < sequence {
      let domain = self.domain
      try
        (pipeline ?? actionPipeline(from: reached + 1, through: sequence, window: Self.seekWindow))
        .forEach { action throws(TraceError) in
          _ = domain.reduce(into: &state, action: action.action)
          return true
        }
    }
    cache.keepLast(state, at: sequence)
    return state
  }
}

/// A decoding error's reason in a few words: a `DecodingError`'s own description and where
/// in the value it failed, rather than its whole dump.
func shortReason(_ error: any Error) -> String {
  guard let error = error as? DecodingError else { return "\(error)" }
  let context: DecodingError.Context
  switch error {
  case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c),
    .dataCorrupted(let c):
    context = c
  @unknown default: return "\(error)"
  }
  let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(
    separator: ".")
  return context.debugDescription + (path.isEmpty ? "" : " (at \(path))")
}

/// A trace read as a domain's session: the former name of ``TraceSession``.
@available(*, deprecated, renamed: "TraceSession")
public typealias DomainTrace<D: Domain> = TraceSession<D>
