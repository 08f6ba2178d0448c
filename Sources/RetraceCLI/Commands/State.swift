import ArgumentParser
import Foundation
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace state`: the state after an action.
struct State: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the state after action N (by default, after the last action).")

  @Argument(help: "The trace to read.")
  var trace: String

  @Option(
    name: .long, parsing: .unconditional,
    help: "The sequence number of the action after which to show the state (0: the initial state).",
    transform: sequenceNumber)
  var at: UInt64?

  @Flag(
    name: .long,
    help: "Print all of a large state; by default it is shown only as deep as keeps it readable.")
  var full = false

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    // One state needs a few of the trace's chunks: they are read when needed, not all.
    let file = try SessionFile.open(trace, usingIndex: true, key: key)
    try show(try file.domain(), file)
  }

  private func show<D: Domain>(_ domain: D, _ file: SessionFile) throws {
    let (sequence, last, state) = try file.state(as: domain, at: at)
    if output.json {
      // The state is the output: whether the session is unfinished goes to stderr.
      file.noteIfUnfinished()
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      print(String(decoding: try encoder.encode(state), as: UTF8.self))
    } else {
      print(
        "state after \(sequence) of \(last)\(file.unfinished.map { " (\($0.text))" } ?? ""):".bold)
      if full {
        print(Terminal.lines(displayFormatted(stateDump(state), domain.displayFormats)))
      } else {
        let (text, depth) = stateDump(state, maxNodes: readableNodeCount)
        print(Terminal.lines(displayFormatted(text, domain.displayFormats)))
        if let depth {
          Terminal.writeError(
            "\(CommandContext.name): the state is large: shown \(depth) levels deep (… marks the rest); "
              + "--full prints all of it, --json too")
        }
      }
    }
  }
}
