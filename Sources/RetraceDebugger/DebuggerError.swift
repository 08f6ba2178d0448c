/// An error from the debugger engine: a name or a number it does not know.
///
/// Reading and writing session files fails with `TraceError` (RetraceLog); the engine's
/// own failures are these. Modelled on swift-nio's `FileSystemError`: a ``code`` to switch
/// on, a human ``message``, the file (``path``) and the ``sequence`` number concerned, and
/// the underlying ``cause`` when there is one. Its ``description`` is one line, ready for a
/// command-line tool's stderr:
///
/// ```swift
/// let error = DebuggerError(.outOfRange, "out of range 0...300", path: "session.trace",
///                           sequence: 500)
/// print(error)
/// ```
///
/// ```
/// session.trace: sequence 500: out of range 0...300
/// ```
public struct DebuggerError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure this is.
  ///
  /// A struct over a private enum, not an enum, so that a new code is not a breaking change:
  /// compare with `==`, or switch with a `default`. A condition that `TraceError` also reports
  /// has the same name here: ``outOfRange``, ``wrongDomain``.
  public struct Code: Hashable, Sendable, CustomStringConvertible, CaseIterable {
    private enum Wrapped: String, Hashable, Sendable, CaseIterable {
      case unknownDomain
      case unknownInvariant
      case unknownActionCase
      case outOfRange
      case wrongDomain
      case unsupported
    }

    private let wrapped: Wrapped
    private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// The code's name, such as `unknownDomain`.
    public var description: String { wrapped.rawValue }

    /// No domain of that name is registered.
    public static var unknownDomain: Code { Code(.unknownDomain) }
    /// The domain has no invariant of that name.
    public static var unknownInvariant: Code { Code(.unknownInvariant) }
    /// The domain has no action case of that name.
    public static var unknownActionCase: Code { Code(.unknownActionCase) }
    /// A sequence number outside the session was asked for.
    public static var outOfRange: Code { Code(.outOfRange) }
    /// Two sessions that must belong to one domain belong to different ones, or a domain
    /// whose types differ from a session's was asked to read it.
    public static var wrongDomain: Code { Code(.wrongDomain) }
    /// The session holds something the operation cannot take into account: time-travel
    /// jumps, for a shrink, whose candidates replay the actions alone.
    public static var unsupported: Code { Code(.unsupported) }

    /// Every code, in the order they are declared.
    public static var allCases: [Code] { Wrapped.allCases.map(Code.init) }

    /// The former name of ``wrongDomain``, the name `TraceError` gives the same condition.
    @available(*, deprecated, renamed: "wrongDomain")
    public static var domainMismatch: Code { .wrongDomain }

    /// The code's name.
    @available(*, deprecated, renamed: "description")
    public var rawValue: String { description }

    /// The code named `rawValue`, if there is one.
    ///
    /// - Parameter rawValue: A code's name, such as `unknownDomain`.
    @available(*, deprecated, message: "compare with the static codes, such as .unknownDomain")
    public init?(rawValue: String) {
      guard let wrapped = Wrapped(rawValue: rawValue == "domainMismatch" ? "wrongDomain" : rawValue)
      else { return nil }
      self.init(wrapped)
    }
  }

  /// What kind of failure this is.
  public var code: Code
  /// A sentence that says what went wrong.
  public var message: String
  /// The file concerned, when there is one.
  public var path: String?
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
  ///   - sequence: The sequence number concerned.
  ///   - cause: The underlying error.
  public init(
    _ code: Code, _ message: String, path: String? = nil, sequence: UInt64? = nil,
    cause: (any Error & Sendable)? = nil
  ) {
    self.code = code
    self.message = message
    self.path = path
    self.sequence = sequence
    self.cause = cause
  }

  /// One line: the file, the sequence number and the problem.
  public var description: String {
    var parts: [String] = []
    if let path { parts.append(path) }
    if let sequence { parts.append("sequence \(sequence)") }
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
