/// An error from the debugger engine: what went wrong, with which file, and where.
///
/// Modelled on swift-nio's `FileSystemError`: a ``code`` to switch on, a human ``message``,
/// the position (``line`` of a JSON Lines file, byte ``offset``, ``sequence`` number) and
/// the underlying ``cause`` when there is one. Its ``description`` is one line, ready for a
/// command-line tool's stderr:
///
/// ```swift
/// let error = DebuggerError(.damaged, "expected sequence number 8, found 10",
///                           path: "session.jsonl", line: 9)
/// print(error)
/// ```
///
/// ```
/// session.jsonl: line 9: expected sequence number 8, found 10
/// ```
public struct DebuggerError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure this is.
  public enum Code: String, Sendable, Equatable, CaseIterable {
    /// The file does not exist.
    case notFound
    /// The file could not be opened, read or written.
    case io
    /// The file is not a session this tool can read.
    case notATrace
    /// The file is a session, but part of it is damaged.
    case damaged
    /// A record could not be decoded into the domain's action or state type: an action case
    /// the domain does not have, a missing or mistyped field.
    case undecodable
    /// The file's format version is newer than this tool knows.
    case unsupportedVersion
    /// No domain of that name is registered.
    case unknownDomain
    /// The domain has no invariant of that name.
    case unknownInvariant
    /// The domain has no action case of that name.
    case unknownActionCase
    /// A sequence number outside the session was asked for.
    case outOfRange
    /// Two sessions that must belong to one domain belong to different ones.
    case domainMismatch
  }

  /// What kind of failure this is.
  public var code: Code
  /// A sentence that says what went wrong.
  public var message: String
  /// The file concerned, when there is one.
  public var path: String?
  /// The line (1 for the first) of a text file where the problem is, when known.
  public var line: Int?
  /// The byte offset in the file where the problem is, when known.
  public var offset: Int?
  /// The sequence number concerned, when known.
  public var sequence: UInt64?
  /// The underlying error, when there is one.
  public var cause: (any Error & Sendable)?

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: What kind of failure this is.
  ///   - message: A sentence that says what went wrong.
  ///   - path: The file concerned.
  ///   - line: The line of a text file where the problem is.
  ///   - offset: The byte offset where the problem is.
  ///   - sequence: The sequence number concerned.
  ///   - cause: The underlying error.
  public init(
    _ code: Code, _ message: String, path: String? = nil, line: Int? = nil, offset: Int? = nil,
    sequence: UInt64? = nil, cause: (any Error & Sendable)? = nil
  ) {
    self.code = code
    self.message = message
    self.path = path
    self.line = line
    self.offset = offset
    self.sequence = sequence
    self.cause = cause
  }

  /// One line: the file, the position and the problem.
  public var description: String {
    var parts: [String] = []
    if let path { parts.append(path) }
    var position: [String] = []
    if let line { position.append("line \(line)") }
    if let offset { position.append("offset \(offset)") }
    if let sequence {
      if position.isEmpty {
        position.append("sequence \(sequence)")
      } else {
        position[position.count - 1] += " (sequence \(sequence))"
      }
    }
    if !position.isEmpty { parts.append(position.joined(separator: ", ")) }
    parts.append(message)
    return parts.joined(separator: ": ")
  }

  /// The same error, naming `path` as the file if it names none yet.
  ///
  /// - Parameter path: The file concerned.
  /// - Returns: The error with ``path`` set.
  public func at(path: String) -> DebuggerError {
    var copy = self
    if copy.path == nil { copy.path = path }
    return copy
  }
}
