import ArgumentParser
import Retrace
import RetraceDebugger
import RetraceLog

/// What every command can reach besides its arguments: the command's name and version,
/// the registered domains and navigation flows.
///
/// `RetraceCommand.main(domains:)` binds the registry for the duration of the command, as a
/// task-local value, so that the commands (which swift-argument-parser creates by parsing)
/// need no global state, and tests can run commands with their own domains.
package enum CommandContext {
  /// The command's name, in usage lines, help and every error line (`retrace: …`).
  /// Bound as ``StandardError/program``, which the session layer's warnings start with.
  package static var name: String { StandardError.program }
  /// The version `--version` prints.
  @TaskLocal package static var version = RetraceVersion.string
  @TaskLocal package static var registry = DomainRegistry([])
  @TaskLocal package static var flows: [NavigationFlow] = []
  /// Subcommands from outside this module (`serve`), after the built-in ones.
  @TaskLocal package static var commands: [any ParsableCommand.Type] = []
}
