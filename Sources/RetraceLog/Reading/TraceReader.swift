import Crypto
import Retrace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a trace file: its header, its chunks, its integrity, and its records in order.
///
/// Opening a trace reads the file, verifies every chunk's checksum, and folds in the
/// records of the journal beside it if the session never closed; or, with `usingIndex`,
/// reads only the index and the chunk headers of a cleanly closed trace and each chunk when
/// it is needed (``init(path:readJournal:usingIndex:key:)``). Damaged input never traps:
/// the reader keeps every intact record before the damage and says in ``integrity`` where
/// and why it stopped.
///
/// ```swift
/// let trace = try TraceReader(path: "session.trace")
/// print(trace.header.domain, trace.actionCount, trace.integrity)
/// // banking 1000 clean
/// try trace.forEachRecord { record in
///   if record.kind == .action { print(record.sequence, record.actionCase ?? "?") }
///   return true
/// }
/// ```
public final class TraceReader: Sendable {
  /// The file that was read.
  public let path: String
  /// The header.
  public let header: TraceHeader
  /// The format version of the file.
  public let formatVersion: UInt16
  /// The intact chunks, in order.
  public let chunks: [TraceChunk]
  /// Whether the file ends with a valid index (it was closed cleanly).
  public let hasIndex: Bool
  /// Whether the session is unfinished: the file, as opened, has no valid index, so the
  /// recording never reached its clean end (it crashed, was cut short, or is still
  /// recording), and its actions end where the recording stopped, not where the session
  /// did. Unlike ``hasIndex``, ``intactPart()`` keeps it: damage found later does not make
  /// a closed session unfinished.
  public let isUnfinished: Bool
  /// The size in bytes of the journal beside an unfinished session's trace, when one was
  /// read (its records are folded in); `nil` for a closed trace or when there is none.
  public let journalSize: Int?
  /// How intact the trace is, as far as opening it checked (the framing and the checksums).
  /// Of an encrypted trace opened without its key, nothing more can be checked
  /// (``canReadRecords`` is `false`): its contents may still fail authentication.
  public let integrity: TraceIntegrity
  /// The file's size in bytes.
  public let fileSize: Int
  /// The index trailer's end time (µs after the start), when the trace has an index.
  let indexEndTime: Int64?
  /// The key the trace was opened with, when it is encrypted and one was given.
  let key: TracePrivateKey?
  /// What opens the chunks and journal records of an encrypted trace, given its key.
  private let cipher: TraceCipher?

  /// Whether the trace is encrypted (its header's ``TraceHeader/encryption``).
  public var isEncrypted: Bool { header.encryption != nil }

  /// Whether the trace's records can be read: it is in clear, or it was opened with its key.
  public var canReadRecords: Bool { !isEncrypted || cipher != nil }

  /// Whether opening checked every chunk's checksum; `false` when the trace was opened
  /// `usingIndex` and had one, in which case each chunk's checksum is checked when the chunk
  /// is read.
  public var checkedEveryChunk: Bool {
    if case .memory = source { return true }
    return false
  }

  /// Where the chunks' bytes are.
  private enum Source {
    /// The whole file in memory, every chunk checked.
    case memory([UInt8])
    /// The open file, read chunk by chunk.
    case file(TraceFile)
  }

  private let source: Source
  /// Journal records after the last chunk: (kind, sequence, time offset, hash, payload).
  let journal: [JournalRecord]
  /// The journal records' payloads side by side, for the records handed to
  /// ``forEachChunk(fromChunk:endChunk:_:)`` to point into; joined once, when the trace is
  /// opened.
  private let journalPayloads: [UInt8]

  /// Opens the trace at `path` and the journal beside it, if any.
  ///
  /// By default the whole file is read and every chunk's checksum checked, so that
  /// ``integrity`` is known. With `usingIndex`, a cleanly closed trace is opened from its
  /// index instead: only the header, the index and the chunks' headers are read (a few
  /// kilobytes however large the file), and each chunk's data is read, and its checksum
  /// checked, when a method first needs it. That suits reading a few chunks of a large
  /// trace (the state at one sequence number); damage in a chunk's data is then thrown by
  /// the method that reads it, not reported in ``integrity``. A trace without an intact
  /// index (unfinished, truncated, damaged) is read whole either way.
  ///
  /// - Parameters:
  ///   - path: The trace file.
  ///   - readJournal: Whether to fold in `path + ".journal"` when the trace is unfinished.
  ///   - usingIndex: Whether to open a cleanly closed trace from its index.
  ///   - key: The private key of an encrypted trace. Without it, an encrypted trace opens
  ///     with its header, chunk headers and index (what it keeps in clear), and reading its
  ///     records throws (`encrypted`). A trace in clear ignores it.
  /// - Throws: ``TraceError`` when the file cannot be read or is not a trace at all (no
  ///   intact header), or `key` is not the key the trace was encrypted to (`encrypted`).
  ///   Damage after the header is not thrown: it is reported in ``integrity``.
  public convenience init(
    path: String, readJournal: Bool = true, usingIndex: Bool = false,
    key: TracePrivateKey? = nil
  ) throws(TraceError) {
    let file = try TraceFile(path: path)
    if usingIndex, let scan = FramingScan(indexOf: file) {
      try self.init(scan: scan, file: file, key: key)
      return
    }
    let (bytes, journal) = try Self.readTogether(file, readJournal: readJournal, key: key)
    try self.init(bytes: bytes, journal: journal, path: path, key: key)
  }

