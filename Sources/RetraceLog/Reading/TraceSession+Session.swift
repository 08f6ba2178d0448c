import Dispatch
import Foundation
import Retrace
import Synchronization

extension TraceSession: SessionSource {
  /// The trace file's path.
  public var path: String? { reader.path }

  /// The session's facts, from the header.
  public var info: SessionInfo {
    SessionInfo(reader.header)
  }

  /// The header's first sequence number: the state the recording starts from.
  public var startSequence: UInt64 { reader.header.firstSequence }

  /// The last intact action's sequence number.
  public var lastSequence: UInt64 { reader.lastSequence }

  /// The sequence numbers after which a time-travel jump set the state.
  public var jumpSequences: [UInt64] { reader.jumpSequences }

  /// What opening the trace found (and, after ``intactPart()``, every check).
  public var integrity: IntegrityReport { reader.integrityReport }

  /// The trace as far as it is intact by every check (`TraceReader.intactPart()`), read
  /// again from the file when it was opened from its index.
  ///
  /// - Throws: ``TraceError`` when the file cannot be read again.
  public func intactPart() throws(TraceError) -> TraceSession<D> {
    let whole =
      try reader.checkedEveryChunk ? reader : TraceReader(path: reader.path, key: reader.key)
    return try TraceSession(whole.intactPart(), domain: domain, cachedSnapshots: cache.capacity)
  }

  /// The whole session: every chunk decoded on all cores at once, then joined in order,
  /// followed by the records of an unfinished session's journal.
  ///
  /// Snapshots' states are not decoded, only their hashes (except the starting one);
  /// ``RecordedSession/loadSnapshotState`` decodes one on demand.
  ///
  /// - Throws: ``TraceError`` naming the position of a problem in the trace.
  public func session() throws(TraceError) -> RecordedSession<D> {
    try Self.readTrace(reader, domain: domain)
  }

  private static func readTrace(_ reader: TraceReader, domain: D) throws(TraceError)
    -> RecordedSession<D>
  {
    let trace = try TraceSession(reader, domain: domain)
    let header = reader.header

    // Chunks decode independently, so they are decoded on all cores at once (decoding the
    // actions is most of the cost of reading a trace), then joined in order, followed by
    // the records of an unfinished session's journal. The first chunk holds the starting
    // snapshot.
    let partCount = reader.chunks.count + 1  // the chunks, then the journal
    let results = Mutex<[Result<TracePart<D>, TraceError>?]>(
      Array(repeating: nil, count: partCount))
    DispatchQueue.concurrentPerform(iterations: partCount) { chunk in
      let result: Result<TracePart<D>, TraceError>
      do throws(TraceError) {
        result = .success(try readPart(trace, chunk: chunk))
      } catch {
        result = .failure(error)
      }
      results.withLock { $0[chunk] = result }
    }

    var start: (sequence: UInt64, state: D.State)?
    var actions: [TimedAction<D.Action>] = []
    var checkpoints: [Checkpoint] = []
    var snapshots: [Snapshot<D.State>] = []
    var jumps: [Snapshot<D.State>] = []
    let parts = results.withLock { $0 }
    actions.reserveCapacity(parts.reduce(0) { $0 + ((try? $1?.get())?.actions.count ?? 0) })
    for result in parts {
      guard let part = try result?.get() else { continue }
      if start == nil {
        guard let first = part.start else {
          throw TraceError(
            .corrupted, "the trace has no starting snapshot", sequence: part.actions.first?.sequence
          )
        }
        start = first
      }
      actions += part.actions
      checkpoints += part.checkpoints
      snapshots += part.snapshots
      jumps += part.jumps
    }
    guard let start else {
      throw TraceError(.corrupted, "the trace has no starting snapshot")
    }
    let info = SessionInfo(header)
    var session = RecordedSession<D>(
      info: info, startSequence: start.sequence, initialState: start.state, actions: actions,
      checkpoints: checkpoints, snapshots: snapshots, jumps: jumps)
    session.loadSnapshotState = { sequence in
      // The snapshot after action `sequence` starts the chunk whose first action is next
      // (a jump after the same action starts a later one).
      guard
        let chunk = reader.chunks.lastIndex(where: {
          $0.startsWithSnapshot && !$0.isJump && $0.firstSequence == sequence + 1
        })
      else { return nil }
      return try? trace.snapshot(inChunk: chunk)
    }
    return session
  }

  /// Reads the records of one chunk (or, for `chunk == chunks.count`, of the journal);
  /// decodes the state of a leading snapshot only in the first chunk, where the session
  /// starts.
  private static func readPart(
    _ trace: TraceSession<D>, chunk: Int
  ) throws(TraceError) -> TracePart<D> {
    let decodingStart = chunk == 0
    let reader = trace.reader
    var part = TracePart<D>()
    // The actions go to a local array, and whether the start is known to a flag: this code
    // runs for every domain unspecialized, and each use of `part` or of its optional tuple
    // for an action would look up the generic types' metadata again (13% of a replay).
    var actions: [TimedAction<D.Action>] = []
    if chunk < reader.chunks.count {
      actions.reserveCapacity(reader.chunks[chunk].actionCount)
    }
    var needsStart = decodingStart
    try reader.forEachChunk(fromChunk: chunk, endChunk: chunk + 1) { records throws(TraceError) in
      for record in records {
        switch record.kind {
        case .action:
          if needsStart {
            throw TraceError(
              .corrupted, "the trace has no starting snapshot", sequence: record.sequence)
          }
          actions.append(
            TimedAction(
              sequence: record.sequence, time: record.time ?? 0,
              action: try trace.decodeAction(record)))
        case .snapshot:
          if needsStart && actions.isEmpty {
            part.start = (record.sequence, try record.decode(D.State.self))
            needsStart = false
          }
          part.snapshots.append(
            Snapshot(sequence: record.sequence, hash: record.hash?.rawValue ?? 0, state: nil))
        case .jump:
          part.jumps.append(
            Snapshot(
              sequence: record.sequence, hash: record.hash?.rawValue ?? 0,
              state: try record.decode(D.State.self)))
        case .checkpoint:
          part.checkpoints.append(
            Checkpoint(sequence: record.sequence, hash: record.hash?.rawValue ?? 0))
        case .end:
          break
        }
      }
      return true
    }
    part.actions = actions
    return part
  }
}

/// The records read from one chunk of a trace (or from its journal).
private struct TracePart<D: Domain>: Sendable {
  var start: (sequence: UInt64, state: D.State)?
  var actions: [TimedAction<D.Action>] = []
  var checkpoints: [Checkpoint] = []
  var snapshots: [Snapshot<D.State>] = []
  var jumps: [Snapshot<D.State>] = []
}

extension TraceReader {
  /// ``integrity`` in the form tools print, with the number of intact actions.
  public var integrityReport: IntegrityReport {
    let integrity = self.integrity
    let status: IntegrityReport.Status =
      switch integrity.status {
      case .clean: .clean
      case .unfinished: .unfinished
      case .truncated: .truncated
      case .damaged: .damaged
      }
    var report = IntegrityReport(
      status: status, intactActions: actionCount, problem: integrity.damage?.message,
      offset: integrity.damage?.offset,
      sequence: integrity.damage.map { _ in lastSequence + 1 })
    report.recoveredActions = integrity.recoveredActions
    if integrity.isInJournal { report.file = integrity.damage?.path }
    return report
  }
}
