import ArgumentParser
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace verify`: whether a trace is intact, without replaying it.
struct Verify: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Check a trace's integrity (no reducer needed); exit 1 when truncated or damaged.",
    discussion: """
      Checks every chunk's checksum and the index. Exit 0 when the trace is clean, or \
      unfinished (never closed, but every record intact, its journal folded in); exit 1 when \
      it is truncated or damaged, with where and why, or holds no actions (nothing was \
      checked). To check that the current reducer still reproduces a trace, use \
      `replay --verify`.
      """)

  @Argument(help: "The trace to check.")
  var trace: String

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    let file = try SessionFile.open(trace, key: key)
    let integrity = try file.integrity()
    // A trace's as every check found it (damage found late leaves no journal actions);
    // JSON Lines' from their header.
    let unfinished =
      file.traceIntegrity == nil
      ? file.unfinished
      : file.unfinished.map {
        SessionFile.Unfinished(
          recoveredActions: integrity.recoveredActions, missingJournal: $0.missingJournal)
      }
    // A file with no action to check has not passed: its framing was all there was.
    let nothingChecked = integrity.isIntact && integrity.intactActions == 0
    if output.json {
      print(
        try ReportJSON.text(
          VerifyReport(
            file: trace, integrity: IntegrityJSON(integrity), unfinished: unfinished != nil,
            recoveredActions: unfinished?.recoveredActions ?? 0, nothingChecked: nothingChecked)))
    } else {
      var summary = integrity.summary
      // A trace's `unfinished` says so already, and a torn trace's `truncated`, unless its
      // journal gave actions too; JSON Lines exported from one say it here.
      if let unfinished,
        integrity.status == .clean
          || (integrity.status != .unfinished && unfinished.recoveredActions > 0)
      {
        summary += " (\(unfinished.text))"
      }
      if nothingChecked {
        summary += "; but it holds no actions: nothing was checked beyond its header"
      }
      let line = "\(trace): \(summary)".oneLine()
      print(integrity.isIntact && !nothingChecked ? line.green : line.red)
    }
    if !integrity.isIntact || nothingChecked {
      throw ExitCode(RetraceExitCode.negative.rawValue)
    }
  }
}
