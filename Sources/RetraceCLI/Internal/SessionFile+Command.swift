import Retrace
import RetraceDebugger
import RetraceLog

/// What the commands ask of a session file with the command's registered domains
/// (`CommandContext.registry`, a task-local value: only the command's own task sees it).
extension SessionFile {
  /// The registered domain the header names.
  ///
  /// - Throws: `DebuggerError` (`unknownDomain`) naming the file.
  package func domain() throws(DebuggerError) -> any Domain {
    try domain(in: CommandContext.registry)
  }

  /// Describes the file (``summary(in:)``).
  ///
  /// - Throws: `TraceError` when the file cannot be read at all; `DebuggerError` when JSON
  ///   Lines name a domain that is not registered.
  package func summary() throws -> Summary {
    try summary(in: CommandContext.registry)
  }

  /// The integrity of the file by every check, for `verify` (``integrity(in:)``).
  func integrity() throws -> IntegrityReport {
    try integrity(in: CommandContext.registry)
  }
}
