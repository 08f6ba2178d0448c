import Crypto
import Dispatch
import Retrace

/// Writes one trace file: the header, chunks of records (through the journal first), and on
/// close the end record and the index. Synchronous and single-threaded: the
/// ``TraceRecorder``'s background thread owns it.
///
/// The buffers every action goes through are exempt from run-time exclusivity checks (three
/// per buffer and action cost more than filling them): one thread at a time drives a
/// writer, and none of its methods re-enters another.
final class TraceWriter<State: Encodable, Action: Encodable> {
  let path: String
  let journalPath: String
  private let configuration: TraceRecorderConfiguration
  private let file: any StorageFile
  private let journal: any StorageFile
  private let storage: any TraceStorage
  private let compressor: ZstdCompressor
  private let encoder = CBOREncoder()
  private let stateEncoder = CBOREncoder(deterministic: true)

  private var fileOffset = 0
  private var index: [IndexEntry] = []
  private var startTime = 0.0

  // The open chunk.
  @exclusivity(unchecked) private var chunk: [UInt8] = []
  /// The open chunk's records as format 2 holds them, when it is finished.
  private var columnChunk: [UInt8] = []
  /// Format 2: the open chunk's actions split into columns so far (``splitPendingActions(limit:)``
  /// splits them while the writer waits for actions, so that sealing a chunk does not hold
  /// the journal up for long), the offset in ``chunk`` up to which they are, its checkpoint
  /// and end records, and the bytes of its snapshot record at the start of ``chunk``.
  private var columns = ActionColumnsEncoder()
  private var splitOffset = 0
  private var trailing: [UInt8] = []
  private var snapshotRecordBytes = 0
  private var chunkFirstSequence: UInt64 = 0
  private var chunkActions: UInt32 = 0
  private var chunkRecords: UInt32 = 0
  private var chunkCheckpoints: UInt32 = 0
  private var chunkBaseTime: Int64 = 0
  private var chunkStartsWithSnapshot = false
  /// Whether the open chunk's snapshot is a jump (``jump(from:to:sequence:)``): flag bit 1.
  private var chunkIsJump = false

  // The journal.
  private var journalOffset = 0
  private var journalCapacity: Int
  private var salt: UInt32 {
    didSet { saltChecksum = withUnsafeBytes(of: salt.littleEndian) { CRC32C.checksum($0) } }
  }
  /// CRC32C of the salt's four bytes, where every journal record's checksum starts.
  private var saltChecksum: UInt32 = 0
  /// What ties the journal to this trace's header (``ChunkFrame/journalBinding(of:)``).
  private var journalBinding: UInt16 = 0
  /// The framed journal record being written; kept to reuse its storage.
  @exclusivity(unchecked) private var journalFrame: [UInt8] = []
  @exclusivity(unchecked) private var journalRecord: [UInt8] = []