  /// The trace's bytes and its journal's, as of one moment.
  ///
  /// A session still recording appends to both while they are read. The journal is read
  /// first, and the trace after it: a chunk written in between holds the journal's records
  /// (they are skipped as already in a chunk), where a journal read after the trace could
  /// have been reset past the trace's last chunk, a gap. A record torn at the moment its
  /// page was copied, with the next one written by the time the next page was, or a journal
  /// removed by a clean close, still look like damage or a missing journal: then both are
  /// read again, at most twice; damage that stays is damage.
  private static func readTogether(_ file: TraceFile, readJournal: Bool, key: TracePrivateKey?)
    throws(TraceError) -> ([UInt8], Journal)
  {
    guard readJournal else { return (try file.read(at: 0, count: file.size), .notLookedFor) }
    let path = file.path
    var attempts = 1
    while true {
      let journal: Journal
      do {
        journal = .read(try readFile(path + ".journal"), path: path + ".journal")
      } catch {
        journal = .unreadable(error.at(path: path + ".journal"))
      }
      // Opened again, so that its size is taken after the journal was read.
      let file = attempts == 1 && !(journal.wasRead) ? file : try TraceFile(path: path)
      let bytes = try file.read(at: 0, count: file.size)
      // A closed trace (it ends with its index) does not read its journal: no second scan.
      guard attempts < 3, !Self.endsWithIndexTag(bytes),
        let scan = try? bytes.withBytes({ raw throws(TraceError) in try FramingScan(raw) }),
        scan.damage == nil
      else { return (bytes, journal) }
      let cipher: TraceCipher?
      do {
        cipher = try Self.cipher(scan, key: key, path: path)
      } catch {
        return (bytes, journal)
      }
      guard Self.fold(journal, into: scan, cipher: cipher).damage != nil else {
        return (bytes, journal)
      }
      attempts += 1
    }
  }

  /// The records of `journal` that continue the chunks of `scan`, the journal's size, and
  /// the damage in it, when the trace is unfinished (it has no index): a damaged journal, a
  /// missing one, or one that cannot be read. A closed trace's journal is not read.
  private static func fold(_ journal: Journal, into scan: FramingScan, cipher: TraceCipher?) -> (
    records: [JournalRecord], size: Int?, damage: TraceError?
  ) {
    // A session that closed (its last chunk holds the end record) left no journal: the
    // journal, removed at the close, holds nothing the chunks do not.
    guard !scan.hasIndex, !endsWithEndRecord(scan) else { return ([], nil, nil) }
    let next = (scan.chunks.last.map(\.endSequence) ?? scan.header.firstSequence + 1)
    switch journal {
    case .read(let bytes, let path):
      let binding = ChunkFrame.journalBinding(of: scan.headerContent)
      // An encrypted journal's records are read only with the key; its header, in clear,
      // is checked without it.
      guard scan.header.encryption == nil || cipher != nil else {
        let check = bytes.withUnsafeBytes {
          JournalRecord.checkHeader($0, sealed: true, binding: binding)
        }
        guard case .damaged(let message, let offset) = check else { return ([], bytes.count, nil) }
        return (
          [], bytes.count,
          TraceError(.corrupted, message, path: path, offset: offset, sequence: next)
        )
      }
      let read = JournalRecord.read(bytes, nextSequence: next, cipher: cipher, binding: binding)
      return (read.records, bytes.count, read.damage?.at(path: path))
    case .unreadable(let error):
      // Only a clean close removes the journal: without it, the actions the session sent
      // after its last chunk, if it sent any, are gone.
      guard error.code == .notFound else { return ([], nil, error) }
      return (
        [], nil,
        TraceError(
          .notFound,
          "missing; the session never closed, and the actions it sent after sequence \(next - 1) were in it",
          path: error.path)
      )
    case .notLookedFor:
      return ([], nil, nil)
    }
  }

  /// Whether the last chunk holds the end record (more records than its actions,
  /// checkpoints and snapshot): the session closed.
  private static func endsWithEndRecord(_ scan: FramingScan) -> Bool {
    guard let last = scan.chunks.last else { return false }
    return last.recordCount
      > last.actionCount + last.checkpointCount + (last.startsWithSnapshot ? 1 : 0)
  }

  /// What was found where a trace's journal belongs.
  private enum Journal {
    /// The journal was not asked for.
    case notLookedFor
    /// The journal's bytes, and the name to give it in errors.
    case read([UInt8], path: String)
    /// The journal could not be read: it is missing (`notFound`), or unreadable.
    case unreadable(TraceError)

    /// Whether the journal's bytes were read.
    var wasRead: Bool {
      if case .read = self { return true }
      return false
    }
  }

  /// A cleanly closed trace opened from its index.
  private init(scan: FramingScan, file: TraceFile, key: TracePrivateKey?) throws(TraceError) {
    self.key = key
    cipher = try Self.cipher(scan, key: key, path: file.path)
    path = file.path
    source = .file(file)
    fileSize = file.size
    header = scan.header
    formatVersion = scan.version
    chunks = scan.chunks
    hasIndex = true
    isUnfinished = false
    journalSize = nil
    indexEndTime = scan.endTime
    journal = []
    journalPayloads = []
    integrity = TraceIntegrity(status: .clean)
  }

