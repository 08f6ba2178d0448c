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
      it is truncated or damaged, with where and why. To check that the current reducer still \
      reproduces a trace, use `replay --verify`.
      """)

  @Argument(help: "The trace to check.")
  var trace: String

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    let integrity = try SessionFile.open(trace, key: key).integrity()
    if output.json {
      print(JSONValue.object([("file", .string(trace)), ("integrity", integrity.json)]).text)
    } else {
      let summary = integrity.summary
      let line = Terminal.oneLine("\(trace): \(summary)")
      print(integrity.isIntact ? line.green : line.red)
    }
    if !integrity.isIntact { throw ExitCode(RetraceExitCode.negative.rawValue) }
  }
}