  // Progress.
  private var lastSequence: UInt64 = 0
  private var lastTime: Int64 = 0
  private var lastCheckpoint: UInt64 = 0
  private var lastSnapshot: UInt64 = 0
  /// The first sequence number at which a snapshot that the budget held back is looked at
  /// again (``stateRecordIfDue(_:sequence:)``).
  private var snapshotLookAgain: UInt64 = 0
  /// The file's size when the last snapshot's chunk was written, and that chunk's bytes:
  /// what the snapshot budget (``snapshotFitsBudget``) weighs.
  private var lastSnapshotEnd = 0
  private var lastSnapshotBytes = 0
  /// The records' bytes (as format 1 has them) of the chunks of actions written, and their
  /// frames'.
  private var writtenRaw = 0
  private var writtenFrames = 0
  /// The encoded size of the last snapshot's state, and of the open chunk's snapshot.
  private var lastSnapshotStateBytes = 0
  private var snapshotStateBytes = 0
  /// The sequence number of the last state hashed, by a checkpoint or a snapshot.
  private var lastHashed: UInt64 = 0
  private var lastStateBytes = 0
  /// When the last state hashed was done with, and what encoding and hashing it took, in
  /// nanoseconds of uptime: what hashing the latest state when the writer goes idle costs.
  private var lastHashEnded: UInt64 = 0
  private var lastHashCost: UInt64 = 0
  @exclusivity(unchecked) private var scratch: [UInt8] = []
  private var stateBytes: [UInt8] = []
  private var frameBuffer: [UInt8] = []
  /// Rewrites actions and the starting state before they are written, when the recorder
  /// redacts.
  private var redactor: Redactor?
  /// The state the redacted actions give, which a redacted trace's hashes and snapshots are
  /// of, when the recorder redacts.
  private var replay: RedactedReplay<State, Action>?
  /// Whether the state being hashed is the one the recording starts from.
  private var hashingStartingState = false
  /// Seals chunks and journal records, when the recorder encrypts.
  private var cipher: TraceCipher?
  /// The header field that says how, when it does.
  private var encryption: TraceEncryption?
  /// The number of the next sealed journal record: its nonce, never used twice in a trace.
  private var journalCounter: UInt64 = 0
  /// An encrypted trace's journal records not yet sealed: the records of the batch being
  /// written, one CBOR array after another, sealed together at its end (``endBatch()``).
  @exclusivity(unchecked) private var pendingJournal: [UInt8] = []

  init(
    path: String, configuration: TraceRecorderConfiguration, storage: any TraceStorage,
    redaction: RedactionPolicy? = nil, replay: RedactedReplay<State, Action>? = nil
  ) throws(TraceError) {
    if let key = configuration.redactionKey {
      guard let redaction else {
        throw TraceError(
          .io, "a redaction key is set, but the domain declares no redaction policy", path: path)
      }
      guard let replay else {
        throw TraceError(
          .io,
          "a redaction key is set, but no domain was given to replay the redacted actions with",
          path: path)
      }
      redactor = Redactor(policy: redaction, key: key)
      self.replay = replay
    }
    if let key = configuration.encryptionKey {
      do {
        (cipher, encryption) = try TraceCipher.sealing(to: key)
      } catch {
        throw error.at(path: path)
      }
    }
    self.path = path
    self.journalPath = path + ".journal"
    self.configuration = configuration
    self.storage = storage
    self.compressor = ZstdCompressor(level: Int32(configuration.compressionLevel))
    self.journalCapacity = max(2 * configuration.chunkSize, 1 << 20)
    var generator = SystemRandomNumberGenerator()
    self.salt = UInt32.random(in: 1...UInt32.max, using: &generator)
    saltChecksum = withUnsafeBytes(of: salt.littleEndian) { CRC32C.checksum($0) }
    self.file = try storage.createTrace(at: path)
    do {
      self.journal = try storage.createJournal(at: journalPath, capacity: journalCapacity)
    } catch {
      file.close()
      storage.remove(path)
      throw error
    }
    chunk.reserveCapacity(configuration.chunkSize + 4096)
  }

  // MARK: Starting

  /// Writes the header frame and the starting snapshot.
  func start(header: TraceHeader, state: State) throws(TraceError) {
    var header = header
    header.encryption = encryption
    // What a reader refuses is not written (the first sequence number is known only now;
    // the rest was checked when the recorder was created).
    if let impossibility = header.impossibility {
      throw TraceError(.outOfRange, impossibility, path: path)
    }
    startTime = header.startTime
    lastSequence = header.firstSequence
    lastCheckpoint = header.firstSequence
    lastSnapshot = header.firstSequence
    var cbor: [UInt8] = []
    do { try encoder.encode(header, appendingTo: &cbor) } catch {
      throw TraceError(.io, "cannot encode the header: \(error)", path: path)
    }
    let (frame, content) = ChunkFrame.header(version: configuration.formatVersion, cbor: cbor)
    cipher?.headerDigest = Array(SHA256.hash(data: content))
    journalBinding = ChunkFrame.journalBinding(of: content)
    try writeToFile(frame)
    // The starting snapshot is a chunk of its own, written now: a session that crashes
    // before its first full chunk still has the state its journal's actions start from.
    hashingStartingState = true
    defer { hashingStartingState = false }
    try beginChunk(snapshot: state, sequence: header.firstSequence)
    // A redacted recording replays from the starting state as the trace holds it.
    replay?.start(from: stateBytes)
    try finishChunk()
  }

