import ArgumentParser
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace shrink`: a minimal trace that still breaks an invariant.
struct Shrink: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Shrink a trace to a 1-minimal action sequence that still breaks an invariant.",
    discussion: """
      Delta debugging (ddmin): removing any one action of the result makes the invariant \
      hold. The result is written as a valid trace; with --emit-test, stdout gets a Swift \
      Testing test that replays it and expects the failure (and the summary goes to \
      stderr). Exit 1 when the invariant never fails, so there is nothing to shrink.
      """)

  @Argument(help: "The trace to shrink.")
  var trace: String

  @Option(
    name: .long,
    help: "The invariant the shrunk trace must still break (see the `domains` command).")
  var invariant: String

  @Option(
    name: .shortAndLong, help: "The file to write the shrunk trace to.", transform: outputName)
  var output: String

  @Flag(
    name: .long,
    help: "Print a Swift Testing test that replays the shrunk actions and expects the failure.")
  var emitTest = false

  @Option(
    name: .long,
    help: "With --emit-test: the Swift expression for the domain value (default: <domain>Domain).")
  var domainExpression: String?

  @OptionGroup var formatOptions: TraceFormatOptions
  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  func validate() throws {
    try DomainExpression.validate(domainExpression)
  }

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    let file = try SessionFile.open(trace, key: key)
    try shrink(try file.domain(), file)
  }

  private func shrink<D: Domain>(_ domain: D, _ file: SessionFile) throws {
    let debugger = try file.debugger(as: domain)
    let bar = ProgressBar("shrinking")
    let shrunk: ShrinkResult<D>?
    do {
      shrunk = try debugger.shrink(invariant: invariant, progress: bar.callback)
    } catch {
      bar.finish()
      throw error.at(path: trace)
    }
    bar.finish()
    // As for `bisect`: an answer about a replay that does not reproduce the recording.
    let divergence = debugger.reproduction(
      progress: ProgressBar("checking the recorded hashes")
    ).divergence
    if let divergence {
      Terminal.writeError(
        "\(CommandContext.name): \(trace): " + Bisect.notReproduced(divergence, trace: trace))
    }
    guard let shrunk else {
      // Of a session without actions, "holds after every action" would claim a check; of
      // one not read whole (damage, a crashed session's journal damaged or missing), it
      // would claim the actions after the damage.
      let count = debugger.session.actions.count
      let why: String
      if let notWhole = file.checked().notWhole(intactActions: count) {
        why =
          "\(invariant) holds after each of the \(count) actions read, but the session could not be read whole (\(notWhole.summary)); nothing to shrink"
      } else if count == 0 {
        why = "the session holds no actions; nothing to shrink"
      } else {
        why = "\(invariant) holds after every action; nothing to shrink"
      }
      Terminal.writeError("\(CommandContext.name): \(trace): \(why)".oneLine())
      throw ExitCode(RetraceExitCode.negative.rawValue)
    }
    try SessionFile.write(
      shrunk.session, domain: domain, to: output, formatVersion: formatOptions.traceFormat)
    let summary =
      "shrunk \(shrunk.originalCount) actions to \(shrunk.actions.count) that still break \(invariant) "
      + "(\(shrunk.replays) replays); wrote \(output)"
    if emitTest {
      Terminal.writeError(summary)
      print(
        shrunk.swiftTest(
          domainExpression: domainExpression, domainInitialState: domain.initialState),
        terminator: "")
    } else {
      print(summary)
      let writer = JSONLines.ActionWriter<D.Action>()
      let formats = ActionDisplayFormats(domain)
      let width = String(shrunk.actions.last?.sequence ?? 0).count
      for action in shrunk.actions {
        print(
          "  " + String(action.sequence).leftPadded(to: width) + "  "
            + writer.text(for: action.action) + formats.note(for: action.action))
      }
    }
  }
}
