/// The constants of the trace format; `docs/TRACE_FORMAT.md` is their specification.
public enum TraceFormat {
  /// The format version this library writes and the newest it reads.
  public static let version: UInt16 = 2

  /// The zstd skippable-frame magic of the header frame (first in the file).
  static let headerMagic: UInt32 = 0x184D_2A50
  /// The skippable-frame magic of a chunk header (just before each chunk's zstd frame).
  static let chunkMagic: UInt32 = 0x184D_2A51
  /// The skippable-frame magic of an encrypted chunk's sealed frame (in place of its zstd
  /// frame).
  static let sealedMagic: UInt32 = 0x184D_2A52
  /// The skippable-frame magic of the index frame (last in a cleanly closed file).
  static let indexMagic: UInt32 = 0x184D_2A5E
  /// The magic of an ordinary zstd frame.
  static let zstdMagic: UInt32 = 0xFD2F_B528

  /// "RTRC": the first four bytes of the header frame's content.
  static let headerTag: UInt32 = 0x4352_5452
  /// "RTCK": the first four bytes of a chunk header's content.
  static let chunkTag: UInt32 = 0x4B43_5452
  /// "RTIX": the last four bytes of the file when it has an index.
  static let indexTag: UInt32 = 0x5849_5452
  /// "RTJN": the first four bytes of a journal.
  static let journalTag: UInt32 = 0x4E4A_5452

  /// Bytes in a chunk header's content.
  static let chunkHeaderSize = 48
  /// Bytes in one index entry.
  static let indexEntrySize = 32
  /// Bytes in the index trailer (the end of the file).
  static let indexTrailerSize = 32
  /// Bytes in a journal header.
  static let journalHeaderSize = 32

  /// The largest decompressed chunk a reader accepts (a chunk may exceed the target size
  /// only to hold one large snapshot).
  public static let maxChunkSize = 1 << 30
  /// The largest header a reader accepts.
  static let maxHeaderSize = 1 << 20

  /// Record kinds: the first element of every record array.
  enum RecordKind: UInt64 {
    case action = 0
    case snapshot = 1
    case checkpoint = 2
    case end = 3
  }
}