  // MARK: Appending

  /// Appends one action, and a checkpoint or snapshot after it when `state` is given and one
  /// is due.
  ///
  /// The recorder calls this only for actions without a hand-written encoding: it encodes
  /// the others on the sending thread (``append(sequence:time:encoded:state:)``).
  func append(sequence: UInt64, time: Double, action: Action, state: State?) throws(TraceError) {
    scratch.removeAll(keepingCapacity: true)
    do { try encoder.encode(action, appendingTo: &scratch) } catch {
      throw TraceError(
        .undecodable, "cannot encode action: \(error)", path: path, sequence: sequence)
    }
    try scratch.withBytes { encoded throws(TraceError) in
      try append(sequence: sequence, time: time, encoded: encoded, state: state)
    }
  }

  /// Appends one action given as its encoded bytes (the recorder's sending thread encodes
  /// actions that have a hand-written encoding), and a checkpoint or snapshot after it when
  /// `state` is given and one is due.
  func append(sequence: UInt64, time: Double, encoded: UnsafeRawBufferPointer, state: State?)
    throws(TraceError)
  {
    guard let state, redactor == nil else {
      return try append(sequence: sequence, time: time, encoded: encoded)
    }
    try appendAction(encoded, sequence: sequence, time: time)
    try stateRecordIfDue(state, sequence: sequence)
    if chunk.count >= configuration.chunkSize { try finishChunk() }
  }

  /// Appends one action given as its encoded bytes, without a state: what nearly every
  /// action is, and free of generic values (an optional `State`, even `nil`, costs a
  /// metadata lookup in this unspecialized code).
  func append(sequence: UInt64, time: Double, encoded: UnsafeRawBufferPointer) throws(TraceError) {
    try appendAction(encoded, sequence: sequence, time: time)
    if chunk.count >= configuration.chunkSize { try finishChunk() }
  }

  /// Appends an encoded action's record to the chunk and to the journal, redacted first
  /// when the recorder redacts.
  private func appendAction(_ encoded: UnsafeRawBufferPointer, sequence: UInt64, time: Double)
    throws(TraceError)
  {
    guard redactor != nil else {
      return try appendPlainAction(encoded, sequence: sequence, time: time)
    }
    let appended: Result<Void, TraceError>
    do {
      appended = try redactor!.withRedactedAction(encoded) { bytes throws(TraceError) in
        try appendPlainAction(bytes, sequence: sequence, time: time)
        replay!.apply(bytes)
      }
    } catch {
      throw TraceError(
        .undecodable, "cannot redact the action: \(error.message)", path: path, sequence: sequence)
    }
    try appended.get()
    // Hashed and snapshotted on the writer's own schedule, from the state the redacted
    // actions give: the app never hands a redacting recorder its state.
    if sequence >= scheduledStateDue, let state = replay!.state {
      try stateRecordIfDue(state, sequence: sequence)
    }
  }

  /// Appends an encoded action's record, as it is, to the chunk and to the journal.
  private func appendPlainAction(_ encoded: UnsafeRawBufferPointer, sequence: UInt64, time: Double)
    throws(TraceError)
  {
    let offset = timeOffset(time)
    // Chunk record: [0, Δtime, action].
    chunk.append(0x83)
    chunk.append(0x00)
    RecordCBOR.appendInt(offset &- lastTime, to: &chunk)
    chunk.append(contentsOf: encoded)
    chunkActions += 1
    chunkRecords += 1
    // Journal record: [0, sequence, time, action].
    journalRecord.removeAll(keepingCapacity: true)
    journalRecord.append(0x84)
    journalRecord.append(0x00)
    RecordCBOR.appendUInt(sequence, to: &journalRecord)
    RecordCBOR.appendInt(offset, to: &journalRecord)
    lastSequence = sequence
    lastTime = offset
    try journalAppend(journalRecord, encoded)
  }