  /// The part of `reader` before its chunk `end`, damaged at that chunk by `damage`: what
  /// ``intactPart()`` returns when a chunk that passed its checksum does not decode.
  init(_ reader: TraceReader, endingBefore end: Int, damage: TraceError) {
    key = reader.key
    cipher = reader.cipher
    path = reader.path
    source = reader.source
    fileSize = reader.fileSize
    header = reader.header
    formatVersion = reader.formatVersion
    chunks = Array(reader.chunks[..<end])
    hasIndex = false
    isUnfinished = reader.isUnfinished
    journalSize = reader.journalSize
    indexEndTime = nil
    journal = []
    journalPayloads = []
    integrity = TraceIntegrity(
      status: damage.code == .truncated ? .truncated : .damaged, damage: damage)
  }

  /// Reads a trace from memory (and its journal's bytes, if any).
  ///
  /// - Parameters:
  ///   - bytes: The trace file's bytes.
  ///   - journalBytes: The journal's bytes.
  ///   - path: The name to use in errors.
  ///   - key: The private key of an encrypted trace (see ``init(path:readJournal:usingIndex:key:)``).
  public convenience init(
    bytes: [UInt8], journal journalBytes: [UInt8]? = nil, path: String = "<memory>",
    key: TracePrivateKey? = nil
  ) throws(TraceError) {
    try self.init(
      bytes: bytes,
      journal: journalBytes.map { .read($0, path: path + ".journal") } ?? .notLookedFor,
      path: path, key: key)
  }

  private init(bytes: [UInt8], journal found: Journal, path: String, key: TracePrivateKey?)
    throws(TraceError)
  {
    self.path = path
    source = .memory(bytes)
    fileSize = bytes.count
    let scan: FramingScan
    do {
      scan = try bytes.withBytes { raw throws(TraceError) in try FramingScan(raw) }
    } catch {
      throw Self.namingTheTrace(error, ifJournal: bytes, path: path).at(path: path)
    }
    self.key = key
    cipher = try Self.cipher(scan, key: key, path: path)
    header = scan.header
    formatVersion = scan.version
    chunks = scan.chunks
    hasIndex = scan.hasIndex
    // A closed trace damaged before its end still ends with its index's tag, and one cut
    // after its last chunk has the end record in it.
    isUnfinished = !scan.hasIndex && !Self.endsWithIndexTag(bytes) && !Self.endsWithEndRecord(scan)
    indexEndTime = scan.endTime
    let (journal, journalSize, journalDamage) = Self.fold(found, into: scan, cipher: cipher)
    self.journalSize = journalSize
    self.journal = journal
    journalPayloads = journal.flatMap(\.payload)
    let recovered = journal.reduce(0) { $0 + ($1.kind == .action ? 1 : 0) }
    if let damage = scan.damage {
      integrity = TraceIntegrity(
        status: damage.code == .truncated ? .truncated : .damaged, damage: damage.at(path: path),
        recoveredActions: recovered)
    } else if scan.hasIndex {
      integrity = TraceIntegrity(status: .clean)
    } else if Self.endsWithEndRecord(scan) {
      // The session closed, and the file was cut after its last chunk: it is neither
      // unfinished nor whole, though every action is in it.
      integrity = TraceIntegrity(
        status: .truncated,
        damage: TraceError(
          .truncated,
          "the index is missing: the session closed, and the file ends after its last chunk (every action is there)",
          path: path, offset: bytes.count, chunk: scan.chunks.count))
    } else if let journalDamage {
      integrity = TraceIntegrity(
        status: .damaged, damage: journalDamage, recoveredActions: recovered, isInJournal: true)
    } else {
      integrity = TraceIntegrity(status: .unfinished, recoveredActions: recovered)
    }
  }

  /// Whether the session is unfinished and the journal that held its last actions is not
  /// beside the trace (it was copied without it, say): ``integrity`` then says so as damage
  /// in the journal.
  public var journalIsMissing: Bool {
    integrity.isInJournal && integrity.damage?.code == .notFound
  }

  /// Whether the file's last four bytes are the index trailer's tag: the recording reached
  /// its clean end, whatever damage lies before it.
  private static func endsWithIndexTag(_ bytes: [UInt8]) -> Bool {
    guard bytes.count >= 4 else { return false }
    return bytes[(bytes.count - 4)...].reversed().reduce(UInt32(0), { $0 << 8 | UInt32($1) })
      == TraceFormat.indexTag
  }

  /// `error`, or when `bytes` are a journal (`NAME.trace.journal`, passed where its trace
  /// belongs) an error that names the trace to pass instead.
  private static func namingTheTrace(_ error: TraceError, ifJournal bytes: [UInt8], path: String)
    -> TraceError
  {
    guard bytes.count >= 4,
      bytes[0..<4].reversed().reduce(UInt32(0), { $0 << 8 | UInt32($1) })
        == TraceFormat.journalTag
    else { return error }
    let trace =
      path.hasSuffix(".journal")
      ? String(path.dropLast(".journal".count)) : "its name without .journal"
    return TraceError(
      .notATrace, "this is a trace's journal; pass the trace beside it (\(trace))")
  }

  /// The cipher of an encrypted trace opened with `key`; `nil` for a trace in clear or
  /// without a key.
  private static func cipher(_ scan: FramingScan, key: TracePrivateKey?, path: String)
    throws(TraceError) -> TraceCipher?
  {
    guard let field = scan.header.encryption, let key else { return nil }
    do {
      var cipher = try TraceCipher.opening(field, with: key)
      cipher.headerDigest = Array(SHA256.hash(data: scan.headerContent))
      return cipher
    } catch {
      throw error.at(path: path)
    }
  }

