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