  /// Writes a checkpoint for `state`, the state after action `sequence`, unless a
  /// checkpoint or snapshot is there already: the hash that covers a session's last actions
  /// when it is flushed or closed. A state for any other sequence number than the last
  /// action written is ignored (the recorder stopped taking actions before it).
  ///
  /// It leaves the schedule of periodic checkpoints and snapshots as it was, so that a
  /// session flushed now and then has the same periodic ones as the session unflushed.
  func checkpoint(_ state: State, sequence: UInt64) throws(TraceError) {
    guard sequence == lastSequence, lastHashed != sequence else { return }
    guard redactor != nil else {
      return try writeCheckpoint(state, sequence: sequence, periodic: false)
    }
    // A redacted trace hashes the state its own actions give, never the app's; none once an
    // action did not decode.
    guard let replayed = replay?.state else { return }
    try writeCheckpoint(replayed, sequence: sequence, periodic: false)
  }

  /// Whether the state last encoded is small enough that its size does not space
  /// checkpoints out beyond ``TraceRecorderConfiguration/checkpointInterval``.
  var stateIsSmall: Bool {
    lastStateBytes / max(configuration.maxStateBytesPerAction, 1)
      <= configuration.checkpointInterval
  }

  /// Whether the latest state should be hashed now that the writer goes idle: no hash covers
  /// the last action written, and a checkpoint was due (the writer fell behind and was
  /// handed no state), or the state is small enough to be hashed at every checkpoint
  /// interval (``stateIsSmall``), or hashing it costs at most a tenth of the time since the
  /// last hash (the last one's cost tells). So a crash while the app waits for its user
  /// leaves no action unchecked, and a large state in a busy app keeps the spacing its size
  /// sets.
  var latestStateIsDue: Bool { latestStateWait == 0 }

  /// How long, in nanoseconds, until ``latestStateIsDue``: 0 when it is, `nil` when no
  /// action waits for a hash.
  var latestStateWait: UInt64? {
    guard lastHashed < lastSequence else { return nil }
    if stateIsSmall || lastSequence >= scheduledStateDue { return 0 }
    let elapsed = DispatchTime.now().uptimeNanoseconds &- lastHashEnded
    let needed = 10 &* lastHashCost
    return elapsed >= needed ? 0 : needed - elapsed
  }

  /// Whether the writer redacts, and so replays and hashes the state itself.
  var isRedacting: Bool { redactor != nil }

  /// Hashes the state the redacted actions gave (a checkpoint), when the writer goes idle
  /// and ``latestStateIsDue``: a redacting writer holds that state itself.
  func checkpointReplayedStateIfDue() throws(TraceError) {
    guard redactor != nil, latestStateIsDue, let state = replay?.state else { return }
    try writeCheckpoint(state, sequence: lastSequence, periodic: false)
  }

  /// The first sequence number at which a checkpoint or snapshot can be due. The recorder
  /// hands the writer a state only from there on, so that a large state is not kept alive
  /// (and copied on write by the app's next change) at candidates the writer would ignore.
  var nextStateDue: UInt64 {
    // A redacting writer replays the state itself (``RedactedReplay``).
    redactor == nil ? scheduledStateDue : .max
  }

  /// The first sequence number at which a periodic checkpoint or snapshot is due.
  private var scheduledStateDue: UInt64 {
    let budgetGap = UInt64(lastStateBytes / max(configuration.maxStateBytesPerAction, 1))
    var due = UInt64.max
    if configuration.checkpointInterval > 0 {
      due = min(due, lastCheckpoint + max(UInt64(configuration.checkpointInterval), budgetGap))
    }
    if configuration.snapshotInterval > 0 {
      let snapshotDue = lastSnapshot + max(UInt64(configuration.snapshotInterval), budgetGap)
      due = min(due, max(snapshotDue, snapshotLookAgain))
    }
    return due
  }