  /// The number of actions readable: in intact chunks plus recovered from the journal.
  public var actionCount: Int {
    chunks.reduce(0) { $0 + $1.actionCount } + integrity.recoveredActions
  }

  /// The sequence number of the first action (one after the header's
  /// ``TraceHeader/firstSequence``).
  public var firstSequence: UInt64 { header.firstSequence + 1 }

  /// The sequence number of the last readable action (the header's first sequence when
  /// there is none).
  public var lastSequence: UInt64 { header.firstSequence + UInt64(actionCount) }

  /// The sequence numbers of the snapshots, which is where reading can start.
  public var snapshotSequences: [UInt64] {
    chunks.filter(\.startsWithSnapshot).map { $0.firstSequence - 1 }
  }

  /// The sequence numbers after which a time-travel jump set the state (chunks flagged as
  /// jumps, `docs/TRACE_FORMAT.md` §3), in order; one may appear more than once.
  public var jumpSequences: [UInt64] {
    chunks.filter(\.isJump).map { $0.firstSequence - 1 }
  }

  /// The number of checkpoint records in the chunks and the journal.
  public var checkpointCount: Int {
    chunks.reduce(0) { $0 + $1.checkpointCount }
      + journal.reduce(0) { $0 + ($1.kind == .checkpoint ? 1 : 0) }
  }

  /// Calls `body` with every record in order, from chunk `fromChunk` on, then with the
  /// records recovered from the journal; stops early when `body` returns `false`.
  ///
  /// - Parameters:
  ///   - fromChunk: The first chunk to read.
  ///   - body: Receives each record; returns whether to go on.
  /// - Throws: ``TraceError`` when a chunk that passed its checksum still does not decode
  ///   (its zstd frame or its records are malformed), or what `body` throws.
  public func forEachRecord(
    fromChunk: Int = 0,
    _ body: (TraceRecord) throws(TraceError) -> Bool
  ) throws(TraceError) {
    try forEachChunk(fromChunk: fromChunk) { records throws(TraceError) in
      for record in records where try !body(record) { return false }
      return true
    }
  }

  /// Calls `body` once per chunk with all of the chunk's records, in order, from chunk
  /// `fromChunk` up to (not including) chunk `endChunk`, then once with the records
  /// recovered from the journal, which counts as chunk number `chunks.count`; stops early
  /// when `body` returns `false`.
  ///
  /// This is the form for decoding many records: a loop over one chunk's records costs
  /// less per record than a callback per record. The records' payloads point into the
  /// reader's buffer and are valid only during the call.
  ///
  /// When a chunk's records turn out malformed part way, `body` first receives the intact
  /// records before the damage, then the error is thrown.
  ///
  /// - Parameters:
  ///   - fromChunk: The first chunk to read.
  ///   - endChunk: The chunk to stop before; `nil` reads to the end, journal included.
  ///   - body: Receives each chunk's records; returns whether to go on.
  /// - Throws: ``TraceError`` when a chunk that passed its checksum still does not decode
  ///   (its zstd frame or its records are malformed), or what `body` throws.
  public func forEachChunk(
    fromChunk: Int = 0,
    endChunk: Int? = nil,
    _ body: ([TraceRecord]) throws(TraceError) -> Bool
  ) throws(TraceError) {
    try forEachChunk(fromChunk: fromChunk, endChunk: endChunk, decodingState: nil, body)
  }

  /// ``forEachChunk(fromChunk:endChunk:_:)``, with each leading snapshot's state decoded by
  /// `decodeState` while the chunk's records are parsed: given the bytes from the state's
  /// start to the chunk's end, it decodes the state and returns how many bytes it took, or
  /// `nil` when it cannot (the state's end is then found by skipping over it, as it is when
  /// the bytes it took do not match the snapshot's hash: the snapshot record's payload
  /// then differs from what it decoded). A snapshot's state is found no other way than by
  /// a pass over all of it: tens of megabytes in a large trace, which the decoding makes
  /// anyway.
  @usableFromInline
  func forEachChunk(
    fromChunk: Int,
    endChunk: Int?,
    decodingState decodeState: ((UnsafeRawBufferPointer) -> Int?)?,
    _ body: ([TraceRecord]) throws(TraceError) -> Bool
  ) throws(TraceError) {
    let end = min(endChunk ?? Int.max, chunks.count + 1)
    let first = max(fromChunk, 0)
    guard first < end else { return }
    let decompressor = ZstdDecompressor()
    var raw: [UInt8] = []
    var records: [TraceRecord] = []
    // Format 2: the chunk's actions, rebuilt from their columns, and where each one is.
    var rebuilt: [UInt8] = []
    var columnActions: [ActionColumnsDecoder.Action] = []
    for chunk in chunks[min(first, chunks.count)..<min(end, chunks.count)] {
      try decompress(chunk, with: decompressor, into: &raw)
      records.removeAll(keepingCapacity: true)
      let goOn = try raw.withBytes { rawBytes throws(TraceError) in
        var trailing: [TraceRecord] = []
        do throws(TraceError) {
          trailing = try parse(
            chunk, rawBytes, decodingState: decodeState, rebuilt: &rebuilt,
            actions: &columnActions, into: &records
          ).trailing
        } catch {
          if !records.isEmpty { _ = try body(records) }
          throw error
        }
        guard formatVersion >= 2 else { return try body(records) }
        // Format 2's actions point into `rebuilt`: made and used within its closure.
        return try rebuilt.withBytes { rebuiltBytes throws(TraceError) in
          appendColumnRecords(
            chunk, rebuiltBytes, actions: columnActions, trailing: trailing, into: &records)
          return try body(records)
        }
      }
      if !goOn { return }
    }
    guard end > chunks.count, !journal.isEmpty else { return }
    _ = try journalPayloads.withBytes { all throws(TraceError) in
      var start = 0
      let records = journal.map { record in
        let payload = UnsafeRawBufferPointer(rebasing: all[start..<(start + record.payload.count)])
        start += record.payload.count
        return TraceRecord(
          kind: record.kind, sequence: record.sequence,
          time: record.kind == .action ? time(offset: record.time) : nil,
          hash: record.kind == .checkpoint ? StateHash(rawValue: record.hash) : nil,
          payload: payload, source: .journal)
      }
      return try body(records)
    }
  }

