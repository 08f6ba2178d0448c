#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A record read back from a journal.
struct JournalRecord: Sendable {
  var kind: TraceRecord.Kind
  var sequence: UInt64
  var time: Int64
  var hash: UInt64
  var payload: [UInt8]

  /// The intact records of a journal that continue at `nextSequence`, and the damage that
  /// ended them early, if any.
  ///
  /// Reading stops at the first record whose length or checksum (salted with this journal's
  /// salt) is wrong, so stale records from before the journal's last reset are never read.
  /// That is also where a crash leaves a journal: the record being written torn, then
  /// zeros or stale records. So a stop is damage only when it cannot be such an end: an
  /// intact record of this journal's salt lies after it, the record passed its checksum
  /// and is still wrong, or the header is wrong. The damage names the offset in the journal
  /// and the sequence number of the first action not read; nothing after it is read.
  ///
  /// A sealed journal (format 2, of an encrypted trace) is read only with the trace's
  /// `cipher`; each of its records holds one or more records, and they end at the first
  /// that does not authenticate.
  ///
  /// A journal whose header ties it to another trace than the one whose `binding` is given
  /// (``ChunkFrame/journalBinding(of:)``) is damage: it is another session's.
  static func read(
    _ bytes: [UInt8], nextSequence: UInt64, cipher: TraceCipher?, binding: UInt16
  ) -> (records: [JournalRecord], damage: TraceError?) {
    bytes.withUnsafeBytes { file -> ([JournalRecord], TraceError?) in
      func damage(_ message: String, at offset: Int, sequence: UInt64 = nextSequence)
        -> TraceError
      {
        TraceError(.corrupted, message, offset: offset, sequence: sequence)
      }
      switch Self.checkHeader(file, sealed: cipher != nil, binding: binding) {
      case .empty: return ([], nil)
      case .damaged(let message, let offset): return ([], damage(message, at: offset))
      case .intact: break
      }
      let salt = file.readLittleEndian(UInt32.self, at: 8)
      var saltBytes: [UInt8] = []
      saltBytes.appendLittleEndian(salt)
      let saltCRC = CRC32C.checksum(saltBytes)
      /// The record at `offset`, when its length fits and its checksum holds.
      func intactRecord(at offset: Int) -> UnsafeRawBufferPointer? {
        guard file.count - offset >= 8 else { return nil }
        let length = Int(file.readLittleEndian(UInt32.self, at: offset))
        guard length > 0, file.count - offset - 8 >= length else { return nil }
        let stored = UnsafeRawBufferPointer(rebasing: file[(offset + 8)..<(offset + 8 + length)])
        return CRC32C.update(saltCRC, stored) == file.readLittleEndian(UInt32.self, at: offset + 4)
          ? stored : nil
      }
      var records: [JournalRecord] = []
      var expected = nextSequence
      var lastAction: UInt64?
      var offset = TraceFormat.journalHeaderSize
      // Where and why reading stopped: the end, a torn record, or damage.
      var stop: (offset: Int, problem: String)?
      while true {
        guard let stored = intactRecord(at: offset) else {
          stop = (offset, Self.whyNotIntact(file, at: offset))
          break
        }
        let start = offset
        offset += 8 + stored.count
        guard let cipher else {
          if let problem = Self.parse(
            stored, expected: &expected, lastAction: &lastAction, nextSequence: nextSequence,
            into: &records)
          {
            return (records, damage(problem, at: start, sequence: expected))
          }
          continue
        }
        // A sealed record holds the records of one batch, one CBOR array after another.
        guard let batch = cipher.openJournalRecord(stored) else {
          stop = (start, "a record does not authenticate")
          break
        }
        let problem = batch.withUnsafeBytes { batch -> String? in
          var cursor = RecordCBOR.Cursor(batch)
          while !cursor.isAtEnd {
            guard let range = try? cursor.skipItem() else {
              return "a sealed record does not parse"
            }
            if let problem = Self.parse(
              UnsafeRawBufferPointer(rebasing: batch[range]), expected: &expected,
              lastAction: &lastAction, nextSequence: nextSequence, into: &records)
            {
              return problem
            }
          }
          return nil
        }
        if let problem { return (records, damage(problem, at: start, sequence: expected)) }
      }
      // The end of what was written, unless a record of this journal follows.
      guard let stop,
        let later = Self.laterRecord(
          in: file, after: stop.offset, sealed: cipher != nil,
          isIntact: { intactRecord(at: $0) != nil })
      else { return (records, nil) }
      return (
        records,
        damage(
          "\(stop.problem), and an intact record follows at offset \(later): nothing from here on was read",
          at: stop.offset, sequence: expected)
      )
    }
  }