  /// Whether another periodic snapshot keeps snapshots within their share of the file
  /// (``TraceRecorderConfiguration/maxSnapshotShare``): the bytes written since the last
  /// one are at least `(1 − share) / share` times what the next one will take. That is
  /// estimated as the last snapshot's chunk, grown as the state's encoded size grew since
  /// (never shrunk: the estimate errs towards fewer snapshots).
  private var snapshotFitsBudget: Bool {
    let share = configuration.maxSnapshotShare
    guard share < 1 else { return true }
    let growth = Double(lastStateBytes) / Double(max(lastSnapshotStateBytes, 1))
    let estimate = Double(lastSnapshotBytes) * max(growth, 1)
    // The open chunk counts as compressed as the chunks written so far were.
    let pending =
      Double(chunk.count) * (writtenRaw > 0 ? Double(writtenFrames) / Double(writtenRaw) : 0.25)
    return (Double(fileOffset - lastSnapshotEnd) + pending) * share >= estimate * (1 - share)
  }

  private func stateRecordIfDue(_ state: State, sequence: UInt64) throws(TraceError) {
    let budgetGap = UInt64(lastStateBytes / max(configuration.maxStateBytesPerAction, 1))
    var snapshotDue =
      configuration.snapshotInterval > 0
      && sequence - lastSnapshot >= max(UInt64(configuration.snapshotInterval), budgetGap)
      && sequence >= snapshotLookAgain
    if snapshotDue && !snapshotFitsBudget {
      // While the budget holds the snapshot back, it is looked at again as far on as a
      // checkpoint of this state would be (the budget changes only as chunks are written).
      // Each look takes the app's state, whose next change then copies what it shares
      // (copy-on-write): looking at every interval copied a large state's growing parts
      // every 16 actions, most of the time `generate` took.
      snapshotDue = false
      snapshotLookAgain = sequence + max(configuration.stateInterval, budgetGap)
    }
    let checkpointDue =
      configuration.checkpointInterval > 0
      && sequence - lastCheckpoint >= max(UInt64(configuration.checkpointInterval), budgetGap)
    if snapshotDue {
      // A snapshot stands in a chunk of its own, as the starting state's does, so that its
      // size is known for the budget.
      try finishChunk()
      try beginChunk(snapshot: state, sequence: sequence)
      try finishChunk()
    } else if checkpointDue {
      try writeCheckpoint(state, sequence: sequence, periodic: true)
    }
  }

  /// Appends a checkpoint record, `[2, sequence, hash]`, to the chunk and to the journal.
  private func writeCheckpoint(_ state: State, sequence: UInt64, periodic: Bool) throws(TraceError)
  {
    let budget = lastStateBytes
    let hash = try hashState(state, sequence: sequence)
    if periodic { lastCheckpoint = sequence } else { lastStateBytes = budget }
    var record: [UInt8] = [0x83, 0x02]
    RecordCBOR.appendUInt(sequence, to: &record)
    RecordCBOR.appendUInt(hash, to: &record)
    chunk.append(contentsOf: record)
    if configuration.formatVersion >= 2 { trailing.append(contentsOf: record) }
    chunkRecords += 1
    chunkCheckpoints += 1
    try journalAppend(record, UnsafeRawBufferPointer(start: nil, count: 0))
  }

  private func hashState(_ state: State, sequence: UInt64) throws(TraceError) -> UInt64 {
    let started = DispatchTime.now().uptimeNanoseconds
    defer {
      lastHashEnded = DispatchTime.now().uptimeNanoseconds
      lastHashCost = lastHashEnded &- started
    }
    stateBytes.removeAll(keepingCapacity: true)
    do { try stateEncoder.encode(state, appendingTo: &stateBytes) } catch {
      throw TraceError(
        .undecodable, "cannot encode the state: \(error)", path: path, sequence: sequence)
    }
    if redactor != nil && hashingStartingState {
      // The starting state by the state rules. Later states are the recorder's own replay
      // of the redacted actions (``RedactedReplay``): hashed as they are.
      do {
        stateBytes = try redactor!.redactInitialState(stateBytes)
      } catch {
        throw TraceError(
          .undecodable, "cannot redact the state: \(error.message)", path: path,
          sequence: sequence)
      }
    }
    lastStateBytes = stateBytes.count
    lastHashed = sequence
    return XXH64.hash(stateBytes)
  }

