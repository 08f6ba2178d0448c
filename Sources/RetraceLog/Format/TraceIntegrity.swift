/// How intact a trace is: what a reader found, and where it had to stop.
public struct TraceIntegrity: Equatable, Sendable, CustomStringConvertible {
  /// The overall verdict.
  public enum Status: String, Sendable, Equatable {
    /// Closed cleanly: every chunk verified, the end record and the index are present.
    case clean
    /// Every chunk verified, but the session never closed (it crashed, or is still
    /// recording); records from its journal were folded in.
    case unfinished
    /// The file ends in the middle of a frame; every record before that point was read.
    case truncated
    /// A checksum or a structure is wrong; every record before the damage was read, and
    /// nothing after it.
    case damaged
  }

  /// The overall verdict.
  public var status: Status
  /// Where reading stopped, for ``Status/truncated`` and ``Status/damaged``.
  public var damage: TraceError?
  /// Actions read from the journal beside the trace, which the chunks did not hold yet.
  public var recoveredActions: Int
  /// Whether ``damage`` is in the journal beside an unfinished session's trace, not in the
  /// trace: the journal is damaged, missing or unreadable. ``damage`` then names the
  /// journal, and its offset is in the journal; the trace itself is intact.
  public var isInJournal: Bool

  /// Creates an integrity report.
  public init(
    status: Status, damage: TraceError? = nil, recoveredActions: Int = 0,
    isInJournal: Bool = false
  ) {
    self.status = status
    self.damage = damage
    self.recoveredActions = recoveredActions
    self.isInJournal = isInJournal
  }

  /// Whether the trace was closed cleanly and nothing is wrong with it.
  public var isClean: Bool { status == .clean }

  /// One line, such as `damaged at offset 4096 (chunk 3, sequence 2001): chunk checksum mismatch`,
  /// or, naming the journal, `damaged at crash.trace.journal: offset 4048 (sequence 100): …`.
  public var description: String {
    var text = status.rawValue
    if let damage {
      var copy = damage
      if !isInJournal { copy.path = nil }
      text += " at " + copy.description
    }
    if recoveredActions > 0 {
      text +=
        "; \(recoveredActions) action\(recoveredActions == 1 ? "" : "s") recovered from the journal"
    }
    return text
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.status == rhs.status && lhs.recoveredActions == rhs.recoveredActions
      && lhs.isInJournal == rhs.isInJournal
      && lhs.damage?.description == rhs.damage?.description
  }
}

/// One chunk of a trace: a zstd frame of records and what its header says about it.
public struct TraceChunk: Equatable, Sendable {
  /// The chunk's position among the trace's chunks, from 0.
  public var index: Int
  /// The byte offset of the chunk's header frame in the file.
  public var offset: Int
  /// Bytes the chunk takes in the file, header frame included.
  public var byteCount: Int
  /// Bytes of records once decompressed.
  public var rawSize: Int
  /// The sequence number of the chunk's first action (when it has none: of the next action).
  public var firstSequence: UInt64
  /// The number of action records.
  public var actionCount: Int
  /// The number of records of every kind.
  public var recordCount: Int
  /// The number of checkpoint records.
  public var checkpointCount: Int
  /// Whether the chunk starts with a snapshot of the state after action `firstSequence - 1`.
  public var startsWithSnapshot: Bool
  /// Whether that snapshot is a time-travel jump: the state after action
  /// `firstSequence - 1` was set to it without an action, rather than reached by replay.
  public var isJump: Bool = false
  /// Time offset, in microseconds from the header's start time, that the first action's
  /// delta counts from.
  var baseTime: Int64
  /// The CRC32C in the chunk's header.
  var checksum: UInt32
  /// The sequence number of the first action after the chunk's.
  @usableFromInline var endSequence: UInt64 { firstSequence + UInt64(actionCount) }
  var frameOffset: Int { offset + 8 + TraceFormat.chunkHeaderSize }
  var frameSize: Int { byteCount - 8 - TraceFormat.chunkHeaderSize }
}
