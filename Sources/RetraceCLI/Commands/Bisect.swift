import ArgumentParser
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace bisect`: the first action after which an invariant fails.
struct Bisect: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Find the first action after which an invariant fails; exit 1 when it fails.",
    discussion: """
      Exact: the invariant is checked after every action, so a violation that heals later \
      is found too. Prints that action and the state diff across it; exit 0 when the \
      invariant holds throughout, exit 1 too when the session holds no actions (nothing \
      was checked) or could not be read whole (a damaged trace, or a crashed session's \
      journal damaged or missing: the actions after the damage were not checked).
      """)

  @Argument(help: "The trace to search.")
  var trace: String

  @Option(name: .long, help: "The invariant to check (see the `domains` command).")
  var invariant: String

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    // Checked whole first: whether the invariant held throughout is known only of a session
    // read to its end.
    let file = try SessionFile.open(trace, key: key).checked()
    try bisect(try file.domain(), file)
  }

  /// What `bisect` and `shrink` say of a session today's reducer does not reproduce.
  static func notReproduced(_ divergence: Divergence, trace: String) -> String {
    "(today's replay does not reproduce the recorded session: its state after action \(divergence.sequence) does not match the recorded hash, so this answer is about the replay, not about what the recorded session did; \(CommandContext.name) replay \(trace) --verify says more)"
      .oneLine()
  }

  private func bisect<D: Domain>(_ domain: D, _ file: SessionFile) throws {
    let debugger = try file.debugger(as: domain)
    let bar = ProgressBar("checking \(invariant)")
    let result: BisectResult<D>
    do {
      result = try debugger.bisect(invariant: invariant, progress: bar.callback)
    } catch {
      bar.finish()
      throw error.at(path: trace)
    }
    bar.finish()
    // The search replays with today's reducer. When that replay does not reproduce the
    // recorded hashes (an app version that had the bug, replayed by the fixed one), what it
    // finds is about the replay, not about what the recorded session did.
    let reproduction = debugger.reproduction(progress: ProgressBar("checking the recorded hashes"))
    let divergence = reproduction.divergence
    let writer = JSONLines.ActionWriter<D.Action>()
    let actionJSON = result.action.flatMap { try? writer.json(for: $0.action) }
    // Holding in the starting state alone is no pass: no action was checked.
    let nothingChecked = result.firstViolation == nil && debugger.session.actions.isEmpty
    // A time-travel jump right after an action sets the state there: the answer says so,
    // rather than lay the jump's change at the action's door.
    let failsAtJump = result.firstViolation.map(debugger.jumped(after:)) ?? false
    let healsAtJump = result.healedAt.map(debugger.jumped(after:)) ?? false
    let jumpNote = " (the time-travel jump after it set the state: the action alone did not)"
    // Damage in the trace or its journal: the actions after it were not checked.
    let notWhole = file.notWhole(intactActions: debugger.session.actions.count)
    if output.json {
      print(
        try ReportJSON.text(
          BisectReport(
            invariant: invariant, firstViolation: result.firstViolation,
            action: try actionJSON.map(JSONFragment.init(json:)), healedAt: result.healedAt,
            actions: debugger.session.actions.count, nothingChecked: nothingChecked,
            failsAtJump: failsAtJump, healsAtJump: healsAtJump, readWhole: notWhole == nil,
            integrity: notWhole.map(IntegrityJSON.init), unfinished: file.unfinished != nil,
            recoveredActions: file.unfinished?.recoveredActions ?? 0,
            // Unknown, not true, when no recorded hash was compared (JSON Lines hold none).
            reproduced: reproduction.hashesChecked == 0 ? nil : divergence == nil,
            divergedAt: divergence?.sequence)))
    } else if let violation = result.firstViolation {
      if let action = result.action, actionJSON != nil {
        print(
          "\(invariant) first fails after action \(violation) of \(debugger.session.endSequence):"
            .red.bold
            + " \(writer.text(for: action.action).oneLine())"
            + ActionDisplayFormats(domain).note(for: action.action).oneLine()
            + " at \(formatTime(action.time))" + (failsAtJump ? jumpNote : ""))
        print(
          result.stateDiff.map { Terminal.colorDiff(displayFormatted($0, domain.displayFormats)) }
            ?? "(the action changed nothing)")
      } else {
        print("\(invariant) fails already in the initial state (\(violation))".red.bold)
      }
      print(
        result.healedAt.map { "it holds again after action \($0)" + (healsAtJump ? jumpNote : "") }
          ?? "it stays broken to the end (\(debugger.session.endSequence))")
    } else if let notWhole {
      let read = debugger.session.actions.count
      print(
        (read == 0
          ? "\(invariant): nothing was checked: the session could not be read whole, and no action came before the damage: \(notWhole.summary)"
          : "\(invariant) holds after each of the \(read) actions read, but the session could not be read whole, so the actions after them were not checked: \(notWhole.summary)")
          .oneLine().red)
    } else if nothingChecked {
      print(
        "\(invariant): nothing was checked: the session holds no actions (the state it starts from was checked, and it holds)"
          .red)
    } else {
      print(
        "\(invariant) holds after every one of the \(debugger.session.actions.count) actions".green)
    }
    if let notWhole, result.firstViolation != nil, !output.json {
      print("(the session could not be read whole: \(notWhole.summary.oneLine()))")
    }
    if !output.json, let unfinished = file.unfinished {
      print("(\(unfinished.text): it never closed, so it ends where the recording stopped)")
    }
    if !output.json, let divergence {
      print(Self.notReproduced(divergence, trace: trace).red)
    }
    if result.firstViolation != nil || nothingChecked || notWhole != nil || divergence != nil {
      throw ExitCode(RetraceExitCode.negative.rawValue)
    }
  }
}

extension ReplayEngine {
  /// Whether today's replay of the session reproduces the recorded hashes: one more
  /// replay, with the recorded checkpoints and snapshots compared (``verify(progress:)``).
  func reproduction(progress bar: ProgressBar) -> VerificationReport {
    defer { bar.finish() }
    return verify(progress: bar.callback)
  }
}
