import ArgumentParser
@preconcurrency import Rainbow
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

/// `retrace debug`: interactive time travel through a trace.
struct Debug: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Travel through a trace interactively: next, prev, goto, state, diff, find, check.",
    discussion: """
      Reads commands from stdin, one per line, from a terminal or a pipe:

      \(debugSessionHelp)

      After each move it shows the position, the action, and what changed. When stdin is \
      not a terminal, each command is echoed after the prompt, so the output reads as a \
      transcript.
      """)

  @Argument(help: "The trace to explore.")
  var trace: String

  @Option(
    name: .long, parsing: .unconditional,
    help: "The sequence number to start at (default: 0, the initial state).",
    transform: sequenceNumber)
  var at: UInt64?

  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    let file = try SessionFile.open(trace, key: key)
    try explore(try file.domain(), file)
  }

  private func explore<D: Domain>(_ domain: D, _ file: SessionFile) throws {
    let debugger = try file.debugger(as: domain)
    if let at {
      do { try debugger.checkInRange(at) } catch { throw error.at(path: trace) }
    }
    var session = DebugSession(debugger: debugger)
    let interactive = isatty(STDIN_FILENO) != 0
    let unfinished = file.unfinished.map { " (\($0.text))" } ?? ""
    print(
      "\(trace): \(debugger.session.actions.count) \(domain.name) actions\(unfinished); type help for the commands"
        .bold)
    if let at {
      // Only where the session starts: the diff from the initial state would be all of it.
      let reply = session.perform("goto \(at)")
      print(reply.output.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? "")
    }
    while true {
      print("(\(CommandContext.name)) ".cyan, terminator: "")
      fflush(nil)
      guard let line = readLine() else {
        print("")
        break
      }
      if !interactive { print(line) }
      let reply = session.perform(line)
      show(reply)
      if reply.quits { break }
    }
  }

  private func show<D: Domain>(_ reply: DebugSession<D>.Reply) {
    guard !reply.output.isEmpty else { return }
    if reply.isError {
      // One line, whatever was typed (an escape, a NUL).
      Terminal.writeError(reply.output.oneLine())
    } else {
      print(Terminal.colorDiff(reply.output))
    }
  }
}
