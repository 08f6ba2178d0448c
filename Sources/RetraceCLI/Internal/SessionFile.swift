import Dispatch
import Foundation
import Retrace
import RetraceDebugger
import RetraceLog
import Synchronization

/// A session file opened for reading: a trace (`RetraceLog`), or JSON Lines (the format of
/// `retrace export`). The one place where the commands read and write session files.
///
/// The format is told by the file's first bytes, not its name: a trace starts with a zstd
/// skippable frame, JSON Lines with `{`. A trace that is truncated or damaged is read up to
/// the damage, with a warning on stderr; a JSON Lines file with a bad line is refused, naming
/// the line.
struct SessionFile {
  /// What the file holds.
  enum Content {
    case trace(TraceReader)
    case jsonLines(Data, JSONLines.Header)
  }

  /// The file's path, as given.
  let path: String
  /// The opened file.
  let content: Content

  /// Opens the file at `path` and reads its header (a trace: also its index and checksums).
  ///
  /// With `usingIndex`, a cleanly closed trace is opened from its index: its chunks are read
  /// (and their checksums checked) only when needed, which is what reading one state wants
  /// (`TraceReader.init(path:readJournal:usingIndex:)`).
  ///
  /// - Throws: ``DebuggerError``: ``DebuggerError/Code/notFound``, ``DebuggerError/Code/io``,
  ///   ``DebuggerError/Code/notATrace``.
  static func open(_ path: String, usingIndex: Bool = false) throws(DebuggerError) -> SessionFile {
    if try startsWithJSON(path) {
      let data = try readData(path)
      return SessionFile(
        path: path, content: .jsonLines(data, try JSONLines.readHeader(from: data, path: path)))
    }
    do {
      // By path: the reader also folds in an unfinished session's journal.
      return SessionFile(
        path: path, content: .trace(try TraceReader(path: path, usingIndex: usingIndex)))
    } catch {
      throw Self.converting(error, path: path)
    }
  }

  /// The file as far as it is intact by every check any reader makes
  /// (`TraceReader.intactPart()`): what `verify`, `info` and `replay --verify` read, so
  /// that a chunk whose zstd frame or records are wrong counts as damage there, as a
  /// chunk whose checksum is wrong does. JSON Lines are checked line by line when read.
  func checked() -> SessionFile {
    guard case .trace(let reader) = content else { return self }
    return SessionFile(path: path, content: .trace(reader.intactPart()))
  }

  /// The file's integrity as ``checked()`` finds it, in the form the commands print.
  var traceIntegrity: IntegrityReport? {
    guard case .trace(let reader) = content else { return nil }
    return Self.integrity(of: reader)
  }