  /// How many bytes the chunks' records take once decompressed, as format 1 holds them:
  /// the chunks' raw sizes, and in format 2 the bytes of the actions rebuilt from their
  /// columns too (read from each action block's head, which means decompressing the
  /// chunks, but decoding nothing). What a reader that must bound its memory checks before
  /// it decodes a trace from an untrusted source.
  ///
  /// Counts up to the first chunk that does not decompress or whose block's head is
  /// malformed: reading stops at that damage, so nothing after it is ever decoded.
  public func expandedSize() -> Int {
    guard formatVersion >= 2 else { return chunks.reduce(0) { $0 + $1.rawSize } }
    let decompressor = ZstdDecompressor()
    var buffer: [UInt8] = []
    var total = 0
    for chunk in chunks {
      guard (try? decompress(chunk, with: decompressor, into: &buffer)) != nil else { break }
      total = total.addingReportingOverflow(chunk.rawSize).partialValue
      guard chunk.actionCount > 0 else { continue }
      let actionBytes = buffer.withBytes { raw -> UInt64? in
        var cursor = RecordCBOR.Cursor(raw)
        if chunk.startsWithSnapshot, (try? cursor.skipItem()) == nil { return nil }
        var reader = ColumnReader(bytes: raw, position: cursor.offset)
        guard (try? reader.varint()) != nil else { return nil }
        return try? reader.varint()
      }
      guard let actionBytes, actionBytes <= UInt64(Int.max - total) else { break }
      total += Int(actionBytes)
    }
    return total
  }

  /// Appends the records of `chunk`, decompressed into `raw`, to `records`, in its format;
  /// on malformed input, throws with the intact records before it appended. Of a format-2
  /// chunk, only its snapshot is appended: its actions are rebuilt into `rebuilt` (their
  /// places and times in `actions`) and its checkpoints and end returned, for
  /// ``appendColumnRecords(_:_:actions:trailing:into:)`` to append in order.
  ///
  /// - Returns: The time offset of the chunk's last action (its `baseTime` without one), and
  ///   a format-2 chunk's checkpoints and end.
  @discardableResult
  private func parse(
    _ chunk: TraceChunk, _ raw: UnsafeRawBufferPointer,
    decodingState decodeState: ((UnsafeRawBufferPointer) -> Int?)?, rebuilt: inout [UInt8],
    actions: inout [ActionColumnsDecoder.Action], into records: inout [TraceRecord]
  ) throws(TraceError) -> (lastTime: Int64, trailing: [TraceRecord]) {
    if formatVersion == 1 {
      return (try parseChunk(chunk, raw, decodingState: decodeState, into: &records), [])
    }
    rebuilt.removeAll(keepingCapacity: true)
    actions.removeAll(keepingCapacity: true)
    let trailing = try parseColumnChunk(
      chunk, raw, decodingState: decodeState, rebuilt: &rebuilt, actions: &actions,
      into: &records)
    return (actions.last?.time ?? chunk.baseTime, trailing)
  }

  /// Calls `body` with each intact chunk, in order, and its decompressed content, once the
  /// content passed every check that reading its records makes, and the time offset of its
  /// last action (its `baseTime` without one): what rewrites a trace (
  /// ``TraceTranscoder``) reads, to copy the content without decoding an action.
  ///
  /// - Throws: ``TraceError`` when a chunk does not decompress or its records are
  ///   malformed, or what `body` throws.
  func forEachChunkContent(
    _ body: (TraceChunk, _ content: UnsafeRawBufferPointer, _ lastTime: Int64) throws(TraceError)
      -> Void
  ) throws(TraceError) {
    let decompressor = ZstdDecompressor()
    var raw: [UInt8] = []
    var records: [TraceRecord] = []
    var rebuilt: [UInt8] = []
    var actions: [ActionColumnsDecoder.Action] = []
    for chunk in chunks {
      try decompress(chunk, with: decompressor, into: &raw)
      records.removeAll(keepingCapacity: true)
      try raw.withBytes { raw throws(TraceError) in
        let lastTime = try parse(
          chunk, raw, decodingState: nil, rebuilt: &rebuilt, actions: &actions, into: &records
        ).lastTime
        try body(chunk, raw, lastTime)
      }
    }
  }

  /// The index of the chunk holding the latest snapshot at or before `sequence`.
  public func snapshotChunk(atOrBefore sequence: UInt64) -> Int? {
    chunks.lastIndex { $0.startsWithSnapshot && $0.firstSequence - 1 <= sequence }
  }

  func time(offset: Int64) -> Double {
    header.startTime + Double(offset) / 1_000_000
  }

