/// An error reading or writing a session file (a trace, or JSON Lines): what went wrong, in
/// which file, and where.
///
/// Modelled on swift-nio's `FileSystemError`: a ``code`` to switch on, a human ``message``,
/// the position (``line`` of a JSON Lines file, ``offset`` in bytes, ``chunk``,
/// ``sequence``), and the underlying ``cause`` when there is one. Its ``description`` is one line, ready for a command-line
/// tool's stderr:
///
/// ```
/// session.trace: offset 4096 (chunk 3, sequence 2001): chunk checksum mismatch
/// ```
public struct TraceError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure this is.
  public enum Code: String, Sendable, Equatable {
    /// The file does not exist.
    case notFound
    /// The file or directory could not be opened, read, written or synced.
    case io
    /// The file is empty or does not start with a trace header.
    case notATrace
    /// The file's format version is newer than this reader knows.
    case unsupportedVersion
    /// The file ends in the middle of a frame.
    case truncated
    /// A checksum, a length or a structure is wrong.
    case corrupted
    /// A length field claims more than the file or the reader's limits allow.
    case tooLarge
    /// A record could not be decoded into the domain's action or state type.
    case undecodable
    /// The trace was recorded for another domain.
    case wrongDomain
    /// A sequence number outside the trace was asked for.
    case outOfRange
    /// The recorder was closed, or has failed before.
    case closed
    /// The trace is encrypted, and no key was given, or not the key it was encrypted to.
    case encrypted
  }

  /// What kind of failure this is.
  public var code: Code
  /// A sentence that says what went wrong.
  public var message: String
  /// The file concerned.
  public var path: String?
  /// The line (1 for the first) of a text file where the problem is, when known.
  public var line: Int?
  /// The byte offset in the file where the problem is, when known.
  public var offset: Int?
  /// The index of the chunk concerned, when known.
  public var chunk: Int?
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
  ///   - chunk: The index of the chunk concerned.
  ///   - sequence: The sequence number concerned.
  ///   - cause: The underlying error.
  public init(
    _ code: Code, _ message: String, path: String? = nil, line: Int? = nil, offset: Int? = nil,
    chunk: Int? = nil, sequence: UInt64? = nil, cause: (any Error & Sendable)? = nil
  ) {
    self.code = code
    self.message = message
    self.path = path
    self.line = line
    self.offset = offset
    self.chunk = chunk
    self.sequence = sequence
    self.cause = cause
  }

  /// One line: the file, the position and the problem.
  public var description: String {
    var position: [String] = []
    if let line { position.append("line \(line)") }
    if let offset { position.append("offset \(offset)") }
    var detail: [String] = []
    if let chunk { detail.append("chunk \(chunk)") }
    if let sequence { detail.append("sequence \(sequence)") }
    var text = path.map { "\($0): " } ?? ""
    if !position.isEmpty || !detail.isEmpty {
      // The chunk and sequence number in parentheses after a position, on their own without.
      text += position.joined(separator: ", ")
      if !detail.isEmpty {
        let details = detail.joined(separator: ", ")
        text += position.isEmpty ? details : " (\(details))"
      }
      text += ": "
    }
    return text + message
  }

  /// The same error, naming `path` as the file if it names none yet.
  ///
  /// - Parameter path: The file concerned.
  /// - Returns: The error with ``path`` set.
  public func at(path: String) -> TraceError {
    var copy = self
    if copy.path == nil { copy.path = path }
    return copy
  }
}
