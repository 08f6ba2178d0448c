import ArgumentParser
import Foundation
import RetraceLog

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `retrace upgrade`: a trace rewritten in the current format (or format 1), without its
/// domain.
struct Upgrade: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Rewrite a trace in the current trace format (or format 1), of any domain.",
    discussion: """
      Only each chunk's content is re-encoded: no action is decoded, so the trace's domain \
      need not be one this tool knows. Everything else is kept: the header, the chunks with \
      their checkpoints, snapshots and jumps, the end and the index. An unfinished trace \
      stays unfinished: the actions recovered from its journal become its last chunk, and an \
      empty journal is written beside the output. A closed trace already in the format asked \
      for is copied as it is. A damaged trace is refused, and nothing is written; OLD is \
      never changed.
      """)

  @Argument(help: "The trace to rewrite (OLD).")
  var trace: String

  @Option(name: .shortAndLong, help: "The trace to write (NEW).", transform: outputName)
  var output: String

  @OptionGroup var formatOptions: TraceFormatOptions
  @OptionGroup var json: JSONOptions
  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    try Self.refuseSameFile(trace, output)
    let bar = ProgressBar("upgrading \(trace.oneLine())")
    var summary: TraceTranscoder.Summary?
    try OutputFile.replace(output) { file throws(TraceError) in
      summary = try TraceTranscoder.rewrite(
        trace, to: file, formatVersion: formatOptions.traceFormat, key: key,
        progress: bar.callback)
    }
    bar.finish()
    guard let summary else { return }
    if json.json {
      print(try ReportJSON.text(UpgradeReport(file: trace, output: output, summary)))
      return
    }
    print(Self.text(summary, trace: trace, output: output).oneLine())
  }

  /// What the command says of a rewrite, in a line.
  static func text(_ summary: TraceTranscoder.Summary, trace: String, output: String) -> String {
    if summary.copied {
      return "\(trace) is format \(summary.toVersion) already: copied to \(output) as it is"
        + (summary.contentsChecked
          ? ""
          : " (encrypted, and no key given: its sealed chunks were copied unchecked; --key checks them)")
    }
    var text =
      "wrote \(output) in format \(summary.toVersion) from \(trace) (format \(summary.fromVersion)): \(summary.actions) actions in \(summary.chunks) chunks"
    if summary.encrypted { text += ", encrypted to the same key" }
    if summary.unfinished {
      text +=
        "; unfinished, as \(trace) is: \(summary.recoveredActions) actions recovered from its journal are its last chunk, and an empty journal is beside it"
    }
    return text
  }

  /// Refuses an output that is the trace itself, or its journal: the trace read is never
  /// overwritten.
  private static func refuseSameFile(_ trace: String, _ output: String) throws(TraceError) {
    var old = stat()
    var new = stat()
    guard stat(output, &new) == 0 else { return }
    for file in [trace, trace + ".journal"]
    where stat(file, &old) == 0 && old.st_dev == new.st_dev && old.st_ino == new.st_ino {
      throw TraceError(
        .io,
        "is \(file == trace ? "the trace being upgraded" : "the journal of the trace being upgraded"); write the new trace to another file",
        path: output)
    }
  }
}
