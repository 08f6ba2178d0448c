import RetraceLog

/// A file's integrity, as `info`, `verify`, `replay --verify` and `bisect` report it
/// (``IntegrityReport``), and as every answer of the Studio gives it. In the session layer,
/// beside the report it encodes; a live session that has diverged rewrites its `status`,
/// `problem` and `sequence` before it is written.
package struct IntegrityJSON: Codable, Sendable, Equatable {
  /// `clean`, `unfinished`, `truncated`, `damaged`, or `encrypted` for a trace read
  /// without its key.
  package var status: String
  package var intactActions: Int
  /// `nil` (and left out, with `line`, `offset` and `sequence`) only for `encrypted`.
  package var recoveredActions: Int?
  package var problem: String?
  /// The file the problem is in when it is not the session's own (its journal); left out
  /// otherwise.
  package var file: String?
  package var line: Int?
  package var offset: Int?
  package var sequence: UInt64?

  package init(
    status: String, intactActions: Int, recoveredActions: Int?, problem: String?,
    file: String? = nil, line: Int? = nil, offset: Int? = nil, sequence: UInt64? = nil
  ) {
    self.status = status
    self.intactActions = intactActions
    self.recoveredActions = recoveredActions
    self.problem = problem
    self.file = file
    self.line = line
    self.offset = offset
    self.sequence = sequence
  }

  package init(_ report: IntegrityReport) {
    self.init(
      status: report.status.rawValue, intactActions: report.intactActions,
      recoveredActions: report.recoveredActions, problem: report.problem, file: report.file,
      line: report.line, offset: report.offset, sequence: report.sequence)
  }

  /// An encrypted trace read without its key: only its framing and checksums were checked.
  package static func encrypted(intactActions: Int, problem: String) -> IntegrityJSON {
    IntegrityJSON(
      status: "encrypted", intactActions: intactActions, recoveredActions: nil, problem: problem)
  }

  private enum CodingKeys: String, CodingKey {
    case status, intactActions, recoveredActions, problem, file, line, offset, sequence
  }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(status, forKey: .status)
    try container.encode(intactActions, forKey: .intactActions)
    try container.encode(problem, forKey: .problem)
    try container.encodeIfPresent(file, forKey: .file)
    guard status != "encrypted" else { return }
    try container.encode(recoveredActions, forKey: .recoveredActions)
    try container.encode(line, forKey: .line)
    try container.encode(offset, forKey: .offset)
    try container.encode(sequence, forKey: .sequence)
  }
}
