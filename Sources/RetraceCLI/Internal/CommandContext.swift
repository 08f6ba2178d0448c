import Retrace
import RetraceDebugger
import RetraceLog

/// What every command can reach besides its arguments: the command's name and version,
/// the registered domains and navigation flows.
///
/// `RetraceCommand.main(domains:)` binds the registry for the duration of the command, as a
/// task-local value, so that the commands (which swift-argument-parser creates by parsing)
/// need no global state, and tests can run commands with their own domains.
enum CommandContext {
  /// The command's name, in usage lines, help and every error line (`retrace: …`).
  @TaskLocal static var name = "retrace"
  /// The version `--version` prints.
  @TaskLocal static var version = RetraceVersion.string
  @TaskLocal static var registry = DomainRegistry([])
  @TaskLocal static var flows: [NavigationFlow] = []
}