  /// What the journal's header says: nothing written, intact, or the damage in it.
  enum HeaderCheck: Equatable {
    /// A header of zeros with nothing after it: never written.
    case empty
    /// The header holds: its records can be read.
    case intact
    /// What is wrong, and where.
    case damaged(String, at: Int)
  }

  /// Checks the journal's header, which is in clear in every journal, a sealed one's too:
  /// its tag, checksum and format (`sealed`: 2, else 1), and that it is tied to the trace
  /// whose `binding` is given (``ChunkFrame/journalBinding(of:)``), or to none (0: written
  /// before journals were tied to their traces).
  static func checkHeader(_ file: UnsafeRawBufferPointer, sealed: Bool, binding: UInt16)
    -> HeaderCheck
  {
    let h = TraceFormat.journalHeaderSize
    // A header never written (the file was created but the process died, or the system
    // lost the unsynced page) holds no record and promises none; but bytes after it say
    // it was written, and what they held is lost.
    if file.prefix(h).allSatisfy({ $0 == 0 }) {
      guard let written = file.dropFirst(h).firstIndex(where: { $0 != 0 }) else { return .empty }
      return .damaged(
        "the journal's header is zeros, but bytes follow it at offset \(written): nothing in it was read",
        at: 0)
    }
    guard file.count >= h else {
      return .damaged("the journal is \(file.count) bytes, shorter than its header", at: 0)
    }
    guard file.readLittleEndian(UInt32.self, at: 0) == TraceFormat.journalTag else {
      return .damaged("not a journal (it starts with 0x\(file[0..<4].hex))", at: 0)
    }
    guard
      CRC32C.checksum(UnsafeRawBufferPointer(rebasing: file[0..<28]))
        == file.readLittleEndian(UInt32.self, at: 28)
    else { return .damaged("the journal header's checksum does not match", at: 28) }
    let format = file.readLittleEndian(UInt16.self, at: 4)
    guard format == (sealed ? 2 : 1) else {
      return .damaged("journal format \(format), expected \(sealed ? 2 : 1)", at: 4)
    }
    let tie = file.readLittleEndian(UInt16.self, at: 6)
    guard tie == 0 || tie == binding else {
      return .damaged(
        "the journal is another session's: its header is tied to another trace (0x\(String(tie, radix: 16)), not 0x\(String(binding, radix: 16)))",
        at: 6)
    }
    return .intact
  }

  /// The offset of the first record after `offset` that `isIntact` accepts.
  ///
  /// A clear record's payload starts `[0, …` of four items or `[2, …` of three (`84 00`,
  /// `83 02`): only the offsets 8 bytes before those are tried, found with `memchr`, so that
  /// the zeros of a fresh journal and the stale records of an old one cost little. A sealed
  /// record's payload has no such mark: every offset is tried.
  private static func laterRecord(
    in file: UnsafeRawBufferPointer, after offset: Int, sealed: Bool, isIntact: (Int) -> Bool
  ) -> Int? {
    guard !sealed else {
      return (offset + 1..<max(offset + 1, file.count - 7)).first(where: isIntact)
    }
    guard let base = file.baseAddress else { return nil }
    func next(_ byte: UInt8, from start: Int) -> Int? {
      guard start < file.count, let hit = memchr(base + start, Int32(byte), file.count - start)
      else { return nil }
      return base.distance(to: UnsafeRawPointer(hit))
    }
    // The payload of a record at offset + 1 or later starts at offset + 9 or later.
    var arrayOf4 = next(0x84, from: offset + 9)
    var arrayOf3 = next(0x83, from: offset + 9)
    while arrayOf4 != nil || arrayOf3 != nil {
      let start = min(arrayOf4 ?? .max, arrayOf3 ?? .max)
      if startsLikeARecord(file, at: start), isIntact(start - 8) { return start - 8 }
      if start == arrayOf4 {
        arrayOf4 = next(0x84, from: start + 1)
      } else {
        arrayOf3 = next(0x83, from: start + 1)
      }
    }
    return nil
  }

