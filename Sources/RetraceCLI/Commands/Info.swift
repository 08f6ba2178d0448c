import ArgumentParser
import Foundation
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger

/// `retrace info`: what a trace holds, and whether it is intact.
struct Info: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show a trace's domain, session, actions per case, size and integrity.",
    discussion: "Reads a trace without decoding its actions, so it needs no registered domain.")

  @Argument(help: "The trace to describe.")
  var trace: String

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions

  mutating func run() async throws {
    Terminal.configureColor(colorOptions)
    let summary = try SessionFile.open(trace).summary()
    let count = summary.actionCount
    let bytesPerAction = count == 0 ? nil : Double(summary.bytes) / Double(count)
    let integrity = summary.integrity

    if output.json {
      print(
        JSONValue.object([
          ("file", .string(trace)),
          ("format", .string(summary.format)),
          ("domain", .string(summary.info.domain)),
          ("actionSchemaVersion", .int(Int64(summary.info.actionSchemaVersion))),
          ("producer", .string(summary.info.producer)),
          ("sessionID", .string(summary.info.sessionID)),
          ("startTime", .double(summary.info.startTime)),
          ("duration", .double(summary.duration)),
          ("actions", .int(Int64(count))),
          ("firstSequence", .uint(summary.firstSequence)),
          ("lastSequence", .uint(summary.lastSequence)),
          ("actionCases", .object(summary.caseCounts.map { ($0.name, .int(Int64($0.count))) })),
          ("blocks", .optional(summary.blocks) { .int(Int64($0)) }),
          ("snapshots", .int(Int64(summary.snapshots))),
          ("checkpoints", .int(Int64(summary.checkpoints))),
          ("bytes", .int(Int64(summary.bytes))),
          ("bytesPerAction", .optional(bytesPerAction) { .double(($0 * 100).rounded() / 100) }),
          ("integrity", integrity.json),
        ]).text)
      return
    }

    let labelWidth = 13
    // Values come from the file: a control character in one is shown escaped.
    func row(_ label: String, _ value: String) {
      print(
        label.padding(toLength: labelWidth, withPad: " ", startingAt: 0).bold
          + Terminal.oneLine(value))
    }
    row("file", "\(trace) (\(summary.format))")
    row("domain", "\(summary.info.domain) (action schema \(summary.info.actionSchemaVersion))")
    row("producer", summary.info.producer)
    row("session", summary.info.sessionID)
    row("start", formatTime(summary.info.startTime))
    row(
      "duration",
      formatDuration(summary.duration)
        + (summary.firstTime.map { " (first action at \(formatTime($0)))" } ?? ""))
    row(
      "actions",
      count == 0 ? "0" : "\(count) (sequence \(summary.firstSequence)...\(summary.lastSequence))")
    let nameWidth = (summary.caseCounts.map(\.name.count).max() ?? 0) + 2
    for (name, caseCount) in summary.caseCounts {
      let share = count == 0 ? 0 : Double(caseCount) * 100 / Double(count)
      print(
        "  " + name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
          + String(caseCount).leftPadded(to: 9) + "  " + String(format: "%5.1f%%", share))
    }
    row("blocks", summary.blocks.map(String.init) ?? "-")
    row("snapshots", "\(summary.snapshots)")
    row("checkpoints", "\(summary.checkpoints)")
    row(
      "bytes",
      "\(summary.bytes)" + (bytesPerAction.map { String(format: " (%.1f per action)", $0) } ?? ""))
    row("integrity", integrity.isIntact ? integrity.summary.green : integrity.summary.red)
  }
}

extension IntegrityReport {
  /// The report as `info --json` and `verify --json` print it.
  var json: JSONValue {
    .object([
      ("status", .string(status.rawValue)),
      ("intactActions", .int(Int64(intactActions))),
      ("recoveredActions", .int(Int64(recoveredActions))),
      ("problem", .optional(problem) { .string($0) }),
      ("line", .optional(line) { .int(Int64($0)) }),
      ("offset", .optional(offset) { .int(Int64($0)) }),
      ("sequence", .optional(sequence) { .uint($0) }),
    ])
  }
}

/// A duration in seconds as `3d 4h 5m 6.250s`.
func formatDuration(_ seconds: Double) -> String {
  guard seconds.isFinite, seconds >= 0 else { return "\(seconds)s" }
  var rest = seconds
  var parts: [String] = []
  for (unit, size) in [("d", 86_400.0), ("h", 3_600.0), ("m", 60.0)]
  where rest >= size || !parts.isEmpty {
    let whole = (rest / size).rounded(.down)
    parts.append("\(Int(whole))\(unit)")
    rest -= whole * size
  }
  parts.append(String(format: "%.3fs", rest))
  return parts.joined(separator: " ")
}

extension String {
  /// The string with spaces in front, to at least `width` characters.
  func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
