/// An error from the coordinator module: a deep link that does not parse, a path that the
/// rules forbid, or a navigation state that breaks the rules.
///
/// Modelled on swift-nio's `FileSystemError`: a broad ``code``, a human ``message``, the
/// position of the problem (the index and text of the failing deep-link segment) and an
/// optional underlying ``cause``. Navigation actions never throw; a refused action is
/// reported in ``NavigationState/lastRefusal``, which an error can carry as ``refusalReason``.
///
/// ```swift
/// do {
///   let path = try links.path(for: "app://posts/abc", rules: rules)
/// } catch {
///   error.code            // .invalidParameter
///   error.segmentIndex    // 1
///   error.segment         // "abc"
///   print(error)          // invalid parameter at segment 1 "abc": …
/// }
/// ```
public struct CoordinatorError: Error, Hashable, Sendable {
  /// The kind of problem.
  public var code: Code
  /// What went wrong, in a sentence that names the failing part.
  public var message: String
  /// The index of the failing segment of a deep link (the URL's host is segment 0).
  public var segmentIndex: Int?
  /// The text of the failing segment, percent-decoded.
  public var segment: String?
  /// The rule that refused the path, when a rule did; its reason is a
  /// ``NavigationRefusal/Reason`` name, such as `pushNotAllowed`.
  public var refusalReason: String?
  /// An underlying problem, when there is one, described as text (the coordinator's
  /// errors are values that compare equal, so the cause is kept as its description).
  public var cause: String?

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: The kind of problem.
  ///   - message: What went wrong.
  ///   - segmentIndex: The index of the failing segment, if any.
  ///   - segment: The text of the failing segment, if any.
  ///   - refusalReason: The reason of the rule that refused, if any.
  ///   - cause: An underlying problem, if any.
  public init(
    code: Code,
    message: String,
    segmentIndex: Int? = nil,
    segment: String? = nil,
    refusalReason: String? = nil,
    cause: String? = nil
  ) {
    self.code = code
    self.message = message
    self.segmentIndex = segmentIndex
    self.segment = segment
    self.refusalReason = refusalReason
    self.cause = cause
  }

  /// The kind of a ``CoordinatorError``.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Wrapped: String, Hashable, Sendable {
      case malformedURL = "malformed URL"
      case wrongScheme = "wrong scheme"
      case emptyPath = "empty path"
      case unknownSegment = "unknown segment"
      case invalidParameter = "invalid parameter"
      case forbidden = "forbidden"
      case unlinkable = "unlinkable"
      case invalidState = "invalid state"
    }

    private let wrapped: Wrapped
    private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// A short name for the code, such as `unknown segment`.
    public var description: String { wrapped.rawValue }

    /// The text is not a URL of the form `scheme://segment/segment`.
    public static var malformedURL: Code { Code(.malformedURL) }
    /// The URL's scheme is not the table's.
    public static var wrongScheme: Code { Code(.wrongScheme) }
    /// The URL names no route at all.
    public static var emptyPath: Code { Code(.emptyPath) }
    /// No route in the table matches the segment.
    public static var unknownSegment: Code { Code(.unknownSegment) }
    /// A route matches the segment, but its parameter does not parse (`posts/abc`).
    public static var invalidParameter: Code { Code(.invalidParameter) }
    /// The flow rules forbid the path at the segment.
    public static var forbidden: Code { Code(.forbidden) }
    /// A route has no entry in the table (or none that reads back the same way), so a path
    /// cannot be turned into a link.
    public static var unlinkable: Code { Code(.unlinkable) }
    /// A navigation state breaks its structure or its rules.
    public static var invalidState: Code { Code(.invalidState) }
  }
}

extension CoordinatorError: CustomStringConvertible {
  /// The code, the position if there is one, and the message:
  /// `unknown segment at segment 1 "comments": no route matches "comments" after postDetail`.
  public var description: String {
    var text = code.description
    if let segmentIndex {
      text += " at segment \(segmentIndex)"
      if let segment { text += " \"\(segment)\"" }
    }
    text += ": " + message
    if let cause { text += " (\(cause))" }
    return text
  }
}