  /// Why the record at `offset` is not intact, for a message.
  private static func whyNotIntact(_ file: UnsafeRawBufferPointer, at offset: Int) -> String {
    guard file.count - offset >= 8 else { return "the journal ends inside a record's frame" }
    let length = Int(file.readLittleEndian(UInt32.self, at: offset))
    if length == 0 { return "a record of length 0 (the end mark)" }
    if file.count - offset - 8 < length {
      return "a record's length \(length) runs past the journal's end"
    }
    return "a record's checksum does not match"
  }

  /// Whether the bytes at `offset` can start a clear record's payload: `[0, …]` of four
  /// items or `[2, …]` of three. Looking for an intact record past a stop checks this before
  /// computing a checksum, so that stale bytes whose length field happens to fit cost no
  /// checksum over the rest of the journal.
  private static func startsLikeARecord(_ file: UnsafeRawBufferPointer, at offset: Int) -> Bool {
    guard file.count - offset >= 2 else { return false }
    return (file[offset] == 0x84 && file[offset + 1] == 0x00)
      || (file[offset] == 0x83 && file[offset + 1] == 0x02)
  }

  /// Parses one journal record's `payload` and appends it to `records` when it continues
  /// them, or skips it when it is already in a chunk; returns what is wrong with it when it
  /// is not a record, or does not continue them (a gap: actions missing).
  /// Parses one record into `records` when it continues the chunks; returns the problem
  /// when it is damage.
  ///
  /// The recorder journals each action once, in order, and a checkpoint right after its
  /// action: the journal's action records are numbered one after another (`lastAction`, the
  /// last one's, whether it is taken or skipped as already in a chunk), and a checkpoint is
  /// of the last action before it, or, before any action record, of an action the chunks
  /// hold. Anything else is damage, wherever it is.
  private static func parse(
    _ payload: UnsafeRawBufferPointer, expected: inout UInt64, lastAction: inout UInt64?,
    nextSequence: UInt64, into records: inout [JournalRecord]
  ) -> String? {
    var cursor = RecordCBOR.Cursor(payload)
    guard let count = try? cursor.readArrayCount(), let kind = try? cursor.readUInt() else {
      return "a record that passed its checksum does not parse"
    }
    switch (TraceFormat.RecordKind(rawValue: kind), count) {
    case (.action, 4):
      guard let sequence = try? cursor.readUInt(), let time = try? cursor.readInt(),
        let range = try? cursor.skipItem(), cursor.isAtEnd
      else { return "an action record that passed its checksum does not parse" }
      if let last = lastAction, sequence != last &+ 1 {
        return sequence <= last
          ? "the action of sequence \(sequence) comes again after action \(last)"
          : "the action of sequence \(sequence) follows \(last): actions are missing"
      }
      lastAction = sequence
      if sequence < nextSequence { return nil }  // already in a chunk
      guard sequence == expected else {
        return "the action of sequence \(sequence) follows \(expected - 1): actions are missing"
      }
      records.append(
        JournalRecord(
          kind: .action, sequence: sequence, time: time, hash: 0, payload: Array(payload[range])))
      expected += 1
      return nil
    case (.checkpoint, 3):
      guard let sequence = try? cursor.readUInt(), let hash = try? cursor.readUInt(),
        cursor.isAtEnd
      else { return "a checkpoint record that passed its checksum does not parse" }
      if let last = lastAction, sequence != last {
        return "a checkpoint of sequence \(sequence) follows action \(last)"
      }
      // Of an action the chunks hold: the chunks have it, or it adds nothing.
      if sequence < nextSequence { return nil }
      guard sequence == expected - 1, lastAction != nil else {
        return "a checkpoint of sequence \(sequence) follows action \(expected - 1)"
      }
      records.append(
        JournalRecord(kind: .checkpoint, sequence: sequence, time: 0, hash: hash, payload: []))
      return nil
    default:
      return "a record of kind \(kind) with \(count) items, not an action or a checkpoint"
    }
  }
}
