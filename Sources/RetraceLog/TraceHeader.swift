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

  /// Creates a header.
  public init(
    domain: String, actionSchemaVersion: Int, sessionID: String, startTime: Double,
    producer: String = "Retrace \(RetraceVersion.string)", app: [String: String] = [:],
    firstSequence: UInt64 = 0, checkpointInterval: Int, snapshotInterval: Int
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
  }
}

extension TraceHeader {
  /// How far from 1970 a start time may be, in seconds: about 285,000 years, which keeps
  /// every action time within a trace's 64-bit microsecond offsets.
  public static let maximumStartTime = 9.0e12

  /// Throws unless a reader accepts this header: `actionSchemaVersion` from 1, a start time
  /// that is finite and within ``maximumStartTime`` of 1970 (`nan` stands for "not yet
  /// known" and is replaced when recording starts), and an encoded size within 1 MiB (the
  /// session ID and the app facts are what can make it larger).
  func checkWritable(path: String) throws(TraceError) {
    guard actionSchemaVersion >= 1 else {
      throw TraceError(.outOfRange, "actionSchemaVersion \(actionSchemaVersion) is not 1 or more", path: path)
    }
    guard startTime.isNaN || abs(startTime) < Self.maximumStartTime else {
      throw TraceError(.outOfRange, "the start time \(startTime) is not within 9e12 seconds of 1970", path: path)
    }
    var largest = self
    largest.firstSequence = UInt64(Int64.max)
    largest.startTime = 0
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
