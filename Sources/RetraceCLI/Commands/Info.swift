import ArgumentParser
import Foundation
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace info`: what a trace holds, and whether it is intact.
struct Info: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show a trace's domain, session, actions per case, size and integrity.",
    discussion: """
      Reads a trace without decoding its actions, so it needs no registered domain. A damaged \
      or truncated file is described up to the damage, and the exit code is 1.
      """)

  @Argument(help: "The trace to describe.")
  var trace: String

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  mutating func run() async throws {
    // A damaged or truncated file is described (its intact part), and is a negative answer,
    // as for `verify`: a script that checks the exit code learns of the damage.
    guard try describe() else { throw ExitCode(RetraceExitCode.negative.rawValue) }
  }

  /// Prints what the file holds; returns false when its contents were read and are not
  /// intact (damaged or truncated).
  private func describe() throws -> Bool {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    let file = try SessionFile.open(trace, key: key)
    let summary = try file.summary()
    let count = summary.actionCount
    let integrity = summary.integrity
    // Per action only over the actions the file itself holds: a crashed session's journal
    // holds the others, and its size is given apart.
    let recovered = summary.contentsRead ? integrity.recoveredActions : 0
    let inFile = count - recovered
    let bytesPerAction = inFile <= 0 ? nil : Double(summary.bytes) / Double(inFile)
    // A trace's from what every check read (the journal is not, after damage); JSON Lines'
    // from their header.
    let unfinished =
      file.traceIntegrity == nil
      ? file.unfinished
      : summary.unfinished
        ? SessionFile.Unfinished(
          recoveredActions: recovered, missingJournal: file.unfinished?.missingJournal) : nil
    let redaction = summary.info.app["redaction"]

    if output.json {
      print(
        try InfoReport(
          path: trace, summary: summary, unfinished: unfinished,
          bytesPerAction: bytesPerAction, unreadable: Self.unreadable
        ).text())
      return !summary.contentsRead || integrity.isIntact
    }

    let labelWidth = 13
    // Values come from the file: a control character in one is shown escaped.
    func row(_ label: String, _ value: String) {
      print(
        label.padding(toLength: labelWidth, withPad: " ", startingAt: 0).bold
          + value.oneLine())
    }
    row(
      "file",
      "\(trace) (\(summary.format)\(summary.formatVersion.map { ", format \($0)" } ?? ""))")
    row("domain", "\(summary.info.domain) (action schema \(summary.info.actionSchemaVersion))")
    row("producer", summary.info.producer)
    row("session", summary.info.sessionID)
    row("start", formatTime(summary.info.startTime))
    row(
      "app",
      summary.info.app.isEmpty
        ? "-"
        : summary.info.app.sorted { $0.key < $1.key }.map { "\($0): \($1)" }.joined(separator: ", ")
    )
    row("redaction", redaction ?? "none")
    if let encryption = summary.encryption {
      row(
        "encrypted",
        "to key \(encryption.keyID) (HPKE: X25519, HKDF-SHA256, ChaCha20-Poly1305)"
          + (summary.contentsRead ? ", opened with it" : ""))
    } else if let keyID = summary.info.encryptionKeyID {
      row("encrypted", "no: exported in clear from a trace encrypted to key \(keyID)")
    } else {
      row("encrypted", "no")
    }
    row(
      "duration",
      summary.contentsRead
        ? formatDuration(summary.duration)
          + (summary.firstTime.map { " (first action at \(formatTime($0)))" } ?? "")
        : "-")
    if let unfinished, !summary.contentsRead {
      // The journal's records are sealed: how many actions it holds is not known.
      row(
        "actions",
        (count == 0
          ? "0 in its chunks"
          : "\(count) in its chunks (sequence \(summary.firstSequence)...\(summary.lastSequence))")
          + "; unfinished session: the actions in its journal are not counted, as its records need the private key"
          + (unfinished.missingJournal.map { " (\($0) is missing)" } ?? ""))
    } else {
      row(
        "actions",
        (count == 0
          ? "0" : "\(count) (sequence \(summary.firstSequence)...\(summary.lastSequence))")
          + (unfinished.map { "; \($0.text)" } ?? ""))
    }
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
    if summary.jumps > 0 { row("jumps", "\(summary.jumps) (time travel: Store.jump(to:))") }
    row(
      "bytes",
      "\(summary.bytes)"
        + (bytesPerAction.map {
          String(format: " (%.1f per action", $0) + (recovered > 0 ? " in the file)" : ")")
        } ?? ""))
    if let journalBytes = summary.journalBytes {
      row(
        "journal",
        "\(journalBytes) bytes beside it, "
          + (summary.contentsRead
            ? "\(recovered) action\(recovered == 1 ? "" : "s") recovered from it"
            : "its records need the private key"))
    } else if let missing = unfinished?.missingJournal {
      row(
        "journal", "\(missing) is missing: the actions after the trace's last chunk were in it".red)
    }
    guard summary.contentsRead else {
      row("integrity", Self.unreadable.yellow)
      return true
    }
    row("integrity", integrity.isIntact ? integrity.summary.green : integrity.summary.red)
    return integrity.isIntact
  }

  /// What `info` says of an encrypted trace's contents without its key.
  static let unreadable =
    "encrypted: the framing and checksums were checked; actions, states and the journal need the private key (--key FILE or RETRACE_KEY)"
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
