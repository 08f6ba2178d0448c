import ArgumentParser
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger
import RetraceLog

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

  @Option(
    name: .long, parsing: .unconditional, help: "The first sequence number to print.",
    transform: sequenceNumber)
  var from: UInt64?

  @Option(
    name: .long, parsing: .unconditional, help: "The last sequence number to print.",
    transform: sequenceNumber)
  var to: UInt64?

  @Option(
    name: .long,
    help: """
      Print only actions of this case, such as addTransaction; a dotted path, such as \
      detail.tick, selects the actions of a child feature's case.
      """)
  var type: String?

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  func validate() throws {
    if let from, let to, from > to {
      throw ValidationError("--from (\(from)) must not be after --to (\(to)).")
    }
  }

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    // A range of actions needs only the chunks that hold them.
    let file = try SessionFile.open(trace, usingIndex: true, key: key)
    try printLog(try file.domain(), file)
    file.noteIfUnfinished()
  }

  private func printLog<D: Domain>(_ domain: D, _ file: SessionFile) throws {
    let actions = try file.actions(as: domain, from: from, through: to)
    if let type { try checkCase(type, of: domain, in: file, actions) }
    // A time-travel jump after an action is shown under it: the next action starts from the
    // state the jump set, not from this one's.
    var jumps: Set<UInt64> = []
    if case .trace(let reader) = file.content { jumps = Set(reader.jumpSequences) }
    let writer = JSONLines.ActionWriter<D.Action>()
    let formats = ActionDisplayFormats(domain)
    let width = String(actions.last).count
    var text = ""
    // What is buffered is printed also when reading stops at damage: every action read is.
    defer { print(text, terminator: "") }
    try actions.forEach { action throws in
      // Named only where the name is used: it costs a pass of the action's encoding.
      let name = type != nil || !output.json ? actionCasePath(of: action.action) : ""
      if let type, !actionCasePath(name, matches: type) { return }
      do {
        if output.json {
          text += try writer.line(for: action)
        } else {
          let payload = try writer.payloadText(for: action.action)
          text +=
            String(action.sequence).leftPadded(to: width).bold + "  " + formatTime(action.time).dim
            + "  "
            + name.cyan + (payload.isEmpty ? "" : " " + payload.oneLine())
          if !formats.isEmpty { text += formats.note(for: action.action).oneLine().dim }
        }
      } catch {
        throw TraceError(
          .undecodable, "action \(action.sequence) cannot be written as JSON: \(error)", path: trace
        )
      }
      text += "\n"
      if !output.json, jumps.contains(action.sequence) {
        text +=
          String(repeating: " ", count: width) + "  "
          + "↺ time-travel jump: the app was moved to another state after this action".yellow
          + "\n"
      }
      if text.utf8.count > 1 << 16 {
        print(text, terminator: "")
        text = ""
      }
    }
  }

  /// Fails unless `type` starts with a top-level case of `domain`. An unknown name that is
  /// the last segment of nested cases in `actions` is answered with their paths.
  private func checkCase<D: Domain>(
    _ type: String, of domain: D, in file: SessionFile, _ actions: SessionFile.Actions<D>
  ) throws {
    if CaseFilter.isKnown(type, in: domain) {
      try checkNesting(of: type, in: file, actions)
      return
    }
    let hint = try CaseFilter.nestedHint(for: type) { note in
      try actions.forEach { note(actionCasePath(of: $0.action)) }
    }
    throw DebuggerError(
      .unknownActionCase,
      "unknown action case '\(type)' for domain \(domain.name)\(hint); known: "
        + domain.actionCases.joined(separator: ", "),
      path: file.path)
  }

  /// Fails for a nested filter, `item.saved`, whose top case's actions among those read
  /// carry no nested case (a `forEach` element's action carries its id, and stays one segment):
  /// it could match nothing, and an empty answer would read as "none happened".
  private func checkNesting<D: Domain>(
    of type: String, in file: SessionFile, _ actions: SessionFile.Actions<D>
  ) throws {
    guard let dot = type.firstIndex(of: ".") else { return }
    let top = String(type[..<dot])
    var (ofTop, nested) = (false, false)
    try actions.forEach { action in
      let path = actionCasePath(of: action.action)
      if path == top { ofTop = true } else if path.hasPrefix(top + ".") { nested = true }
    }
    guard ofTop, !nested else { return }
    throw DebuggerError(
      .unknownActionCase,
      "unknown action case '\(type)': no \(top) action read has a nested case (an "
        + "action that carries more than a case, such as a forEach element's id, is one "
        + "segment); use --type \(top)",
      path: file.path)
  }
}