  /// Starts a chunk whose first record is a snapshot of `state` after action `sequence`.
  private func beginChunk(snapshot state: State, sequence: UInt64) throws(TraceError) {
    let hash = try hashState(state, sequence: sequence)
    chunkStartsWithSnapshot = true
    chunkFirstSequence = sequence + 1
    chunkBaseTime = lastTime
    // Snapshot: [1, sequence, hash, state].
    chunk.append(0x84)
    chunk.append(0x01)
    RecordCBOR.appendUInt(sequence, to: &chunk)
    RecordCBOR.appendUInt(hash, to: &chunk)
    chunk.append(contentsOf: stateBytes)
    snapshotRecordBytes = chunk.count
    splitOffset = chunk.count
    snapshotStateBytes = stateBytes.count
    chunkRecords += 1
    lastSnapshot = sequence
    lastCheckpoint = sequence
    // A snapshot (a jump's too) starts the schedule again, with nothing held back.
    snapshotLookAgain = 0
  }

  /// Records that the state after action `sequence` was set to `state` without an action
  /// (a time-travel jump): `previous`, the state the actions gave, is hashed (a checkpoint,
  /// unless one is there), the open chunk is finished, and a chunk holding only the new
  /// state as a snapshot flagged as a jump is written at once. A state for another sequence
  /// number than the last action written is ignored, as for a checkpoint.
  ///
  /// - Throws: ``TraceError`` when the trace is redacted: it holds only states replayed
  ///   from its redacted actions (docs/PRIVACY.md), and a jump's state is the app's, which
  ///   may hold anything.
  func jump(from previous: State, to state: State, sequence: UInt64) throws(TraceError) {
    guard sequence == lastSequence else { return }
    // The state the actions gave first, so that they are covered by a hash.
    try checkpoint(previous, sequence: sequence)
    if redactor != nil {
      throw TraceError(
        .undecodable,
        "a redacted trace cannot record a time-travel jump: it would write the state, which redaction does not cover",
        path: path, sequence: sequence)
    }
    try finishChunk()
    try beginChunk(snapshot: state, sequence: sequence)
    chunkIsJump = true
    try finishChunk()
  }

  /// The open chunk's flags: bit 0, it starts with a snapshot; bit 1, that snapshot is a
  /// jump.
  private var chunkFlags: UInt16 {
    (chunkStartsWithSnapshot ? 1 : 0) | (chunkIsJump ? 2 : 0)
  }

  // MARK: Chunks

  /// Compresses the open chunk into a frame, appends it to the file, and empties the journal.
  func finishChunk() throws(TraceError) {
    guard chunkRecords > 0 else { return }
    // Format 2 holds the chunk's records column-wise: the writer gathers them as format 1
    // has them (for the chunk's size), and its actions in columns too.
    if configuration.formatVersion >= 2 { transposeChunk() }
    let facts = ChunkFacts(
      flags: chunkFlags, firstSequence: chunkFirstSequence, actionCount: chunkActions,
      recordCount: chunkRecords, baseTime: chunkBaseTime, checkpointCount: chunkCheckpoints)
    do {
      try (configuration.formatVersion >= 2 ? columnChunk : chunk).withBytes {
        content throws(TraceError) in
        try ChunkFrame.assemble(
          content, facts: facts, compressor: compressor, cipher: cipher, ordinal: index.count,
          into: &frameBuffer)
      }
    } catch {
      throw error.at(path: path)
    }

    let chunkOffset = fileOffset
    try writeToFile(frameBuffer)
    if !chunkStartsWithSnapshot {
      writtenRaw += chunk.count
      writtenFrames += frameBuffer.count
    }
    if chunkStartsWithSnapshot, !chunkIsJump {
      lastSnapshotEnd = fileOffset
      lastSnapshotBytes = frameBuffer.count
      lastSnapshotStateBytes = snapshotStateBytes
    }
    if configuration.syncEveryChunk { try file.sync() }
    index.append(IndexEntry(offset: UInt64(chunkOffset), facts))

    chunk.removeAll(keepingCapacity: true)
    if configuration.formatVersion >= 2 {
      columns = ActionColumnsEncoder()
      trailing.removeAll(keepingCapacity: true)
      snapshotRecordBytes = 0
      splitOffset = 0
    }
    chunkFirstSequence = lastSequence + 1
    chunkActions = 0
    chunkRecords = 0
    chunkCheckpoints = 0
    chunkBaseTime = lastTime
    chunkStartsWithSnapshot = false
    chunkIsJump = false
    try resetJournal()
  }

