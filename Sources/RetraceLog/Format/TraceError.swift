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
  ///
  /// A struct over a private enum, not an enum, so that a new code is not a breaking change:
  /// compare with `==`, or switch with a `default`.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Wrapped: String, Hashable, Sendable {
      case notFound
      case io
      case notATrace
      case unsupportedVersion
      case truncated
      case corrupted
      case tooLarge
      case undecodable
      case wrongDomain
      case outOfRange
      case closed
      case encrypted
    }

    private let wrapped: Wrapped
    private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// The code's name, such as `notFound`.
    public var description: String { wrapped.rawValue }

    /// The file does not exist.
    public static var notFound: Code { Code(.notFound) }
    /// The file or directory could not be opened, read, written or synced.
    public static var io: Code { Code(.io) }
    /// The file is empty or does not start with a trace header.
    public static var notATrace: Code { Code(.notATrace) }
    /// The file's format version is newer than this reader knows.
    public static var unsupportedVersion: Code { Code(.unsupportedVersion) }
    /// The file ends in the middle of a frame.
    public static var truncated: Code { Code(.truncated) }
    /// A checksum, a length or a structure is wrong.
    public static var corrupted: Code { Code(.corrupted) }
    /// A length field claims more than the file or the reader's limits allow.
    public static var tooLarge: Code { Code(.tooLarge) }
    /// A record could not be decoded into the domain's action or state type.
    public static var undecodable: Code { Code(.undecodable) }
    /// The trace was recorded for another domain.
    public static var wrongDomain: Code { Code(.wrongDomain) }
    /// A number outside what the file holds or the format allows: most often a sequence
    /// number outside the trace; also a session of a report, a header field, an action
    /// schema version the domain cannot write.
    public static var outOfRange: Code { Code(.outOfRange) }
    /// The recorder was closed, or has failed before.
    public static var closed: Code { Code(.closed) }
    /// The trace is encrypted, and no key was given, or not the key it was encrypted to.
    public static var encrypted: Code { Code(.encrypted) }

    /// The code's name.
    @available(*, deprecated, renamed: "description")
    public var rawValue: String { description }

    /// The code named `rawValue`, if there is one.
    ///
    /// - Parameter rawValue: A code's name, such as `notFound`.
    @available(*, deprecated, message: "compare with the static codes, such as .notFound")
    public init?(rawValue: String) {
      guard let wrapped = Wrapped(rawValue: rawValue) else { return nil }
      self.init(wrapped)
    }
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
