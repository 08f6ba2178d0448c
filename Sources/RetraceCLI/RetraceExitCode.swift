import RetraceDebugger
import RetraceLog

/// The exit codes of `retrace`, the same for every command.
///
/// | code | meaning |
/// | --- | --- |
/// | 0 | success: the command did what was asked, and the answer is positive |
/// | 1 | a negative answer: a replay diverged, two traces differ, an invariant fails, a trace is not intact, nothing to shrink; or nothing to check: a session without actions |
/// | 2 | usage: a bad option or argument, options that do not go together, or an operation the session does not allow (`shrink` or `export` of a session with time-travel jumps) |
/// | 3 | a file: no such file, unreadable or unwritable, not a trace, damaged or truncated input, an action this tool cannot decode, an encrypted trace without its key |
/// | 4 | a name or number that does not exist: an unknown domain, invariant or action case, a sequence number out of range, traces of different domains |
public enum RetraceExitCode: Int32, Sendable, CaseIterable {
  /// The command did what was asked, and the answer is positive.
  case success = 0
  /// A negative answer: diverged, different, violated, not intact, nothing to shrink; or a
  /// check that had no action to check, which is no pass.
  case negative = 1
  /// A bad option or argument.
  case usage = 2
  /// A file problem: missing, unreadable, unwritable, not a trace, damaged.
  case file = 3
  /// An unknown name or an out-of-range number.
  case unknown = 4

  /// The exit code for an engine error: ``unknown``, for a name or number it does not know;
  /// ``usage`` for an operation the session does not allow.
  ///
  /// - Parameter error: The error.
  /// - Returns: ``unknown`` or ``usage``.
  public static func forError(_ error: DebuggerError) -> RetraceExitCode {
    switch error.code {
    case .unknownDomain, .unknownInvariant, .unknownActionCase, .outOfRange, .wrongDomain:
      .unknown
    case .unsupported: .usage
    // The engine's errors are names and numbers it does not know.
    default: .unknown
    }
  }

  /// The exit code for an error reading or writing a session file.
  ///
  /// - Parameter error: The error.
  /// - Returns: ``file`` for file problems; ``unknown`` for a sequence number outside the
  ///   session and a session of another domain.
  public static func forError(_ error: TraceError) -> RetraceExitCode {
    switch error.code {
    case .notFound, .io, .notATrace, .unsupportedVersion, .truncated, .corrupted, .tooLarge,
      .undecodable, .closed, .encrypted:
      .file
    case .outOfRange, .wrongDomain: .unknown
    default: .file
    }
  }

  /// The text of the "EXIT CODES" section of `retrace --help`.
  static let helpText = """
    EXIT CODES:
      0  success, and a positive answer
      1  a negative answer: a replay did not verify, traces differ, an invariant
         fails, a trace is not intact, or there is nothing to shrink; or
         nothing to check (a session without actions)
      2  usage: a bad option or argument, or an operation the session does
         not allow (shrink or export of a session with time-travel jumps)
      3  a file: missing, unreadable, unwritable, not a trace, damaged,
         truncated, holding an action this tool cannot decode, or
         encrypted to a key not given
      4  an unknown domain, invariant or action case, a sequence number
         out of range, or traces of different domains
    """
}