  /// Writes the open chunk as format 2 holds it into ``columnChunk``: the snapshot as it is,
  /// the actions as an action block (split into ``columns`` as they came), then the
  /// checkpoints and the end record as they are: what `ChunkContent.columns(fromRecords:into:)`
  /// makes of the chunk's records, without a second pass over them.
  private func transposeChunk() {
    splitPendingActions(limit: .max)
    columnChunk.removeAll(keepingCapacity: true)
    columnChunk.append(contentsOf: chunk[..<snapshotRecordBytes])
    if columns.count > 0 { columns.encode(appendingTo: &columnChunk) }
    columnChunk.append(contentsOf: trailing)
  }

  /// Splits up to `limit` of the open chunk's actions not yet split into ``columns``, in a
  /// format-2 trace; returns whether any are left. The recorder calls it while the writer
  /// waits for actions, so that journaling an action never waits for the splitting of the
  /// ones before it.
  @discardableResult
  func splitPendingActions(limit: Int) -> Bool {
    guard configuration.formatVersion >= 2 else { return false }
    var split = 0
    chunk.withUnsafeBytes { records in
      var cursor = RecordCBOR.Cursor(records, offset: splitOffset)
      // The writer wrote these records itself, so they parse.
      while split < limit, !cursor.isAtEnd {
        _ = try! cursor.readArrayCount()
        if try! cursor.readUInt() == TraceFormat.RecordKind.action.rawValue {
          let delta = try! cursor.readInt()
          let payload = try! cursor.skipItem()
          columns.append(
            timeDelta: delta, action: UnsafeRawBufferPointer(rebasing: records[payload]))
          split += 1
        } else {
          // A checkpoint or the end (already in ``trailing``): two fields.
          _ = try! cursor.skipItem()
          _ = try! cursor.skipItem()
        }
      }
      splitOffset = cursor.offset
    }
    return splitOffset < chunk.count
  }

  private func writeToFile(_ bytes: [UInt8]) throws(TraceError) {
    try bytes.withBytes { raw throws(TraceError) in try file.write(raw, at: fileOffset) }
    fileOffset += bytes.count
  }

  // MARK: Journal

  /// Starts the journal afresh with a new salt: records written under the old salt no
  /// longer verify, so a stale record is never replayed.
  private func resetJournal() throws(TraceError) {
    // The records waiting to be sealed are in the chunk just written.
    pendingJournal.removeAll(keepingCapacity: true)
    salt = salt &* 0x9E37_79B1 &+ 0x7F4A_7C15
    if salt == 0 { salt = 1 }
    let header = ChunkFrame.journalHeader(
      sealed: cipher != nil, salt: salt, nextSequence: lastSequence + 1, lastTime: lastTime,
      binding: journalBinding)
    try header.withBytes { raw throws(TraceError) in try journal.write(raw, at: 0) }
    journalOffset = TraceFormat.journalHeaderSize
  }

