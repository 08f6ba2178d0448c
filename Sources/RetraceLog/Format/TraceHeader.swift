import Retrace

/// What a trace says about itself: written once, at the start of the file.
///
/// Encoded as a CBOR map (keys are these property names) inside the header frame; see
/// `docs/TRACE_FORMAT.md`.
public struct TraceHeader: Codable, Equatable, Sendable {
  /// The domain the actions belong to, such as `banking`.
  public var domain: String
  /// The version of the action encoding the actions were recorded with.
  public var actionSchemaVersion: Int
  /// A unique identifier of the recording session.
  public var sessionID: String
  /// When the recording started, in seconds since 1970; action times are offsets from it.
  public var startTime: Double
  /// The library that wrote the trace, such as `Retrace 0.1.0`.
  public var producer: String
  /// Facts about the app (name, version, build, device), as the app gave them.
  public var app: [String: String]
  /// The sequence number of the last action before the recording started (0 for a new store).
  public var firstSequence: UInt64
  /// The recorder's checkpoint interval, in actions.
  public var checkpointInterval: Int
  /// The recorder's snapshot interval, in actions.
  public var snapshotInterval: Int
  /// How the trace is encrypted; `nil` for a trace in clear.
  public var encryption: TraceEncryption?

  /// Creates a header.
  public init(
    domain: String, actionSchemaVersion: Int, sessionID: String, startTime: Double,
    producer: String = "Retrace \(RetraceVersion.string)", app: [String: String] = [:],
    firstSequence: UInt64 = 0, checkpointInterval: Int, snapshotInterval: Int,
    encryption: TraceEncryption? = nil
  ) {
    self.domain = domain
    self.actionSchemaVersion = actionSchemaVersion
    self.sessionID = sessionID
    self.startTime = startTime
    self.producer = producer
    self.app = app
    self.firstSequence = firstSequence
    self.checkpointInterval = checkpointInterval
    self.snapshotInterval = snapshotInterval
    self.encryption = encryption
  }
}

extension TraceHeader {
  /// How far from 1970 a start time may be, in seconds: about 285,000 years, which keeps
  /// every action time within a trace's 64-bit microsecond offsets.
  public static let maximumStartTime = 9.0e12

  /// Why a reader refuses this header's values, as `FIELD VALUE is impossible: WHY`, or
  /// `nil` when it accepts them: `actionSchemaVersion` from 1, `firstSequence` at most
  /// 2⁶³ − 1 (sequence numbers are counted on from it), and a start time that is finite and
  /// within ``maximumStartTime`` of 1970 (action times are offsets from it). The reader, the
  /// recorder and JSON Lines all hold headers to this.
  public var impossibility: String? {
    if actionSchemaVersion < 1 {
      return "actionSchemaVersion \(actionSchemaVersion) is impossible: versions start at 1"
    }
    if firstSequence > UInt64(Int64.max) {
      return "firstSequence \(firstSequence) is impossible: sequence numbers stop at \(Int64.max)"
    }
    if !startTime.isFinite || abs(startTime) >= Self.maximumStartTime {
      return "startTime \(startTime) is impossible: not within 9e12 seconds of 1970"
    }
    return nil
  }

  /// Throws unless a reader accepts this header (``impossibility``; a `nan` start time stands
  /// for "not yet known" and is replaced when recording starts) and it encodes within 1 MiB
  /// (the session ID and the app facts are what can make it larger).
  func checkWritable(path: String) throws(TraceError) {
    var largest = self
    largest.firstSequence = UInt64(Int64.max)
    if startTime.isNaN { largest.startTime = 0 }
    if let impossibility = largest.impossibility {
      throw TraceError(.outOfRange, impossibility, path: path)
    }
    let size = (try? CBOREncoder(deterministic: true).encode(largest).count) ?? Int.max
    // The frame's content: 12 bytes before the header map and a 4-byte checksum after it.
    guard 16 + size <= TraceFormat.maxHeaderSize else {
      throw TraceError(
        .tooLarge,
        "the header takes \(16 + size) bytes, more than the \(TraceFormat.maxHeaderSize) a reader accepts (a session ID or app facts too long)",
        path: path)
    }
  }
}