  /// Decompresses `chunk` into `raw`. From the file, the chunk is read first and its
  /// checksum checked.
  func decompress(
    _ chunk: TraceChunk, with decompressor: ZstdDecompressor, into raw: inout [UInt8]
  )
    throws(TraceError)
  {
    func damaged(_ message: String, _ code: TraceError.Code = .corrupted, at offset: Int? = nil)
      -> TraceError
    {
      TraceError(
        code, message, path: path, offset: offset ?? chunk.frameOffset, chunk: chunk.index,
        sequence: chunk.firstSequence)
    }
    if let encryption = header.encryption, cipher == nil {
      throw .keyNeeded(encryption, path: path)
    }
    switch source {
    case .memory(let bytes):
      try bytes.withBytes { file throws(TraceError) in
        try decompress(
          chunk,
          frame: UnsafeRawBufferPointer(
            rebasing: file[chunk.frameOffset..<(chunk.frameOffset + chunk.frameSize)]),
          header: UnsafeRawBufferPointer(rebasing: file[(chunk.offset + 8)..<chunk.frameOffset]),
          with: decompressor, into: &raw)
      }
    case .file(let file):
      let bytes = try file.read(at: chunk.offset, count: chunk.byteCount)
      guard bytes.count == chunk.byteCount else {
        throw damaged(
          "the file ends inside the chunk (it was cut after it was opened)", .truncated,
          at: chunk.offset + bytes.count)
      }
      try bytes.withBytes { bytes throws(TraceError) in
        let headerSize = 8 + TraceFormat.chunkHeaderSize
        let frame = UnsafeRawBufferPointer(rebasing: bytes[headerSize...])
        guard
          FramingScan.checksumMatches(
            chunk.checksum, header: UnsafeRawBufferPointer(rebasing: bytes[..<headerSize]),
            frame: frame)
        else { throw damaged("chunk checksum mismatch", at: chunk.offset) }
        try decompress(
          chunk, frame: frame, header: UnsafeRawBufferPointer(rebasing: bytes[8..<headerSize]),
          with: decompressor, into: &raw)
      }
    }
  }

  /// Decompresses `chunk`'s `frame` (its zstd frame, or in an encrypted trace its sealed
  /// frame, opened first) into `raw`. `header` is the chunk header's 48 bytes of content.
  private func decompress(
    _ chunk: TraceChunk, frame: UnsafeRawBufferPointer, header: UnsafeRawBufferPointer,
    with decompressor: ZstdDecompressor, into raw: inout [UInt8]
  ) throws(TraceError) {
    func damaged(_ message: String) -> TraceError {
      TraceError(
        .corrupted, message, path: path, offset: chunk.frameOffset, chunk: chunk.index,
        sequence: chunk.firstSequence)
    }
    guard let cipher else {
      do throws(ZstdError) {
        return try decompressor.decompressFrame(frame, expectedSize: chunk.rawSize, into: &raw)
      } catch {
        throw damaged(error.message)
      }
    }
    guard let opened = cipher.openChunk(frame, ordinal: chunk.index, header: header) else {
      throw damaged("the chunk does not decrypt: its bytes were changed")
    }
    let decompressed = opened.withUnsafeBytes { frame in
      Result { () throws(ZstdError) in
        try decompressor.decompressFrame(frame, expectedSize: chunk.rawSize, into: &raw)
      }
    }
    if case .failure(let error) = decompressed { throw damaged(error.message) }
  }

  /// Appends the records of a decompressed chunk to `records`, and returns the time offset
  /// of its last action (its `baseTime` without one); on malformed input, throws with the
  /// intact records before it appended.
  private func parseChunk(
    _ chunk: TraceChunk, _ raw: UnsafeRawBufferPointer,
    decodingState decodeState: ((UnsafeRawBufferPointer) -> Int?)?,
    into output: inout [TraceRecord]
  ) throws(TraceError) -> Int64 {
    // The count comes from the chunk's header; every record takes at least 4 bytes, which
    // bounds what a hostile header can make this reserve.
    output.reserveCapacity(output.count + min(chunk.recordCount, raw.count / 4))
    var cursor = RecordCBOR.Cursor(raw)
    var sequence = chunk.firstSequence
    var timeOffset = chunk.baseTime
    var actions = 0
    var records = 0
    func fail(_ reason: String, _ at: Int) -> TraceError {
      TraceError(
        .corrupted, "malformed record at byte \(at) of the chunk: \(reason)", path: path,
        offset: chunk.frameOffset, chunk: chunk.index, sequence: sequence)
    }
    while !cursor.isAtEnd {
      let start = cursor.offset
      let record: TraceRecord
      do {
        let count = try cursor.readArrayCount()
        let kind = try cursor.readUInt()
        switch (TraceFormat.RecordKind(rawValue: kind), count) {
        case (.action, 3):
          timeOffset &+= try cursor.readInt()
          let payload = try cursor.skipItem()
          record = TraceRecord(
            kind: .action, sequence: sequence, time: time(offset: timeOffset), hash: nil,
            payload: UnsafeRawBufferPointer(rebasing: raw[payload]), source: .chunk(chunk.index))
          sequence += 1
          actions += 1
        case (.snapshot, 4):
          let at = try cursor.readUInt()
          let hash = try cursor.readUInt()
          guard records == 0, chunk.startsWithSnapshot, at == chunk.firstSequence - 1 else {
            throw fail("a snapshot that is not where the chunk header says", start)
          }
          guard let payload = try Self.snapshotState(&cursor, raw, hash: hash, decodeState) else {
            throw fail("the snapshot does not match its hash", start)
          }
          let state = UnsafeRawBufferPointer(rebasing: raw[payload])
          record = TraceRecord(
            kind: chunk.isJump ? .jump : .snapshot, sequence: at, time: nil,
            hash: StateHash(rawValue: hash),
            payload: state, source: .chunk(chunk.index))
        case (.checkpoint, 3):
          let at = try cursor.readUInt()
          let hash = try cursor.readUInt()
          guard at == sequence - 1 else {
            throw fail("a checkpoint for sequence \(at) after action \(sequence - 1)", start)
          }
          record = TraceRecord(
            kind: .checkpoint, sequence: at, time: nil, hash: StateHash(rawValue: hash),
            payload: UnsafeRawBufferPointer(start: nil, count: 0), source: .chunk(chunk.index))
        case (.end, 3):
          let at = try cursor.readUInt()
          let end = try cursor.readInt()
          record = TraceRecord(
            kind: .end, sequence: at, time: time(offset: end), hash: nil,
            payload: UnsafeRawBufferPointer(start: nil, count: 0), source: .chunk(chunk.index))
        default:
          throw fail("unknown record kind \(kind) with \(count) fields", start)
        }
      } catch let error as RecordCBOR.CursorError {
        throw fail(error.reason, error.offset)
      } catch let error as TraceError {
        throw error
      } catch {
        throw fail("\(error)", start)
      }
      records += 1
      if records == 1, chunk.startsWithSnapshot, record.kind != .snapshot, record.kind != .jump {
        throw fail("the chunk header promises a snapshot first", start)
      }
      output.append(record)
    }
    guard actions == chunk.actionCount, records == chunk.recordCount else {
      throw fail(
        "the chunk holds \(actions) actions in \(records) records, its header says \(chunk.actionCount) in \(chunk.recordCount)",
        raw.count)
    }
    return timeOffset
  }
}

