import RetraceDebugger

/// What every command can reach besides its arguments: the registered domains.
///
/// `RetraceCommand.main(domains:)` binds the registry for the duration of the command, as a
/// task-local value, so that the commands (which swift-argument-parser creates by parsing)
/// need no global state, and tests can run commands with their own domains.
enum CommandContext {
  @TaskLocal static var registry = DomainRegistry([])
}
