import Foundation
import Retrace
import RetraceLog
import Synchronization

/// A session file opened for reading: a trace (`RetraceLog`), or JSON Lines (the format of
/// `retrace export`). It tells the format by the file's first bytes, not its name (a trace
/// starts with a zstd skippable frame, JSON Lines with `{`), and gives the session as a
/// `SessionSource`, through which the commands read either format the same way.
///
/// A trace that is truncated or damaged is read up to the damage, with a warning on stderr;
/// a JSON Lines file with a bad line is refused, naming the line.
package struct SessionFile: Sendable {
  /// What the file holds.
  package enum Content: Sendable {
    case trace(TraceReader)
    case jsonLines(Data, JSONLines.Header)
  }

  /// The file's path, as given.
  package let path: String
  /// The opened file.
  package let content: Content

  /// Opens the file at `path` and reads its header (a trace: also its index and checksums).
  ///
  /// With `usingIndex`, a cleanly closed trace is opened from its index: its chunks are read
  /// (and their checksums checked) only when needed, which is what reading one state wants
  /// (`TraceReader.init(path:readJournal:usingIndex:key:)`).
  ///
  /// `key` is the private key of an encrypted trace (`--key`); a trace in clear and JSON
  /// Lines ignore it. `REPORT#N` opens the N-th session of a bug report.
  ///
  /// - Throws: `TraceError`: `notFound`, `io`, `notATrace`, `encrypted` (another key).
  package static func open(_ path: String, usingIndex: Bool = false, key: TracePrivateKey?)
    throws(TraceError) -> SessionFile
  {
    if let (report, number) = reportReference(path) {
      return try openInReport(report, number: number, as: path, key: key)
    }
    if try startsWithJSON(path) {
      let data = try readData(path)
      return SessionFile(
        path: path, content: .jsonLines(data, try JSONLines.readHeader(from: data, path: path)))
    }
    // By path: the reader also folds in an unfinished session's journal.
    return SessionFile(
      path: path, content: .trace(try TraceReader(path: path, usingIndex: usingIndex, key: key)))
  }

  /// The file as far as it is intact by every check any reader makes
  /// (`TraceReader.intactPart()`): what `verify`, `info` and `replay --verify` read, so
  /// that a chunk whose zstd frame or records are wrong counts as damage there, as a
  /// chunk whose checksum is wrong does. JSON Lines are checked line by line when read.
  package func checked() -> SessionFile {
    guard case .trace(let reader) = content else { return self }
    return SessionFile(path: path, content: .trace(reader.intactPart()))
  }

  /// The file's integrity as ``checked()`` finds it, in the form the commands print; `nil`
  /// for JSON Lines, which hold no checksums.
  package var traceIntegrity: IntegrityReport? {
    guard case .trace(let reader) = content else { return nil }
    return reader.integrityReport
  }

  /// What keeps the session read from being the whole session, when something does: a
  /// trace's damage (as ``checked()`` finds it), or, for JSON Lines exported from a
  /// damaged trace, that damage as its header gives it (`intactActions` is the lines'
  /// count). `nil` when the session is whole.
  package func notWhole(intactActions: Int) -> IntegrityReport? {
    switch content {
    case .trace(let reader):
      let integrity = reader.integrityReport
      return integrity.isIntact ? nil : integrity
    case .jsonLines(_, let header):
      return header.damage.map {
        IntegrityReport(
          status: .damaged, intactActions: intactActions,
          problem: "exported from a damaged trace, so its actions end before the damage: \($0)",
          line: 1)
      }
    }
  }

  /// What a session that never closed lacks: ``SessionFile/unfinished``.
  package struct Unfinished: Sendable {
    /// The actions read from the journal beside the trace, which its chunks did not hold.
    package var recoveredActions: Int
    /// The journal that should be beside the trace and is not, when it is missing.
    package var missingJournal: String? = nil

    /// What a session that never closed lacks.
    package init(recoveredActions: Int, missingJournal: String? = nil) {
      self.recoveredActions = recoveredActions
      self.missingJournal = missingJournal
    }

    /// How the commands say it: `unfinished session: 28 actions recovered from the journal`,
    /// or `unfinished session: its journal crash.trace.journal, which held its last actions,
    /// is missing`.
    package var text: String {
      if let missingJournal {
        return
          "unfinished session: its journal \(missingJournal), which held the actions after the trace's last chunk, is missing"
      }
      return
        "unfinished session: \(recoveredActions) action\(recoveredActions == 1 ? "" : "s") recovered from the journal"
    }
  }

  /// Whether the session is unfinished, and what of it came from its journal: a trace with
  /// no clean end (it crashed, was cut short, or is still recording), whose actions end
  /// where the recording stopped rather than where the session did, or JSON Lines exported
  /// from one (their header says so). `nil` for a closed session; a JSON Lines file's own
  /// damage is reported as such.
  package var unfinished: Unfinished? {
    switch content {
    case .trace(let reader):
      guard reader.isUnfinished else { return nil }
      return Unfinished(
        recoveredActions: reader.integrity.recoveredActions,
        missingJournal: reader.journalIsMissing ? reader.integrity.damage?.path : nil)
    case .jsonLines(_, let header):
      guard header.unfinished == true else { return nil }
      return Unfinished(recoveredActions: header.recoveredActions ?? 0)
    }
  }

  /// Says on stderr, once per file, that the session is unfinished: for the commands whose
  /// output has no place for it (`log`, `export`, `state --json`, `bench`), once they have
  /// read it.
  package func noteIfUnfinished() {
    // A torn trace's warning about its damage said so already (`warnIfNotIntact`): one
    // warning per file.
    guard let unfinished, Self.warned.withLock({ $0.insert(path).inserted }) else { return }
    StandardError.warn(
      "\(path): \(unfinished.text); it never closed, so it ends where the recording stopped")
  }

  /// `trace` or `jsonl`.
  package var format: String {
    switch content {
    case .trace: "trace"
    case .jsonLines: "jsonl"
    }
  }

  /// The domain name in the header.
  package var domainName: String {
    switch content {
    case .trace(let reader): reader.header.domain
    case .jsonLines(_, let header): header.domain
    }
  }

  /// The domain of `registry` that the header names: what code running off the command's
  /// task (on a thread of its own, which sees no task-local value) passes its registry to.
  ///
  /// - Throws: `DebuggerError` (`unknownDomain`) naming the file.
  package func domain(in registry: DomainRegistry) throws(DebuggerError) -> any Domain {
    do {
      return try registry.domain(named: domainName)
    } catch {
      throw error.at(path: path)
    }
  }

  /// The session as `domain`'s: the one place where the format decides how it is read.
  ///
  /// - Parameter cachedSnapshots: For a trace, how many decoded snapshots to keep
  ///   (`TraceSession.init(_:domain:cachedSnapshots:)`).
  /// - Throws: `TraceError` when the file is not a session of `domain`.
  package func source<D: Domain>(as domain: D, cachedSnapshots: Int = 16) throws(TraceError)
    -> any SessionSource<D>
  {
    switch content {
    case .trace(let reader):
      return try TraceSession(reader, domain: domain, cachedSnapshots: cachedSnapshots)
    case .jsonLines(let data, _):
      return try JSONLinesSession(data: data, domain: domain, path: path)
    }
  }

  /// Reads the file's bytes.
  ///
  /// - Throws: `TraceError`: `notFound`, `io`.
  package static func readData(_ path: String) throws(TraceError) -> Data {
    try checkRegularFile(path)
    do {
      return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
    } catch {
      throw TraceError(.io, "cannot read the file: \(error.localizedDescription)", path: path)
    }
  }

  /// Whether the file's first byte other than white space is `{`: JSON Lines. Reads only
  /// as far as that byte (a trace is read once, by `TraceReader`, not twice).
  private static func startsWithJSON(_ path: String) throws(TraceError) -> Bool {
    try checkRegularFile(path)
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw TraceError(.io, "cannot read the file", path: path)
    }
    defer { try? handle.close() }
    var atStart = true
    while true {
      var bytes: Data?
      do {
        bytes = try handle.read(upToCount: 4096)
      } catch {
        throw TraceError(.io, "cannot read the file: \(error.localizedDescription)", path: path)
      }
      // A UTF-8 byte order mark, as some editors write, is not the file's first character:
      // `import` reads such a file, and so does every command.
      if atStart, let read = bytes, read.starts(with: [0xEF, 0xBB, 0xBF]) {
        bytes = read.dropFirst(3)
      }
      atStart = false
      guard let bytes, !bytes.isEmpty else { return false }
      if let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) {
        return first == UInt8(ascii: "{")
      }
    }
  }

  /// Throws unless `path` names a regular file: not a directory, and not a device or a pipe,
  /// which the reader would wait on or read differently on a second open.
  private static func checkRegularFile(_ path: String) throws(TraceError) {
    var status = stat()
    guard stat(path, &status) == 0 else {
      throw errno == ENOENT
        ? TraceError(.notFound, "no such file", path: path)
        : TraceError(.io, "cannot read the file: \(String(cString: strerror(errno)))", path: path)
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: return
    case S_IFDIR: throw TraceError(.io, "is a directory, not a trace", path: path)
    default: throw TraceError(.io, "not a regular file", path: path)
    }
  }

  // MARK: - Reading sessions

  /// Reads the whole session as `domain`'s actions (`SessionSource.session()`).
  ///
  /// - Throws: `TraceError` naming the file and the position of the problem.
  package func load<D: Domain>(as domain: D) throws(TraceError) -> RecordedSession<D> {
    try reading(as: domain) { source throws(TraceError) in try source.session() }
  }

  /// A debugger for the session, hashing states as the recorder did.
  package func debugger<D: Domain>(as domain: D) throws(TraceError) -> ReplayEngine<D> {
    ReplayEngine(domain: domain, session: try load(as: domain))
  }

  /// The state after action `sequence` (the last action when `nil`), that sequence number,
  /// and the session's last.
  ///
  /// A trace is not loaded whole: the state comes from the nearest snapshot before
  /// `sequence`, with the actions after it decoded on other threads while the snapshot
  /// decodes (`TraceSession.state(at:)`).
  ///
  /// - Throws: `TraceError` naming the file: `outOfRange` with the valid range, or the
  ///   position of a problem in the file.
  package func state<D: Domain>(as domain: D, at sequence: UInt64?) throws(TraceError)
    -> (sequence: UInt64, last: UInt64, state: D.State)
  {
    try reading(as: domain, cachedSnapshots: 1) { source throws(TraceError) in
      let target = sequence ?? source.lastSequence
      return (target, source.lastSequence, try source.state(at: target))
    }
  }

  /// The states after actions `from` and `to` (by default, the first and the last): what
  /// `diff --from --to` compares. Both bounds are checked before either state is computed.
  ///
  /// - Throws: `TraceError` naming the file: `outOfRange` with the valid range, or the
  ///   position of a problem in the file.
  package func states<D: Domain>(as domain: D, from: UInt64?, to: UInt64?) throws(TraceError)
    -> (from: UInt64, to: UInt64, old: D.State, new: D.State)
  {
    try reading(as: domain, cachedSnapshots: 1) { source throws(TraceError) in
      let (from, to) = (from ?? source.startSequence, to ?? source.lastSequence)
      let (old, new) = try source.states(from: from, to: to)
      return (from, to, old, new)
    }
  }

  /// The actions from sequence number `from` through `through` (by default, the first and
  /// the last), to go through in order with ``Actions/forEach(_:)``: what `log` prints.
  ///
  /// A trace is not loaded whole: only the chunks that hold those actions are read (from its
  /// index, when `open` was asked to use it), and decoded ahead on other threads.
  ///
  /// A JSON Lines file is parsed whole when it is read: pass the session already read from
  /// this file (``source(as:cachedSnapshots:)``) as `parsed`, and its actions are read from
  /// it rather than by parsing the file again.
  ///
  /// - Throws: `TraceError` naming the file: `outOfRange` with the valid range, or the
  ///   problem in the file.
  package func actions<D: Domain>(
    as domain: D, from: UInt64?, through: UInt64?, in parsed: (any SessionSource<D>)? = nil
  ) throws(TraceError) -> Actions<D> {
    let source: any SessionSource<D>
    if let parsed {
      source = parsed
    } else {
      source = try reading(as: domain, cachedSnapshots: 0) { source throws(TraceError) in source }
    }
    // A JSON Lines file's bad line is refused before any action.
    if source is JSONLinesSession<D> {
      do throws(TraceError) { _ = try source.session() } catch { throw error.at(path: path) }
    }
    let last = source.lastSequence
    let hasActions = last > source.startSequence
    let first = source.startSequence + (hasActions ? 1 : 0)
    let valid = first...max(first, last)
    for bound in [from, through].compactMap({ $0 }) where !valid.contains(bound) {
      throw TraceError(
        .outOfRange, "out of range \(valid.lowerBound)...\(valid.upperBound)", path: path,
        sequence: bound)
    }
    if let from, let through, from > through {
      throw TraceError(
        .outOfRange, "the range starts at \(from), after its end \(through)", path: path,
        sequence: from)
    }
    let range = hasActions ? (from ?? first)...(through ?? last) : nil
    return Actions(
      range: range, last: last, file: self, domain: domain,
      parsed: source as? JSONLinesSession<D>)
  }

  /// Actions of a session, from ``actions(as:from:through:)``.
  package struct Actions<D: Domain> {
    /// The sequence numbers of the actions; `nil` when the session has none.
    package let range: ClosedRange<UInt64>?
    /// The sequence number of the session's last action.
    package let last: UInt64
    fileprivate let file: SessionFile
    fileprivate let domain: D
    /// A JSON Lines file's parsed session, read instead of the file.
    fileprivate let parsed: JSONLinesSession<D>?

    /// Calls `body` with each action, in order.
    ///
    /// - Throws: `TraceError` naming the file and the position of a problem in it, after
    ///   `body` has seen the actions before it; or what `body` throws.
    package func forEach(_ body: (TimedAction<D.Action>) throws -> Void) throws {
      try forEachAction { action in
        try body(action)
        return true
      }
    }

    /// Calls `body` with each action, in order, until it returns `false`.
    ///
    /// - Throws: `TraceError` naming the file and the position of a problem in it, after
    ///   `body` has seen the actions before it; or what `body` throws.
    package func forEachAction(_ body: (TimedAction<D.Action>) throws -> Bool) throws {
      guard let range else { return }
      if let parsed {
        var failure: (any Error)?
        do {
          try parsed.forEachAction(from: range.lowerBound, through: range.upperBound) {
            action throws(TraceError) in
            do {
              return try body(action)
            } catch {
              failure = error
              return false
            }
          }
        } catch {
          throw error.at(path: file.path)
        }
        if let failure { throw failure }
        return
      }
      // Where to go on from, should the file have to be read again (see `reading`).
      var next = range.lowerBound
      var failure: (any Error)?
      try file.reading(as: domain, cachedSnapshots: 0) { source throws(TraceError) in
        try source.forEachAction(from: next, through: range.upperBound) {
          action throws(TraceError) in
          let goOn: Bool
          do {
            goOn = try body(action)
          } catch {
            failure = error
            return false
          }
          next = action.sequence + 1
          return goOn
        }
      }
      if let failure { throw failure }
    }
  }

  /// Runs `read` on the session as `domain`'s.
  ///
  /// Opening checks a trace's framing and checksums; a chunk's zstd frame and records are
  /// checked when they are read (and a trace opened from its index has its chunks'
  /// checksums checked then too), so damage can turn up in the middle of `read`. It is then
  /// handled as opening finds damage: the trace is read as far as it is intact by every
  /// check (`SessionSource.intactPart()`), with a warning on stderr that says where the
  /// damage is, and `read` runs again on that; so it must be able to go on from where it
  /// stopped.
  private func reading<D: Domain, T>(
    as domain: D, cachedSnapshots: Int = 16,
    _ read: (any SessionSource<D>) throws(TraceError) -> T
  ) throws(TraceError) -> T {
    let source = try self.source(as: domain, cachedSnapshots: cachedSnapshots)
    warnIfNotIntact(source)
    do {
      return try read(source)
    } catch {
      guard error.chunk != nil, error.code == .corrupted || error.code == .truncated else {
        throw error.at(path: path)
      }
      do {
        let whole = try source.intactPart()
        // Said again when opening warned already: that warning counted the actions the
        // chunks' headers claim, and a chunk that passed its checksum has just failed.
        warnIfNotIntact(whole, afterReading: true)
        return try read(whole)
      } catch {
        throw error.at(path: path)
      }
    }
  }

  /// The files already warned about: a command that reads a file twice (`diff a a`,
  /// `bench`) warns once, and an unfinished session's note is not given after a warning
  /// about its damage.
  private static let warned = Mutex<Set<String>>([])

  /// Writes one line on stderr when a trace is not whole: the commands go on with the intact
  /// part. Once for opening the file, and once more for the intact part read after a chunk
  /// failed (`afterReading`).
  private func warnIfNotIntact<D: Domain>(
    _ source: any SessionSource<D>, afterReading: Bool = false
  ) {
    // JSON Lines are refused at their first bad line instead.
    guard let reader = (source as? TraceSession<D>)?.reader else { return }
    let integrity = reader.integrity
    guard integrity.status == .truncated || integrity.status == .damaged else { return }
    let isNew = Self.warned.withLock { warned in
      // Opening's key is taken in either case: an unfinished session's note
      // (`noteIfUnfinished`) is not given after a warning.
      let first = warned.insert(path).inserted
      return afterReading ? warned.insert(path + "\u{0}read").inserted : first
    }
    guard isNew else { return }
    // "truncated" says the recording stopped, and the description the journal's actions.
    StandardError.warn(
      "\(path): \(integrity.description); using the \(reader.actionCount) intact actions")
  }
}