extension TraceReader {
  /// Reads a decompressed format-2 chunk: appends its snapshot to `records`, rebuilds its
  /// actions from their columns into `rebuilt` (where each is in `actions`), and returns
  /// its checkpoints and end, which ``appendColumnRecords(_:_:actions:trailing:into:)``
  /// puts in order with the actions. On malformed input, throws with the intact records
  /// before it appended.
  fileprivate func parseColumnChunk(
    _ chunk: TraceChunk, _ raw: UnsafeRawBufferPointer,
    decodingState decodeState: ((UnsafeRawBufferPointer) -> Int?)?,
    rebuilt: inout [UInt8], actions: inout [ActionColumnsDecoder.Action],
    into output: inout [TraceRecord]
  ) throws(TraceError) -> [TraceRecord] {
    var cursor = RecordCBOR.Cursor(raw)
    var records = 0
    func fail(_ reason: String, _ at: Int, sequence: UInt64? = nil) -> TraceError {
      TraceError(
        .corrupted, "malformed chunk at byte \(at): \(reason)", path: path,
        offset: chunk.frameOffset, chunk: chunk.index, sequence: sequence ?? chunk.firstSequence)
    }
    /// Runs `body`, turning what it throws into damage in this chunk.
    func guarded(_ body: () throws -> Void) throws(TraceError) {
      do {
        try body()
      } catch let error as RecordCBOR.CursorError {
        throw fail(error.reason, error.offset)
      } catch let error as TraceError {
        throw error
      } catch {
        throw fail("\(error)", cursor.offset)
      }
    }
    var snapshot: TraceRecord?
    try guarded {
      if chunk.startsWithSnapshot {
        let start = cursor.offset
        guard try cursor.readArrayCount() == 4,
          try cursor.readUInt() == TraceFormat.RecordKind.snapshot.rawValue
        else { throw fail("the chunk header promises a snapshot first", start) }
        let at = try cursor.readUInt()
        let hash = try cursor.readUInt()
        guard at == chunk.firstSequence - 1 else {
          throw fail("a snapshot that is not where the chunk header says", start)
        }
        guard let payload = try Self.snapshotState(&cursor, raw, hash: hash, decodeState) else {
          throw fail("the snapshot does not match its hash", start)
        }
        snapshot = TraceRecord(
          kind: chunk.isJump ? .jump : .snapshot, sequence: at, time: nil,
          hash: StateHash(rawValue: hash), payload: UnsafeRawBufferPointer(rebasing: raw[payload]),
          source: .chunk(chunk.index))
        records += 1
      }
    }
    if let snapshot { output.append(snapshot) }
    if chunk.actionCount > 0 {
      do throws(ActionColumnsError) {
        cursor.offset = try ActionColumnsDecoder.decode(
          raw, at: cursor.offset, expectedCount: chunk.actionCount, baseTime: chunk.baseTime,
          into: &rebuilt, actions: &actions)
      } catch {
        throw fail("its action block: \(error.reason)", error.offset)
      }
    }
    // Checkpoints (each after the action it hashes) and the end, after the actions.
    var trailing: [TraceRecord] = []
    var previous = chunk.firstSequence - 1
    let last = chunk.firstSequence - 1 + UInt64(chunk.actionCount)
    var checkpoints = 0
    try guarded {
      while !cursor.isAtEnd {
        let start = cursor.offset
        let count = try cursor.readArrayCount()
        let kind = try cursor.readUInt()
        guard trailing.last?.kind != .end else {
          throw fail("a record after the chunk's end record", start)
        }
        switch (TraceFormat.RecordKind(rawValue: kind), count) {
        case (.checkpoint, 3):
          let at = try cursor.readUInt()
          let hash = try cursor.readUInt()
          guard at >= previous, at <= last else {
            throw fail("a checkpoint for sequence \(at) out of order", start, sequence: at)
          }
          previous = at
          checkpoints += 1
          trailing.append(
            TraceRecord(
              kind: .checkpoint, sequence: at, time: nil, hash: StateHash(rawValue: hash),
              payload: UnsafeRawBufferPointer(start: nil, count: 0), source: .chunk(chunk.index)))
        case (.end, 3):
          let at = try cursor.readUInt()
          let end = try cursor.readInt()
          trailing.append(
            TraceRecord(
              kind: .end, sequence: at, time: time(offset: end), hash: nil,
              payload: UnsafeRawBufferPointer(start: nil, count: 0), source: .chunk(chunk.index)))
        default:
          throw fail("unknown record kind \(kind) with \(count) fields", start)
        }
        records += 1
      }
    }
    records += actions.count
    guard records == chunk.recordCount, checkpoints == chunk.checkpointCount else {
      throw fail(
        "the chunk holds \(actions.count) actions and \(checkpoints) checkpoints in \(records) records, its header says \(chunk.actionCount) and \(chunk.checkpointCount) in \(chunk.recordCount)",
        raw.count)
    }
    output.reserveCapacity(output.count + records)
    return trailing
  }

