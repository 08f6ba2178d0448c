/// An error reading or writing a trace: what went wrong, in which file, and where.
///
/// Modelled on swift-nio's `FileSystemError`: a ``code`` to switch on, a human ``message``,
/// the position (``offset`` in bytes, ``chunk``, ``sequence``), and the underlying
/// ``cause`` when there is one. Its ``description`` is one line, ready for a command-line
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
  }

  /// What kind of failure this is.
  public var code: Code
  /// A sentence that says what went wrong.
  public var message: String
  /// The file concerned.
  public var path: String?
  /// The byte offset in the file where the problem is, when known.
  public var offset: Int?
  /// The index of the chunk concerned, when known.
  public var chunk: Int?
  /// The sequence number concerned, when known.
  public var sequence: UInt64?
  /// The underlying error, when there is one.
  public var cause: (any Error & Sendable)?

  /// Creates an error.
  public init(
    _ code: Code, _ message: String, path: String? = nil, offset: Int? = nil, chunk: Int? = nil,
    sequence: UInt64? = nil, cause: (any Error & Sendable)? = nil
  ) {
    self.code = code
    self.message = message
    self.path = path
    self.offset = offset
    self.chunk = chunk
    self.sequence = sequence
    self.cause = cause
  }

  /// One line: the file, the position and the problem.
  public var description: String {
    var position: [String] = []
    if let offset { position.append("offset \(offset)") }
    var detail: [String] = []
    if let chunk { detail.append("chunk \(chunk)") }
    if let sequence { detail.append("sequence \(sequence)") }
    var line = path.map { "\($0): " } ?? ""
    if !position.isEmpty || !detail.isEmpty {
      line += position.joined()
      if !detail.isEmpty {
        line += (position.isEmpty ? "" : " ") + "(" + detail.joined(separator: ", ") + ")"
      }
      line += ": "
    }
    return line + message
  }

  func at(path: String) -> TraceError {
    var copy = self
    if copy.path == nil { copy.path = path }
    return copy
  }
}
