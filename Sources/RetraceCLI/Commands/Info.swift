import ArgumentParser
import Foundation
import Retrace
import RetraceDebugger
@preconcurrency import Rainbow

/// `retrace info`: what a trace holds, and whether it is intact.
struct Info: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show a trace's domain, session, actions per case, size and integrity.")

  @Argument(help: "The trace to describe.")
  var trace: String

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions

  mutating func run() async throws {
    Terminal.configureColor(colorOptions)
    try describe(try SessionFile.domain(of: trace))
  }

  private func describe<D: Domain>(_ domain: D) throws {
    let inspection = try SessionFile.inspect(trace, as: domain)
    let session = inspection.session
    let cases = session.actionCaseCounts(order: domain.actionCases)
    let count = session.actions.count
    let bytesPerAction = count == 0 ? nil : Double(inspection.bytes) / Double(count)
    let firstTime = session.actions.first?.time ?? session.info.startTime

    if output.json {
      let integrity = inspection.integrity
      print(
        JSONValue.object([
          ("file", .string(trace)),
          ("format", .string(inspection.format)),
          ("domain", .string(session.info.domain)),
          ("actionSchemaVersion", .int(Int64(session.info.actionSchemaVersion))),
          ("producer", .string(session.info.producer)),
          ("sessionID", .string(session.info.sessionID)),
          ("startTime", .double(session.info.startTime)),
          ("duration", .double(session.duration)),
          ("actions", .int(Int64(count))),
          ("firstSequence", .uint(session.startSequence + (count == 0 ? 0 : 1))),
          ("lastSequence", .uint(session.endSequence)),
          ("actionCases", .object(cases.map { ($0.name, .int(Int64($0.count))) })),
          ("blocks", .optional(inspection.blocks) { .int(Int64($0)) }),
          ("snapshots", .int(Int64(session.snapshots.count))),
          ("checkpoints", .int(Int64(session.checkpoints.count))),
          ("bytes", .int(Int64(inspection.bytes))),
          ("bytesPerAction", .optional(bytesPerAction) { .double(($0 * 100).rounded() / 100) }),
          ("integrity", .object([
            ("status", .string(integrity.status.rawValue)),
            ("intactActions", .int(Int64(integrity.intactActions))),
            ("problem", .optional(integrity.problem) { .string($0) }),
            ("line", .optional(integrity.line) { .int(Int64($0)) }),
            ("offset", .optional(integrity.offset) { .int(Int64($0)) }),
            ("sequence", .optional(integrity.sequence) { .uint($0) }),
          ])),
        ]).text)
      return
    }

    let labelWidth = 13
    func row(_ label: String, _ value: String) {
      print(label.padding(toLength: labelWidth, withPad: " ", startingAt: 0).bold + value)
    }
    row("file", "\(trace) (\(inspection.format))")
    row("domain", "\(session.info.domain) (action schema \(session.info.actionSchemaVersion))")
    row("producer", session.info.producer)
    row("session", session.info.sessionID)
    row("start", formatTime(session.info.startTime))
    row("duration", formatDuration(session.duration) + (count > 0 ? " (first action at \(formatTime(firstTime)))" : ""))
    row("actions", count == 0 ? "0" : "\(count) (sequence \(session.startSequence + 1)...\(session.endSequence))")
    let nameWidth = (cases.map(\.name.count).max() ?? 0) + 2
    for (name, caseCount) in cases {
      let share = count == 0 ? 0 : Double(caseCount) * 100 / Double(count)
      print("  " + name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
        + String(caseCount).leftPadded(to: 9) + "  " + String(format: "%5.1f%%", share))
    }
    row("blocks", inspection.blocks.map(String.init) ?? "-")
    row("snapshots", "\(session.snapshots.count)")
    row("checkpoints", "\(session.checkpoints.count)")
    row("bytes", "\(inspection.bytes)" + (bytesPerAction.map { String(format: " (%.1f per action)", $0) } ?? ""))
    let integrity = inspection.integrity
    row("integrity", integrity.status == .clean ? integrity.summary.green : integrity.summary.red)
  }
}

/// A duration in seconds as `3d 4h 5m 6.250s`.
func formatDuration(_ seconds: Double) -> String {
  guard seconds.isFinite, seconds >= 0 else { return "\(seconds)s" }
  var rest = seconds
  var parts: [String] = []
  for (unit, size) in [("d", 86_400.0), ("h", 3_600.0), ("m", 60.0)] where rest >= size || !parts.isEmpty {
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
