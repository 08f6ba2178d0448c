/// Whether a session file is whole: clean, unfinished (never closed, every record intact),
/// truncated (it stops part-way through a record, as after a crash), or damaged (a record
/// in the middle is wrong, or an unfinished trace's journal is damaged or missing), and
/// where.
///
/// `Codable` with these property names as keys (`file` only when set): `retrace info --json`
/// and `retrace verify --json` print it as `integrity`.
///
/// ```json
/// {"status":"truncated","intactActions":999,"recoveredActions":0,"problem":"not a JSON object","line":1001,"offset":null,"sequence":null}
/// ```
public struct IntegrityReport: Codable, Equatable, Sendable {
  /// The three outcomes.
  public enum Status: String, Codable, Equatable, Sendable {
    /// Every record is intact and the file ends where it should.
    case clean
    /// Every record is intact, but the session never closed (it crashed, or is still
    /// recording); the records its journal held were read too.
    case unfinished
    /// The file stops part-way through a record; everything before it is intact.
    case truncated
    /// A record is wrong; everything before it is intact.
    case damaged
  }

  /// The outcome.
  public var status: Status
  /// The number of intact actions before the problem (all of them when clean or unfinished).
  public var intactActions: Int
  /// Actions read from an unfinished session's journal, which its chunks did not hold yet.
  public var recoveredActions: Int = 0
  /// What is wrong, when the file is not clean.
  public var problem: String?
  /// The file the problem is in, when it is not the session file itself: the journal of an
  /// unfinished trace, damaged or missing. ``offset`` is then in that file.
  public var file: String?
  /// The line of a text file where the problem is, when known.
  public var line: Int?
  /// The byte offset where the problem is, when known.
  public var offset: Int?
  /// The sequence number of the first action lost, when known.
  public var sequence: UInt64?

  /// Creates a report.
  ///
  /// - Parameters:
  ///   - status: The outcome.
  ///   - intactActions: The number of intact actions before the problem.
  ///   - problem: What is wrong.
  ///   - line: The line where the problem is.
  ///   - offset: The byte offset where the problem is.
  ///   - sequence: The sequence number of the first action lost.
  public init(
    status: Status, intactActions: Int, problem: String? = nil, line: Int? = nil,
    offset: Int? = nil,
    sequence: UInt64? = nil
  ) {
    self.status = status
    self.intactActions = intactActions
    self.problem = problem
    self.line = line
    self.offset = offset
    self.sequence = sequence
  }

  /// Whether the file holds every record it should: clean or unfinished.
  public var isIntact: Bool { status == .clean || status == .unfinished }

  /// One line for people: `clean`, or the status, the position and the problem.
  public var summary: String {
    guard status != .clean else { return "clean" }
    guard status != .unfinished else {
      return
        "unfinished: the session never closed; \(recoveredActions) action\(recoveredActions == 1 ? "" : "s") recovered from its journal"
    }
    return "\(problemAt) (\(intactActions) intact actions before it)"
  }

  /// The status, the position and the problem (``summary`` without the count of intact
  /// actions): `damaged at offset 1433, sequence 81: …`.
  public var problemAt: String {
    var position: [String] = []
    if let file { position.append(file) }
    if let line { position.append("line \(line)") }
    if let offset { position.append("offset \(offset)") }
    if let sequence { position.append("sequence \(sequence)") }
    let at = position.isEmpty ? "" : " at " + position.joined(separator: ", ")
    return "\(status.rawValue)\(at): \(problem ?? "unknown problem")"
  }
}