  /// Appends a record, `head` followed by `tail`, to the journal as (length, CRC32C(salt ‖
  /// record), record), followed by an empty record that marks the end. Finishes the chunk
  /// first when the journal is full.
  ///
  /// An encrypted trace's records wait in ``pendingJournal`` until the batch ends: one seal
  /// per batch, not per record, keeps the writer's cost per action near a clear trace's
  /// (W4re in `Benchmarks/`). They reach the journal when ``endBatch()`` seals them.
  private func journalAppend(_ head: [UInt8], _ tail: UnsafeRawBufferPointer) throws(TraceError) {
    guard cipher != nil else { return try journalAppendFramed(head, tail) }
    let sealedSize = 8 + 8 + pendingJournal.count + head.count + tail.count + 16
    if journalOffset + 8 + sealedSize + 8 > journalCapacity {
      // As in the clear: the chunk holds every record the journal would.
      try finishChunk()
      return
    }
    pendingJournal.append(contentsOf: head)
    pendingJournal.append(contentsOf: tail)
  }

  /// Seals the batch's journal records (of an encrypted trace) into one journal record.
  func endBatch() throws(TraceError) {
    guard let cipher, !pendingJournal.isEmpty else { return }
    let sealed = try cipher.sealJournalRecord(pendingJournal, counter: journalCounter)
    journalCounter += 1
    pendingJournal.removeAll(keepingCapacity: true)
    try journalAppendFramed(sealed, UnsafeRawBufferPointer(start: nil, count: 0))
  }

  /// Appends a record, `head` followed by `tail`, as it is; see ``journalAppend(_:_:)``.
  private func journalAppendFramed(_ head: [UInt8], _ tail: UnsafeRawBufferPointer)
    throws(TraceError)
  {
    let length = head.count + tail.count
    if journalOffset + 8 + length + 8 > journalCapacity {
      // The chunk holds everything the journal holds: compress it, then the journal is empty.
      // The record is already in the chunk, so it is durable once the chunk is written.
      try finishChunk()
      return
    }
    let crc = head.withUnsafeBytes { CRC32C.update(CRC32C.update(saltChecksum, $0), tail) }
    journalFrame.removeAll(keepingCapacity: true)
    journalFrame.appendLittleEndian(UInt32(length))
    journalFrame.appendLittleEndian(crc)
    journalFrame.append(contentsOf: head)
    journalFrame.append(contentsOf: tail)
    journalFrame.appendLittleEndian(UInt64(0))  // the empty record that marks the end
    try journalFrame.withBytes { raw throws(TraceError) in try journal.write(raw, at: journalOffset)
    }
    journalOffset += 8 + length
  }

  // MARK: Flushing and closing

  /// Makes everything appended so far durable against power loss.
  func sync() throws(TraceError) {
    try endBatch()
    try journal.sync()
    try file.sync()
  }

  /// Writes the end record, the last chunk and the index, syncs, and removes the journal.
  func close(endTime: Double) throws(TraceError) {
    // End: [3, last sequence, end time].
    let endStart = chunk.count
    chunk.append(0x83)
    chunk.append(0x03)
    RecordCBOR.appendUInt(lastSequence, to: &chunk)
    RecordCBOR.appendInt(max(timeOffset(endTime), lastTime), to: &chunk)
    if configuration.formatVersion >= 2 { trailing.append(contentsOf: chunk[endStart...]) }
    chunkRecords += 1
    try finishChunk()
    let frame = ChunkFrame.index(
      index, lastSequence: lastSequence, endTime: max(timeOffset(endTime), lastTime))
    try writeToFile(frame)
    try file.sync()
    file.close()
    journal.close()
    storage.remove(journalPath)
  }

  /// Closes the files without finishing the trace (after a failure).
  func abandon() {
    file.close()
    journal.close()
  }

  private func timeOffset(_ time: Double) -> Int64 {
    let micros = ((time - startTime) * 1_000_000).rounded()
    guard micros.isFinite, abs(micros) < 9.0e18 else { return lastTime }
    return Int64(micros)
  }
}
