import ArgumentParser
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger

/// `retrace log`: one line per action.
struct Log: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the actions, one per line: sequence number, time and action.",
    discussion: """
      With --json, prints JSON Lines: {"seq":N,"time":T,"action":{...}}, with T in seconds \
      since 1970.
      """)

  @Argument(help: "The trace to read.")
  var trace: String

  @Option(name: .long, help: "The first sequence number to print.")
  var from: UInt64?

  @Option(name: .long, help: "The last sequence number to print.")
  var to: UInt64?

  @Option(name: .long, help: "Print only actions of this case, such as addTransaction.")
  var type: String?

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions

  func validate() throws {
    if let from, let to, from > to {
      throw ValidationError("--from (\(from)) must not be after --to (\(to)).")
    }
  }

  mutating func run() async throws {
    Terminal.configureColor(colorOptions)
    let file = try SessionFile.open(trace)
    try printLog(try file.domain(), file)
  }

  private func printLog<D: Domain>(_ domain: D, _ file: SessionFile) throws {
    let session = try file.load(as: domain)
    if let type, !domain.actionCases.contains(type) {
      throw DebuggerError(
        .unknownActionCase,
        "unknown action case '\(type)' for domain \(domain.name); known: "
          + domain.actionCases.joined(separator: ", "))
    }
    let first = session.startSequence + (session.actions.isEmpty ? 0 : 1)
    for bound in [from, to].compactMap({ $0 }) where !(first...max(first, session.endSequence)).contains(bound) {
      throw DebuggerError(
        .outOfRange, "sequence number \(bound) is out of range \(first)...\(session.endSequence)", path: trace)
    }
    guard !session.actions.isEmpty else { return }
    let lower = from ?? first
    let upper = to ?? session.endSequence
    let writer = JSONLines.ActionWriter<D.Action>()
    let width = String(session.endSequence).count
    var text = ""
    for sequence in lower...upper {
      guard let action = session.action(at: sequence) else { continue }
      if let type, actionCaseName(of: action.action) != type { continue }
      if output.json {
        text += try writer.line(for: action)
      } else {
        let name = actionCaseName(of: action.action)
        text += String(sequence).leftPadded(to: width).bold + "  " + formatTime(action.time).dim + "  "
          + name.cyan + " " + (try writer.json(for: action.action))
      }
      text += "\n"
      if text.utf8.count > 1 << 16 {
        print(text, terminator: "")
        text = ""
      }
    }
    print(text, terminator: "")
  }
}
