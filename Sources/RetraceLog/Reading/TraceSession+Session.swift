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
    //
    // Each part decodes its actions straight into their place in the session's one array:
    // a chunk's place holds as many as its header says, the journal's its action records.
    // Joining the parts' own arrays copied every action once more, destroyed the copies
    // through the domain's value witnesses (this code is not specialized for the domain),
    // and held both at once: 7% of `replay --verify` on 1,000,000 banking actions, and
    // 30-60 MiB of its peak.
    let partCount = reader.chunks.count + 1  // the chunks, then the journal
    var starts: [Int] = []
    starts.reserveCapacity(partCount + 1)
    var total = 0
    for chunk in reader.chunks {
      starts.append(total)
      total += chunk.actionCount
    }
    starts.append(total)
    total += reader.journal.reduce(0) { $0 + ($1.kind == .action ? 1 : 0) }
    starts.append(total)
    // A header's count is a claim until its chunk is read, and a crafted one claims a
    // billion actions: room for actions that would take more than half this machine's
    // memory is not asked for (the allocation would stop the process), and room asked for
    // is touched only by the actions decoded into it.
    let stride = UInt64(MemoryLayout<TimedAction<D.Action>>.stride)
    guard UInt64(total) <= ProcessInfo.processInfo.physicalMemory / 2 / stride else {
      throw TraceError(
        .tooLarge,
        "the chunks' headers claim \(total) actions, more than half this machine's memory holds",
        path: reader.path)
    }
    let places = starts
    let results = Mutex<[Result<TracePart<D>, TraceError>?]>(
      Array(repeating: nil, count: partCount))
    var failure: TraceError?
    var start: (sequence: UInt64, state: D.State)?
    var checkpoints: [Checkpoint] = []
    var snapshots: [Snapshot<D.State>] = []
    var jumps: [Snapshot<D.State>] = []
    let actions = [TimedAction<D.Action>](unsafeUninitializedCapacity: total) {
      buffer, initialized in
      // Each part writes only its own place, and every write is done when
      // `concurrentPerform` returns.
      nonisolated(unsafe) let base = buffer.baseAddress
      DispatchQueue.concurrentPerform(iterations: partCount) { chunk in
        let place = UnsafeMutableBufferPointer(
          start: base.map { $0 + places[chunk] }, count: places[chunk + 1] - places[chunk])
        let result: Result<TracePart<D>, TraceError>
        do throws(TraceError) {
          result = .success(try readPart(trace, chunk: chunk, into: place))
        } catch {
          result = .failure(error)
        }
        results.withLock { $0[chunk] = result }
      }
      let parts = results.withLock { $0 }
      // The first failure in order is the answer; a part that failed has destroyed what it
      // wrote, and the others' actions are destroyed here.
      for result in parts {
        guard case .success(let part)? = result else {
          if case .failure(let error)? = result { failure = error }
          break
        }
        if start == nil {
          guard let first = part.start else {
            failure = TraceError(
              .corrupted, "the trace has no starting snapshot", sequence: part.firstSequence)
            break
          }
          start = first
        }
        checkpoints += part.checkpoints
        snapshots += part.snapshots
        jumps += part.jumps
      }
      if failure != nil {
        for (chunk, result) in parts.enumerated() {
          guard case .success = result else { continue }
          buffer.extracting(places[chunk]..<places[chunk + 1]).deinitialize()
        }
        initialized = 0
      } else {
        initialized = total
      }
    }
    if let failure { throw failure }
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

  /// Reads the records of one chunk (or, for `chunk == chunks.count`, of the journal),
  /// initializing `place` with its actions, exactly as many as it has room for; decodes the
  /// state of a leading snapshot only in the first chunk, where the session starts.
  ///
  /// - Throws: ``TraceError`` for a problem in the chunk, or for more or fewer actions than
  ///   `place` holds, after destroying the actions it wrote.
  private static func readPart(
    _ trace: TraceSession<D>, chunk: Int,
    into place: UnsafeMutableBufferPointer<TimedAction<D.Action>>
  ) throws(TraceError) -> TracePart<D> {
    let decodingStart = chunk == 0
    let reader = trace.reader
    var part = TracePart<D>()
    // The actions' count is kept in a local, and whether the start is known in a flag: this
    // code runs for every domain unspecialized, and each use of `part` or of its optional
    // tuple for an action would look up the generic types' metadata again (13% of a replay).
    var written = 0
    var needsStart = decodingStart
    do throws(TraceError) {
      try reader.forEachChunk(fromChunk: chunk, endChunk: chunk + 1) { records throws(TraceError) in
        for record in records {
          switch record.kind {
          case .action:
            if needsStart {
              throw TraceError(
                .corrupted, "the trace has no starting snapshot", sequence: record.sequence)
            }
            // More actions than the header says: the parse refuses the chunk once these
            // records are handed over, naming where; until then they are not decoded.
            guard written < place.count else { continue }
            let action = try trace.decodeAction(record)
            place.initializeElement(
              at: written,
              to: TimedAction(sequence: record.sequence, time: record.time ?? 0, action: action))
            written += 1
          case .snapshot:
            if needsStart && written == 0 {
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
      guard written == place.count else {
        throw TraceError(
          .corrupted, "\(written) actions where the chunk's header says \(place.count)",
          path: reader.path, chunk: chunk < reader.chunks.count ? chunk : nil)
      }
    } catch {
      place.extracting(0..<written).deinitialize()
      throw error
    }
    part.firstSequence = written > 0 ? place[0].sequence : nil
    return part
  }
}

/// The records read from one chunk of a trace (or from its journal).
private struct TracePart<D: Domain>: Sendable {
  var start: (sequence: UInt64, state: D.State)?
  /// The first action's sequence number; the actions are in the session's array.
  var firstSequence: UInt64?
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