  /// Whether the file's first byte other than white space is `{`: JSON Lines. Reads only
  /// as far as that byte (a trace is read once, by ``TraceReader``, not twice).
  ///
  /// - Throws: ``DebuggerError``: ``DebuggerError/Code/notFound``, ``DebuggerError/Code/io``.
  private static func startsWithJSON(_ path: String) throws(DebuggerError) -> Bool {
    try checkRegularFile(path)
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw DebuggerError(.io, "cannot read the file", path: path)
    }
    defer { try? handle.close() }
    while true {
      let bytes: Data?
      do {
        bytes = try handle.read(upToCount: 4096)
      } catch {
        throw DebuggerError(.io, "cannot read the file: \(error.localizedDescription)", path: path)
      }
      guard let bytes, !bytes.isEmpty else { return false }
      if let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) {
        return first == UInt8(ascii: "{")
      }
    }
  }

  /// Throws unless `path` names a regular file: not a directory, and not a device or a pipe,
  /// which the reader would wait on or read differently on a second open.
  private static func checkRegularFile(_ path: String) throws(DebuggerError) {
    var status = stat()
    guard stat(path, &status) == 0 else {
      throw errno == ENOENT
        ? DebuggerError(.notFound, "no such file", path: path)
        : DebuggerError(
          .io, "cannot read the file: \(String(cString: strerror(errno)))", path: path)
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: return
    case S_IFDIR: throw DebuggerError(.io, "is a directory, not a trace", path: path)
    default: throw DebuggerError(.io, "not a regular file", path: path)
    }
  }

  /// The file's bytes.
  static func readData(_ path: String) throws(DebuggerError) -> Data {
    try checkRegularFile(path)
    do {
      return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
    } catch {
      throw DebuggerError(.io, "cannot read the file: \(error.localizedDescription)", path: path)
    }
  }

  /// `trace` or `jsonl`.
  var format: String {
    switch content {
    case .trace: "trace"
    case .jsonLines: "jsonl"
    }
  }

  /// The domain name in the header.
  var domainName: String {
    switch content {
    case .trace(let reader): reader.header.domain
    case .jsonLines(_, let header): header.domain
    }
  }

  /// The registered domain the header names.
  ///
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/unknownDomain``) naming the file.
  func domain() throws(DebuggerError) -> any Domain {
    do {
      return try CommandContext.registry.domain(named: domainName)
    } catch {
      throw error.at(path: path)
    }
  }

  // MARK: - Reading sessions

  /// Reads the whole session as `domain`'s actions.
  ///
  /// Snapshots' states are not decoded, only their hashes; ``RecordedSession/loadSnapshotState``
  /// decodes one on demand. A truncated or damaged trace gives its intact part, after a
  /// warning on stderr.
  ///
  /// - Throws: ``DebuggerError`` naming the file and the position of the problem.
  func load<D: Domain>(as domain: D) throws(DebuggerError) -> RecordedSession<D> {
    switch content {
    case .jsonLines(let data, _):
      return try JSONLines.readSession(from: data, domain: domain, path: path)
    case .trace(let reader):
      warnIfNotIntact(reader)
      return try reading(reader) { reader throws(TraceError) in
        try Self.readTrace(reader, domain: domain)
      }
    }
  }

  /// The state after action `sequence` (the last action when `nil`), that sequence number,
  /// and the session's last.
  ///
  /// A trace is not loaded whole: the state comes from the nearest snapshot before
  /// `sequence`, with the actions after it decoded on other threads while the snapshot
  /// decodes (`DomainTrace.state(at:)`). JSON Lines is loaded and replayed.
  ///
  /// - Throws: ``DebuggerError`` naming the file: ``DebuggerError/Code/outOfRange`` with the
  ///   valid range, or the position of a problem in the file.
  func state<D: Domain>(as domain: D, at sequence: UInt64?) throws(DebuggerError)
    -> (sequence: UInt64, last: UInt64, state: D.State)
  {
    guard case .trace(let reader) = content else {
      let debugger = try debugger(as: domain)
      let last = debugger.session.endSequence
      let target = sequence ?? last
      do {
        return (target, last, try debugger.state(at: target))
      } catch {
        throw error.at(path: path)
      }
    }
    warnIfNotIntact(reader)
    return try reading(reader) { reader throws(TraceError) in
      let target = sequence ?? reader.lastSequence
      return (
        target, reader.lastSequence,
        try DomainTrace(reader, domain: domain, cachedSnapshots: 1).state(at: target)
      )
    }
  }

  /// The states after actions `from` and `to`: what `diff --from --to` compares.
  ///
  /// A trace is not loaded whole: each state comes from the nearest snapshot before it
  /// (``state(as:at:)``), the one after `to` by replaying on from the state after `from`
  /// when no snapshot lies between (`DomainTrace.state(at:)` keeps its last answer).
  ///
  /// - Throws: ``DebuggerError`` naming the file: ``DebuggerError/Code/outOfRange`` with the
  ///   valid range, or the position of a problem in the file.
  func states<D: Domain>(as domain: D, from: UInt64?, to: UInt64?) throws(DebuggerError)
    -> (from: UInt64, to: UInt64, old: D.State, new: D.State)
  {
    guard case .trace(let reader) = content else {
      let debugger = try debugger(as: domain)
      let (from, to) = (from ?? debugger.session.startSequence, to ?? debugger.session.endSequence)
      do {
        let (old, new) = try debugger.states(from: from, to: to)
        return (from, to, old, new)
      } catch {
        throw error.at(path: path)
      }
    }
    warnIfNotIntact(reader)
    return try reading(reader) { reader throws(TraceError) in
      let (from, to) = (from ?? reader.header.firstSequence, to ?? reader.lastSequence)
      let trace = try DomainTrace(reader, domain: domain, cachedSnapshots: 1)
      // Both bounds before any decoding, in the order `Debugger` checks them.
      try trace.checkInRange(from)
      try trace.checkInRange(to)
      let old = try trace.state(at: from)
      // `state(at:)` goes on from its last answer when no snapshot lies between.
      return (from, to, old, to == from ? old : try trace.state(at: to))
    }
  }

  /// The actions from sequence number `from` through `through` (by default, the first and
  /// the last), to go through in order with ``Actions/forEach(_:)``: what `log` prints.
  ///
  /// A trace is not loaded whole: only the chunks that hold those actions are read (from its
  /// index, when `open` was asked to use it), and decoded ahead on other threads.
  ///
  /// - Throws: ``DebuggerError`` naming the file: ``DebuggerError/Code/outOfRange`` with the
  ///   valid range, or (JSON Lines, read here whole) the problem in the file.
  func actions<D: Domain>(as domain: D, from: UInt64?, through: UInt64?) throws(DebuggerError)
    -> Actions<D>
  {
    /// The sequence numbers to read, checked against those of the session's first and last
    /// actions (`nil` when it has none).
    func range(first: UInt64, last: UInt64?) throws(DebuggerError) -> ClosedRange<UInt64>? {
      let valid = first...max(first, last ?? first)
      for bound in [from, through].compactMap({ $0 }) where !valid.contains(bound) {
        throw DebuggerError(
          .outOfRange, "out of range \(valid.lowerBound)...\(valid.upperBound)", path: path,
          sequence: bound)
      }
      return last.map { (from ?? first)...(through ?? $0) }
    }
    switch content {
    case .jsonLines:
      let session = try load(as: domain)
      let first = session.startSequence + (session.actions.isEmpty ? 0 : 1)
      let last = session.actions.isEmpty ? nil : session.endSequence
      return Actions(
        range: try range(first: first, last: last), last: session.endSequence,
        source: .session(session))
    case .trace(let reader):
      warnIfNotIntact(reader)
      let last = reader.actionCount == 0 ? nil : reader.lastSequence
      let first = reader.firstSequence - (last == nil ? 1 : 0)
      return Actions(
        range: try range(first: first, last: last), last: reader.lastSequence,
        source: .trace(self, reader, domain))
    }
  }

  /// Actions of a session, from ``actions(as:from:through:)``.
  struct Actions<D: Domain> {
    /// The sequence numbers of the actions; `nil` when the session has none.
    let range: ClosedRange<UInt64>?
    /// The sequence number of the session's last action.
    let last: UInt64
    fileprivate let source: Source

    fileprivate enum Source {
      case session(RecordedSession<D>)
      case trace(SessionFile, TraceReader, D)
    }

    /// Calls `body` with each action, in order.
    ///
    /// - Throws: ``DebuggerError`` naming the file and the position of a problem in it, after
    ///   `body` has seen the actions before it; or what `body` throws.
    func forEach(_ body: (TimedAction<D.Action>) throws(DebuggerError) -> Void)
      throws(DebuggerError)
    {
      guard let range else { return }
      switch source {
      case .session(let session):
        for sequence in range {
          if let action = session.action(at: sequence) { try body(action) }
        }
      case .trace(let file, let reader, let domain):
        // Where to go on from, should the trace have to be read again (see `reading`).
        var next = range.lowerBound
        var failure: DebuggerError?
        try file.reading(reader) { reader throws(TraceError) in
          let trace = try DomainTrace(reader, domain: domain, cachedSnapshots: 0)
          try trace.forEachAction(from: next, through: range.upperBound) {
            action throws(TraceError) in
            do throws(DebuggerError) {
              try body(action)
            } catch {
              failure = error
              return false
            }
            next = action.sequence + 1
            return true
          }
        }
        if let failure { throw failure }
      }
    }
  }

  /// Runs `read` on a trace's reader.
  ///
  /// Opening checks a trace's framing and checksums; a chunk's zstd frame and records are
  /// checked when they are read (and a trace opened from its index has its chunks'
  /// checksums checked then too), so damage can turn up in the middle of `read`. It is then
  /// handled as opening finds damage: the trace is read as far as it is intact by every
  /// check (`TraceReader.intactPart()`), with a warning on stderr that says where the
  /// damage is, and `read` runs again on that; so it must be able to go on from where it
  /// stopped.
  private func reading<T>(_ reader: TraceReader, _ read: (TraceReader) throws(TraceError) -> T)
    throws(DebuggerError) -> T
  {
    do {
      return try read(reader)
    } catch {
      guard error.chunk != nil, error.code == .corrupted || error.code == .truncated else {
        throw Self.converting(error, path: path)
      }
      do {
        let whole = try (reader.checkedEveryChunk ? reader : TraceReader(path: path)).intactPart()
        warnIfNotIntact(whole)
        return try read(whole)
      } catch {
        throw Self.converting(error, path: path)
      }
    }
  }

  private static func readTrace<D: Domain>(_ reader: TraceReader, domain: D) throws(TraceError)
    -> RecordedSession<D>
  {
    let trace = try DomainTrace(reader, domain: domain)
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
    }
    guard let start else {
      throw TraceError(.corrupted, "the trace has no starting snapshot")
    }
    let info = SessionInfo(
      domain: header.domain, actionSchemaVersion: header.actionSchemaVersion,
      sessionID: header.sessionID,
      startTime: header.startTime, producer: header.producer)
    var session = RecordedSession<D>(
      info: info, startSequence: start.sequence, initialState: start.state, actions: actions,
      checkpoints: checkpoints, snapshots: snapshots)
    session.loadSnapshotState = { sequence in
      // The snapshot after action `sequence` starts the chunk whose first action is next.
      guard let chunk = reader.snapshotChunk(atOrBefore: sequence),
        reader.chunks[chunk].firstSequence == sequence + 1
      else { return nil }
      return try? trace.snapshot(inChunk: chunk)
    }
    return session
  }

  /// Reads the records of one chunk (or, for `chunk == chunks.count`, of the journal);
  /// decodes the state of a leading snapshot only in the first chunk, where the session
  /// starts.
  private static func readPart<D: Domain>(
    _ trace: DomainTrace<D>, chunk: Int
  ) throws(TraceError) -> TracePart<D> {
    let decodingStart = chunk == 0
    let reader = trace.reader
    var part = TracePart<D>()
    if chunk < reader.chunks.count {
      part.actions.reserveCapacity(reader.chunks[chunk].actionCount)
    }
    try reader.forEachChunk(fromChunk: chunk, endChunk: chunk + 1) { records throws(TraceError) in
      for record in records {
        switch record.kind {
        case .snapshot:
          if decodingStart && part.start == nil && part.actions.isEmpty {
            part.start = (record.sequence, try record.decode(D.State.self))
          }
          part.snapshots.append(
            Snapshot(sequence: record.sequence, hash: record.hash?.rawValue ?? 0, state: nil))
        case .checkpoint:
          part.checkpoints.append(
            Checkpoint(sequence: record.sequence, hash: record.hash?.rawValue ?? 0))
        case .action:
          if decodingStart && part.start == nil {
            throw TraceError(
              .corrupted, "the trace has no starting snapshot", sequence: record.sequence)
          }
          part.actions.append(
            TimedAction(
              sequence: record.sequence, time: record.time ?? 0,
              action: try trace.decodeAction(record)))
        case .end:
          break
        }
      }
      return true
    }
    return part
  }

  /// A debugger for the session, hashing states as the recorder did.
  func debugger<D: Domain>(as domain: D) throws(DebuggerError) -> Debugger<D> {
    Debugger(domain: domain, session: try load(as: domain))
  }

  /// The files already warned about: a command that reads a file twice (`diff a a`,
  /// `bench`) warns once.
  private static let warned = Mutex<Set<String>>([])

  /// Writes one line on stderr when a trace is not whole: the commands go on with the intact
  /// part.
  private func warnIfNotIntact(_ reader: TraceReader) {
    let integrity = reader.integrity
    guard integrity.status == .truncated || integrity.status == .damaged else { return }
    guard Self.warned.withLock({ $0.insert(path).inserted }) else { return }
    Terminal.writeError(
      Terminal.oneLine(
        "\(CommandContext.name): warning: \(path): \(integrity.description); using the \(reader.actionCount) intact actions"
      ))
  }

  // MARK: - Describing files

  /// What `info` and `verify` report about a file, read without decoding actions or states.
  struct Summary {
    var info: SessionInfo
    var format: String
    var bytes: Int
    var blocks: Int?
    var firstSequence: UInt64
    var lastSequence: UInt64
    var actionCount: Int
    var caseCounts: [(name: String, count: Int)]
    var firstTime: Double?
    var lastTime: Double?
    var snapshots: Int
    var checkpoints: Int
    var integrity: IntegrityReport

    var duration: Double {
      guard let firstTime, let lastTime else { return 0 }
      return lastTime - firstTime
    }
  }

  /// Describes the file. A trace needs no domain (its case names are read from the encoded
  /// actions); JSON Lines is decoded with its registered domain.
  ///
  /// - Throws: ``DebuggerError`` when the file cannot be read at all.
  func summary() throws(DebuggerError) -> Summary {
    switch content {
    case .trace(let reader):
      do {
        return try Self.summarize(reader.intactPart(), order: (try? domain())?.actionCases ?? [])
      } catch {
        throw Self.converting(error, path: path)
      }
    case .jsonLines(let data, _):
      return try summarizeJSONLines(data, domain: try domain())
    }
  }

  /// The integrity of the file by every check (``checked()``), for `verify`.
  func integrity() throws(DebuggerError) -> IntegrityReport {
    switch content {
    case .trace(let reader): Self.integrity(of: reader.intactPart())
    case .jsonLines: try summary().integrity
    }
  }

  private static func summarize(_ reader: TraceReader, order: [String]) throws(TraceError)
    -> Summary
  {
    var counts: [String: Int] = [:]
    var appearance: [String] = []
    var firstTime: Double?
    var lastTime: Double?
    var snapshots = 0
    try reader.forEachRecord { record throws(TraceError) in
      switch record.kind {
      case .action:
        let name = record.actionCase ?? "?"
        if counts[name] == nil { appearance.append(name) }
        counts[name, default: 0] += 1
        if firstTime == nil { firstTime = record.time }
        lastTime = record.time
      case .snapshot:
        snapshots += 1
      case .checkpoint, .end:
        break
      }
      return true
    }
    let names = order.filter { counts[$0] != nil } + appearance.filter { !order.contains($0) }
    let header = reader.header
    return Summary(
      info: SessionInfo(
        domain: header.domain, actionSchemaVersion: header.actionSchemaVersion,
        sessionID: header.sessionID,
        startTime: header.startTime, producer: header.producer),
      format: "trace", bytes: reader.fileSize, blocks: reader.chunks.count,
      firstSequence: reader.firstSequence,
      lastSequence: reader.lastSequence, actionCount: reader.actionCount,
      caseCounts: names.map { ($0, counts[$0]!) }, firstTime: firstTime, lastTime: lastTime,
      snapshots: snapshots,
      checkpoints: reader.checkpointCount, integrity: integrity(of: reader))
  }

  private static func integrity(of reader: TraceReader) -> IntegrityReport {
    let integrity = reader.integrity
    let status: IntegrityReport.Status =
      switch integrity.status {
      case .clean: .clean
      case .unfinished: .unfinished
      case .truncated: .truncated
      case .damaged: .damaged
      }
    var report = IntegrityReport(
      status: status, intactActions: reader.actionCount, problem: integrity.damage?.message,
      offset: integrity.damage?.offset,
      sequence: integrity.damage.map { _ in reader.lastSequence + 1 })
    report.recoveredActions = integrity.recoveredActions
    return report
  }

  private func summarizeJSONLines<D: Domain>(_ data: Data, domain: D) throws(DebuggerError)
    -> Summary
  {
    let (session, damage) = try JSONLines.readIntactPrefix(from: data, domain: domain, path: path)
    let integrity: IntegrityReport
    if let damage {
      integrity = IntegrityReport(
        status: damage.isTruncation ? .truncated : .damaged, intactActions: session.actions.count,
        problem: damage.error.message, line: damage.error.line, sequence: session.endSequence + 1)
    } else {
      integrity = IntegrityReport(status: .clean, intactActions: session.actions.count)
    }
    return Summary(
      info: session.info, format: "jsonl", bytes: data.count, blocks: nil,
      firstSequence: session.startSequence + 1, lastSequence: session.endSequence,
      actionCount: session.actions.count,
      caseCounts: session.actionCaseCounts(order: domain.actionCases),
      firstTime: session.actions.first?.time,
      lastTime: session.actions.last?.time, snapshots: 0, checkpoints: 0, integrity: integrity)
  }

  // MARK: - Writing sessions

  /// Writes `session` to `path`, replacing any file there: as JSON Lines when the name ends
  /// in `.jsonl`, otherwise as a trace through the real recorder, replaying the actions
  /// through `domain`'s reducer so that the trace gets its checkpoints and snapshots.
  ///
  /// - Parameters:
  ///   - session: The session to write.
  ///   - domain: Its domain.
  ///   - path: The file to write.
  ///   - actionSchema: An older action schema version to write the trace's actions in (with
  ///     the domain's ``Domain/legacyEncoding(of:schemaVersion:)``), as an older release of
  ///     the app recorded them; `nil` for the current one. Traces only.
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/io``) when the file cannot be written,
  ///   ``DebuggerError/Code/outOfRange`` when the domain cannot write `actionSchema`.
  static func write<D: Domain>(
    _ session: RecordedSession<D>, domain: D, to path: String, actionSchema: Int? = nil
  ) throws(DebuggerError) {
    if let version = actionSchema, version != domain.actionSchemaVersion {
      precondition(
        !path.hasSuffix(".jsonl"), "JSON Lines are written in the current action schema only")
      let unwritable = DebuggerError(
        .outOfRange,
        "domain \(domain.name) cannot write action schema version \(version) (its current version is \(domain.actionSchemaVersion))",
        path: path)
      guard version < domain.actionSchemaVersion,
        session.actions.first.map({
          domain.legacyEncoding(of: $0.action, schemaVersion: version) != nil
        }) ?? true
      else { throw unwritable }
      try OutputFile.replace(path) { file throws(DebuggerError) in
        do throws(TraceError) {
          try writeTrace(session, domain: domain, schemaVersion: version, to: file) { action in
            LegacyAction(domain.legacyEncoding(of: action, schemaVersion: version)!)
          }
        } catch {
          throw converting(error, path: path)
        }
      }
    } else if path.hasSuffix(".jsonl") {
      try writeJSONLines(session, domain: domain, to: path)
    } else {
      try OutputFile.replace(path) { file throws(DebuggerError) in
        do throws(TraceError) {
          try writeTrace(
            session, domain: domain, schemaVersion: domain.actionSchemaVersion, to: file
          ) { $0 }
        } catch {
          throw converting(error, path: path)
        }
      }
    }
  }

  private static func writeTrace<D: Domain, Recorded: Codable & Sendable>(
    _ session: RecordedSession<D>, domain: D, schemaVersion: Int, to path: String,
    recording: (D.Action) -> Recorded
  ) throws(TraceError) {
    var configuration = TraceRecorderConfiguration()
    configuration.reproducibleCheckpoints = true
    // Nothing may be dropped: the loop below waits for the writer every `batch` actions, so
    // the queue never holds more than that.
    let batch = 1 << 18
    configuration.maxPendingActions = max(configuration.maxPendingActions, batch * 2)
    let recorder = try TraceRecorder<D.State, Recorded>(
      path: path, domain: domain.name, actionSchemaVersion: schemaVersion,
      sessionID: session.info.sessionID,
      startTime: session.info.startTime, configuration: configuration)
    recorder.attached(sequence: session.startSequence, state: session.initialState)
    var state = session.initialState
    for (index, action) in session.actions.enumerated() {
      _ = domain.reduce(into: &state, action: action.action)
      recorder.record(
        Transition(
          sequence: action.sequence, time: action.time, action: recording(action.action),
          stateBefore: nil,
          stateAfter: state))
      if index % batch == batch - 1 { try recorder.flush() }
    }
    // The last actions are covered by a hash, as a store's recorder covers them at close.
    recorder.checkpoint(state: state, after: session.endSequence)
    try recorder.close()
    guard recorder.droppedActionCount == 0 else {
      throw TraceError(
        .io, "the recorder dropped \(recorder.droppedActionCount) actions", path: path)
    }
  }

  private static func writeJSONLines<D: Domain>(
    _ session: RecordedSession<D>, domain: D, to path: String
  )
    throws(DebuggerError)
  {
    do {
      var text = try JSONLines.headerLine(for: session, domain: domain) + "\n"
      let writer = JSONLines.ActionWriter<D.Action>()
      for action in session.actions {
        text += try writer.line(for: action)
        text += "\n"
      }
      try writeText(text, to: path)
    } catch let error as DebuggerError {
      throw error
    } catch {
      throw DebuggerError(.io, "cannot encode the session: \(error)", path: path)
    }
  }

  /// Writes text to `path` (see ``OutputFile``), or to stdout when `path` is `nil` or `-`.
  ///
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/io``) when the file cannot be written.
  static func writeText(_ text: String, to path: String?) throws(DebuggerError) {
    guard let path, path != "-" else {
      print(text, terminator: "")
      return
    }
    try OutputFile.writeText(Array(text.utf8), to: path)
  }

  // MARK: - Errors

  /// The engine's error for a trace error: the same position, code and message.
  static func converting(_ error: TraceError, path: String) -> DebuggerError {
    let code: DebuggerError.Code =
      switch error.code {
      case .notFound: .notFound
      case .io, .closed: .io
      case .notATrace: .notATrace
      case .unsupportedVersion: .unsupportedVersion
      case .truncated, .corrupted, .tooLarge: .damaged
      case .undecodable: .undecodable
      case .wrongDomain: .domainMismatch
      case .outOfRange: .outOfRange
      }
    let message = error.chunk.map { "\(error.message) (chunk \($0))" } ?? error.message
    return DebuggerError(
      code, message, path: error.path ?? path, offset: error.offset, sequence: error.sequence,
      cause: error)
  }
}

/// An action already in an older schema's shape, for the recorder: it encodes exactly as the
/// domain's legacy encoding does. Written only, never read back.
private struct LegacyAction: Codable, Sendable {
  let base: any Encodable & Sendable

  init(_ base: any Encodable & Sendable) {
    self.base = base
  }

  init(from decoder: any Decoder) throws {
    throw DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: decoder.codingPath, debugDescription: "a legacy action is only written"))
  }

  func encode(to encoder: any Encoder) throws {
    try base.encode(to: encoder)
  }
}

/// The records read from one chunk of a trace (or from its journal).
private struct TracePart<D: Domain>: Sendable {
  var start: (sequence: UInt64, state: D.State)?
  var actions: [TimedAction<D.Action>] = []
  var checkpoints: [Checkpoint] = []
  var snapshots: [Snapshot<D.State>] = []
}
