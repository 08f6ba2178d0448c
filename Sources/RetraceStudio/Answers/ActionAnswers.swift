import RetraceLog

/// `GET …/actions`: a page of actions, and where the next page starts.
struct ActionsPage: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  /// The first sequence number asked for (or the session's first); `null` for a session
  /// without actions.
  @NullWhenAbsent var from: UInt64?
  @NullWhenAbsent var to: UInt64?
  /// The session's last sequence number.
  var last: UInt64
  /// Where the next page starts; `null` when there is none.
  @NullWhenAbsent var next: UInt64?
  var actions: [ActionItem]
}

/// An action as `log --json` prints it, with its case's name and its one-line label
/// (`navigation › push(route: about)`).
struct ActionItem: Codable, Sendable, Equatable {
  var seq: UInt64
  var time: Double
  /// As the domain's `Codable` writes it; `null` when it does not encode.
  @NullWhenAbsent var action: EncodedJSON?
  var `case`: String
  var label: String
  /// In a list of actions, the seconds since the session's previous action (`null` for its
  /// first); left out elsewhere.
  var sincePrevious: NullWhenAbsent<Double>?

  private enum CodingKeys: String, CodingKey {
    case seq, time, action, `case`, label, sincePrevious
  }

  init(
    seq: UInt64, time: Double, action: EncodedJSON?, case name: String, label: String,
    sincePrevious: NullWhenAbsent<Double>?
  ) {
    self.seq = seq
    self.time = time
    self.action = action
    self.case = name
    self.label = label
    self.sincePrevious = sincePrevious
  }

  /// `sincePrevious` is told apart: `null` (the session's first action) from left out.
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    seq = try container.decode(UInt64.self, forKey: .seq)
    time = try container.decode(Double.self, forKey: .time)
    action = try container.decodeIfPresent(EncodedJSON.self, forKey: .action)
    self.case = try container.decode(String.self, forKey: .case)
    label = try container.decode(String.self, forKey: .label)
    sincePrevious =
      container.contains(.sincePrevious)
      ? NullWhenAbsent(
        wrappedValue: try container.decodeIfPresent(Double.self, forKey: .sincePrevious))
      : nil
  }
}