  /// Appends a format-2 chunk's actions, which ``parseColumnChunk`` rebuilt into `rebuilt`,
  /// and its `trailing` checkpoints and end, in format 1's order: each checkpoint right
  /// after the action it hashes.
  fileprivate func appendColumnRecords(
    _ chunk: TraceChunk, _ rebuilt: UnsafeRawBufferPointer,
    actions: [ActionColumnsDecoder.Action], trailing: [TraceRecord],
    into output: inout [TraceRecord]
  ) {
    ChunkContent.inFormatOneOrder(
      firstSequence: chunk.firstSequence, actionCount: actions.count,
      checkpoints: trailing.map { $0.kind == .checkpoint ? $0.sequence : nil }
    ) { index in
      let action = actions[index]
      output.append(
        TraceRecord(
          kind: .action, sequence: chunk.firstSequence + UInt64(index),
          time: time(offset: action.time), hash: nil,
          payload: UnsafeRawBufferPointer(
            rebasing: rebuilt[action.start..<(action.start + action.count)]),
          source: .chunk(chunk.index)))
    } trailing: { index in
      output.append(trailing[index])
    }
  }
}

extension TraceReader {
  /// The bytes of a snapshot's state, which starts at `cursor`, if they match `hash`; moves
  /// the cursor past them. Where the state ends is where decoding it stopped, when that
  /// matches the hash (a decoding that stopped short of the item's end falls back to the
  /// skipping), or is found by skipping over the item.
  fileprivate static func snapshotState(
    _ cursor: inout RecordCBOR.Cursor, _ raw: UnsafeRawBufferPointer, hash: UInt64,
    _ decodeState: ((UnsafeRawBufferPointer) -> Int?)?
  ) throws(RecordCBOR.CursorError) -> Range<Int>? {
    if let decodeState,
      let count = decodeState(UnsafeRawBufferPointer(rebasing: raw[cursor.offset...]))
    {
      let decoded = cursor.offset..<(cursor.offset + count)
      if XXH64.hash(UnsafeRawBufferPointer(rebasing: raw[decoded])) == hash {
        cursor.offset += count
        return decoded
      }
    }
    let skipped = try cursor.skipItem()
    return XXH64.hash(UnsafeRawBufferPointer(rebasing: raw[skipped])) == hash ? skipped : nil
  }
}

/// A trace file open for reading, read piece by piece with `pread` (which keeps no shared
/// file offset, so threads read it at once).
final class TraceFile: Sendable {
  let path: String
  /// The size when opened.
  let size: Int
  private let fd: Int32

  /// Opens `path`, refusing what is not a regular file.
  init(path: String) throws(TraceError) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw TraceError.posix("cannot open", path: path) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let error = TraceError.posix("cannot stat", path: path)
      closeDescriptor(fd)
      throw error
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      closeDescriptor(fd)
      throw TraceError(.io, "not a regular file", path: path)
    }
    self.path = path
    self.fd = fd
    size = Int(info.st_size)
  }

  deinit { closeDescriptor(fd) }

  /// The `count` bytes at `offset`; `nil` when they cannot be read or the file ends first.
  func read(exactly count: Int, at offset: Int) -> [UInt8]? {
    guard let bytes = try? read(at: offset, count: count), bytes.count == count else { return nil }
    return bytes
  }

  /// The `count` bytes at `offset`, or fewer where the file ends (it may have shrunk since
  /// it was opened).
  func read(at offset: Int, count: Int) throws(TraceError) -> [UInt8] {
    // Straight into uninitialized storage: zeroing a trace's megabytes first touched every
    // page twice.
    var failure: TraceError?
    let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      while initialized < count {
        let n = pread(
          fd, buffer.baseAddress! + initialized, count - initialized, off_t(offset + initialized))
        if n < 0 {
          if errno == EINTR { continue }
          failure = TraceError.posix("cannot read", path: path, offset: offset + initialized)
          return
        }
        if n == 0 { break }
        initialized += n
      }
    }
    if let failure { throw failure }
    return bytes
  }
}

/// Reads a whole file, refusing what is not a regular file.
func readFile(_ path: String) throws(TraceError) -> [UInt8] {
  let file = try TraceFile(path: path)
  return try file.read(at: 0, count: file.size)
}
