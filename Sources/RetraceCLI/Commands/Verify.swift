import ArgumentParser
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger

/// `retrace verify`: whether a trace is intact, without replaying it.
struct Verify: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Check a trace's integrity (no reducer needed); exit 1 when truncated or damaged.",
    discussion: "To check that the current reducer still reproduces a trace, use `retrace replay --verify`.")

  @Argument(help: "The trace to check.")
  var trace: String

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions

  mutating func run() async throws {
    Terminal.configureColor(colorOptions)
    let integrity = try check(try SessionFile.domain(of: trace))
    if output.json {
      print(
        JSONValue.object([
          ("file", .string(trace)),
          ("integrity", .object([
            ("status", .string(integrity.status.rawValue)),
            ("intactActions", .int(Int64(integrity.intactActions))),
            ("problem", .optional(integrity.problem) { .string($0) }),
            ("line", .optional(integrity.line) { .int(Int64($0)) }),
            ("offset", .optional(integrity.offset) { .int(Int64($0)) }),
            ("sequence", .optional(integrity.sequence) { .uint($0) }),
          ])),
        ]).text)
    } else {
      let summary = integrity.summary
      print("\(trace): " + (integrity.status == .clean ? summary.green : summary.red))
    }
    if integrity.status != .clean { throw ExitCode(RetraceExitCode.negative.rawValue) }
  }

  private func check<D: Domain>(_ domain: D) throws -> IntegrityReport {
    try SessionFile.inspect(trace, as: domain).integrity
  }
}
