import ArgumentParser
import Foundation
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace bench`: how fast the domain's reducer replays a trace.
struct Bench: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Benchmark decoding and reducing a trace, overall and per action case.",
    discussion: """
      Decodes and replays the trace K times. Reports decode and reduce time separately \
      (medians), nanoseconds per action overall and per action case (p50, p99), actions per \
      second, and the peak memory of the process. Build with -c release for real numbers: a \
      debug build warns on stderr, and its --json says "debugBuild": true.
      """)

  @Argument(help: "The trace to replay.")
  var trace: String

  @Option(
    name: [.customLong("repeat")], parsing: .unconditional,
    help: "How many times to decode and replay the trace.")
  var repetitions: Int = 5

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  func validate() throws {
    guard repetitions >= 1 else {
      throw ValidationError("--repeat must be at least 1, not \(repetitions).")
    }
  }

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    let file = try SessionFile.open(trace, key: key)
    try bench(try file.domain(), file, key: key)
    file.noteIfUnfinished()
  }

  private func bench<D: Domain>(_ domain: D, _ file: SessionFile, key: TracePrivateKey?) throws {
    let debugger = try file.debugger(as: domain)
    // Once the session is read: a file that cannot be is one error line, as for any command.
    if let warning = BenchBuild.warning {
      Terminal.writeError("\(CommandContext.name): warning: \(warning)")
    }
    let path = trace
    let bar = ProgressBar("benchmarking")
    let report = try debugger.bench(
      repetitions: repetitions,
      decode: { _ = try SessionFile.open(path, key: key).load(as: domain) },
      progress: bar.callback)
    bar.finish()
    if output.json {
      print(try BenchBuild.json(report))
      return
    }
    print(
      "\(trace): \(report.actions) \(domain.name) actions, \(report.repetitions) repetitions (medians)"
        .bold)
    if let decode = report.decodeSeconds, let perAction = report.decodeNanosecondsPerAction {
      print(String(format: "decode   %10.3f ms  %10.1f ns/action", decode * 1000, perAction))
    }
    print(
      String(
        format: "reduce   %10.3f ms  %10.1f ns/action", report.reduceSeconds * 1000,
        report.reduceNanosecondsPerAction))
    print(String(format: "total               %10.1f ns/action", report.nanosecondsPerAction))
    print(String(format: "throughput %.0f actions/s (reduce only)", report.actionsPerSecond))
    if let peak = report.peakMemoryBytes {
      print(String(format: "peak memory %.1f MiB", Double(peak) / 1_048_576))
    }
    let width = max(12, (report.cases.map(\.name.count).max() ?? 0) + 2)
    print(
      "case".padding(toLength: width, withPad: " ", startingAt: 0).bold
        + "count".leftPadded(to: 10).bold
        + "p50 ns".leftPadded(to: 10).bold + "p99 ns".leftPadded(to: 10).bold)
    for timing in report.cases {
      print(
        timing.name.padding(toLength: width, withPad: " ", startingAt: 0)
          + String(timing.count).leftPadded(to: 10)
          + String(format: "%.0f", timing.p50Nanoseconds).leftPadded(to: 10)
          + String(format: "%.0f", timing.p99Nanoseconds).leftPadded(to: 10))
    }
  }
}
