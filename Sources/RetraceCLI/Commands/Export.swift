import ArgumentParser
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace export`: a trace as JSON Lines.
struct Export: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Export a trace as JSON Lines: a header line naming the domain, then one action per line.",
    discussion: #"Each action line is {"seq":N,"time":T,"action":{...}}; see docs/CLI.md."#)

  /// The export formats.
  enum Format: String, ExpressibleByArgument, CaseIterable {
    case jsonl
  }

  @Argument(help: "The trace to export.")
  var trace: String

  @Option(name: .long, help: "The output format.")
  var format: Format

  @Option(name: .shortAndLong, help: "The file to write (default: stdout).", transform: outputName)
  var output: String?

  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    // Checked whole first: the lines of a damaged trace end before the damage, and their
    // header says so.
    let file = try SessionFile.open(trace, key: key).checked()
    let notWhole = try export(try file.domain(), file)
    file.noteIfUnfinished()
    if notWhole { throw ExitCode(RetraceExitCode.negative.rawValue) }
  }

  /// Writes the lines; returns whether the session is not whole (a damaged trace's
  /// intact part, or lines exported from one, whose header keeps saying so).
  private func export<D: Domain>(_ domain: D, _ file: SessionFile) throws -> Bool {
    let session = try file.load(as: domain)
    let notWhole = file.notWhole(intactActions: session.actions.count)
    let damage: String? =
      if case .jsonLines(_, let header) = file.content, let damage = header.damage {
        damage
      } else {
        notWhole?.problemAt.oneLine()
      }
    // A session that never closed stays one: the lines end where its recording stopped.
    var text: String
    do {
      text =
        try JSONLines.headerLine(
          for: session, domain: domain,
          unfinishedRecoveredActions: file.unfinished?.recoveredActions, damage: damage)
        + "\n"
    } catch let error as TraceError where !session.jumps.isEmpty {
      // JSON Lines hold actions alone: the session's time-travel jumps are something the
      // format does not allow, as shrink refuses them (exit 2), not a name or a number
      // that does not exist (exit 4, which the error's code would give).
      throw DebuggerError(.unsupported, error.message, path: trace, sequence: error.sequence)
    }
    let writer = JSONLines.ActionWriter<D.Action>()
    for action in session.actions {
      text += try writer.line(for: action)
      text += "\n"
    }
    try SessionFile.writeText(text, to: output)
    if let output, output != "-" {
      Terminal.writeError(
        "exported \(session.actions.count) actions to \(output)".oneLine())
    }
    return notWhole != nil
  }
}
