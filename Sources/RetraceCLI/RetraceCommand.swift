import ArgumentParser
import Foundation
import Retrace
import RetraceDebugger
import RetraceLog

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `retrace` command line: a time-travel debugger for recorded sessions.
///
/// An app builds its own debugger, for its own domains, with an executable target of one
/// file:
///
/// ```swift
/// import RetraceCLI
///
/// @main
/// enum MyAppDebugger {
///   static func main() async {
///     await RetraceCommand.main(
///       domains: [checkoutDomain, profileDomain],
///       flows: [NavigationFlow(domain: checkoutDomain, navigation: \.navigation, rules: checkoutRules)])
///   }
/// }
/// ```
///
/// ```
/// $ my-app-debugger domains
/// checkout  The shopping cart and the payment steps.
/// ...
/// ```
///
/// The bundled `retrace` executable does exactly this with the example domains.
public struct RetraceCommand: AsyncParsableCommand {
  /// The command's name, help and subcommands; the name and version are those given to
  /// ``main(name:version:domains:flows:commands:arguments:)``.
  public static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: CommandContext.name,
      abstract: "Replay, inspect, diff, bisect, shrink and benchmark recorded sessions.",
      discussion: """
        Every command that reads a trace finds its domain (reducer, invariants) by the name in \
        the trace's header, among the domains this tool was built with (see `\(CommandContext.name) domains`). \
        Sequence number N means the state after the N-th action; 0 is the initial state.

        \(RetraceExitCode.helpText)
        """,
      version: CommandContext.version,
      subcommands: [
        Domains.self, Generate.self, Info.self, Verify.self, Log.self, State.self, Diff.self,
        Replay.self, MergeResults.self, Bisect.self, Shrink.self, Check.self, Bench.self,
        Export.self,
        Import.self, Upgrade.self, Flows.self, Keygen.self, Report.self,
        Debug.self,
      ] + CommandContext.commands
    )
  }

  /// Creates the command; swift-argument-parser calls this.
  public init() {}

  /// Runs the debugger with the command-line arguments and the given domains, and exits.
  ///
  /// Errors end the process with one line on stderr (`NAME: FILE: problem`) and the exit
  /// code of ``RetraceExitCode``; usage errors print swift-argument-parser's message and exit
  /// with 2.
  ///
  /// - Parameters:
  ///   - name: The command's name, in usage lines, help, error lines and the commands its
  ///     hints suggest (`my-app-debugger`); by default, the running executable's file name.
  ///   - version: What `--version` prints; Retrace's version by default.
  ///   - domains: The domains the debugger knows; their names must be unique.
  ///   - flows: How `flows` finds the navigation of the domains that have one.
  ///   - commands: More subcommands, after the built-in ones: `ServeCommand` of
  ///     RetraceStudio, for one.
  ///   - arguments: The arguments, without the program name; the process's by default.
  public static func main(
    name: String? = nil, version: String? = nil, domains: [any Domain],
    flows: [NavigationFlow] = [], commands: [any ParsableCommand.Type] = [],
    arguments: [String]? = nil
  ) async -> Never {
    let name = name ?? executableName
    TrapReport.install(program: name)
    let code = await run(
      name: name, version: version, domains: domains, flows: flows,
      commands: commands, arguments: arguments)
    exitProcess(code)
  }

  /// Runs the debugger like ``main(name:version:domains:flows:commands:arguments:)``, but returns
  /// the exit code instead of exiting.
  ///
  /// - Parameters:
  ///   - name: The command's name, in usage lines, help and error lines.
  ///   - version: What `--version` prints; Retrace's version by default.
  ///   - domains: The domains the debugger knows.
  ///   - flows: How `flows` finds the navigation of the domains that have one.
  ///   - commands: More subcommands, after the built-in ones.
  ///   - arguments: The arguments, without the program name; the process's by default.
  /// - Returns: The exit code.
  public static func run(
    name: String = "retrace", version: String? = nil, domains: [any Domain],
    flows: [NavigationFlow] = [], commands: [any ParsableCommand.Type] = [],
    arguments: [String]? = nil
  ) async -> Int32 {
    await StandardError.$program.withValue(name) {
      await CommandContext.$version.withValue(version ?? RetraceVersion.string) {
        await CommandContext.$commands.withValue(commands) {
          await runNamed(domains: domains, flows: flows, arguments: arguments)
        }
      }
    }
  }

  /// The running executable's file name (`my-app-debugger` for `.build/debug/my-app-debugger`),
  /// or `retrace` when the process was given none.
  static var executableName: String {
    let name = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? ""
    return name.isEmpty ? "retrace" : name
  }

  private static func runNamed(domains: [any Domain], flows: [NavigationFlow], arguments: [String]?)
    async -> Int32
  {
    let registry = DomainRegistry(domains)
    do {
      try registry.check()
    } catch {
      Terminal.writeError(error)
      return RetraceExitCode.forError(error).rawValue
    }
    let command: any ParsableCommand
    do {
      command = try parseAsRoot(arguments)
    } catch {
      // A mistyped option is the likelier cause of whatever else went wrong (a required
      // option "missing", a validation), and the suggestion says how to fix it.
      if exitCode(for: error) != .success, !message(for: error).hasPrefix("Unknown option"),
        let unknown = UnknownOption.find(
          in: arguments ?? Array(CommandLine.arguments.dropFirst()), root: self)
      {
        Terminal.writeError(
          ("\(CommandContext.name): \(unknown.message) (see '\(([CommandContext.name] + unknown.commandPath + ["--help"]).joined(separator: " "))')")
            .oneLine())
        return RetraceExitCode.usage.rawValue
      }
      return reportParseError(error)
    }
    // The subcommand's name, never its arguments (a token, a key's path): what a trap's line
    // says the process was doing.
    TrapReport.setProcessContext(
      "running `\(CommandContext.name) \(type(of: command)._commandName)`")
    do {
      try await CommandContext.$registry.withValue(registry) {
        try await CommandContext.$flows.withValue(flows) {
          if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
          } else {
            var command = command
            try command.run()
          }
        }
      }
      return succeeded()
    } catch var error as TraceError {
      if error.isKeyNeeded {
        error.message += " (--key FILE or RETRACE_KEY)"
      }
      Terminal.writeError(error)
      return RetraceExitCode.forError(error).rawValue
    } catch let error as DebuggerError {
      Terminal.writeError(error)
      return RetraceExitCode.forError(error).rawValue
    } catch let error as ExitCode {
      // A negative answer (exit 1) printed first: if the output was lost, that is the
      // answer, exit 3, not the 1 a script would take for "printed, and negative".
      if error != .success, let lost = Terminal.flushStandardOutput() {
        Terminal.writeError(lost)
        return RetraceExitCode.forError(lost).rawValue
      }
      return error.rawValue
    } catch {
      return reportParseError(error)
    }
  }

  /// Exit 0 when the output written was all delivered; else the error and exit 3, as `cat`
  /// does.
  private static func succeeded() -> Int32 {
    guard let error = Terminal.flushStandardOutput() else {
      return RetraceExitCode.success.rawValue
    }
    Terminal.writeError(error)
    return RetraceExitCode.forError(error).rawValue
  }

  /// Prints help or version to stdout (exit 0, or 3 when stdout cannot take it), or a usage
  /// error to stderr (exit 2).
  private static func reportParseError(_ error: any Error) -> Int32 {
    if exitCode(for: error) == .success {
      print(fullMessage(for: error))
      return succeeded()
    }
    // One line: the problem, and where the usage is (swift-argument-parser's full message
    // adds the option's help and the command's usage lines).
    var problem = message(for: error).oneLine()
    if problem.hasSuffix(".") { problem.removeLast() }
    var line = "\(CommandContext.name): " + problem
    if let help = fullMessage(for: error).split(separator: "\n").last(where: {
      $0.contains("See '")
    }),
      let start = help.range(of: "See '"), let end = help[start.upperBound...].firstIndex(of: "'")
    {
      line += " (see '\(help[start.upperBound..<end])')"
    }
    Terminal.writeError(line)
    return RetraceExitCode.usage.rawValue
  }
}

/// Ends the process with `code`, flushing stdout.
private func exitProcess(_ code: Int32) -> Never {
  fflush(nil)
  exit(code)
}
