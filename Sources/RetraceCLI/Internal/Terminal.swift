// swift-format-ignore-file: OrderedImports
// The C library comes first and `@preconcurrency`, so that Foundation's re-export of it does
// not make `stdout` a shared mutable global under strict concurrency.
#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif
import Foundation
import RetraceDebugger
import RetraceLog
@preconcurrency import Rainbow

/// stdout, stderr and colour: stdout carries data, stderr errors and progress.
enum Terminal {
  /// Turns Rainbow's colour on or off for this run: on when asked for, off when asked to be,
  /// otherwise on only when stdout is a terminal (not `TERM=dumb`) and `NO_COLOR` is unset.
  static func configureColor(_ options: ColorOptions) {
    let environment = ProcessInfo.processInfo.environment
    let automatic =
      isatty(STDOUT_FILENO) != 0 && environment["TERM"] != "dumb"
      && (environment["NO_COLOR"] ?? "").isEmpty
    let enabled = options.color ?? automatic
    Rainbow.enabled = enabled
    Rainbow.outputTarget = enabled ? .console : .unknown
  }

  /// Whether stderr is a terminal, where a progress bar may be drawn.
  static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

  /// Writes out what stdout holds in its buffer, and returns the error if any of the
  /// command's output could not be written (a full disk, a device that refuses it).
  static func flushStandardOutput() -> TraceError? {
    errno = 0
    let flushed = fflush(stdout) == 0
    let code = errno
    guard flushed, ferror(stdout) == 0 else {
      // errno tells why only when this flush failed: an earlier write's failure left only
      // the stream's error flag, and errno has changed since.
      let reason = !flushed && code != 0 ? String(cString: strerror(code)) : "a write to it failed"
      clearerr(stdout)
      return TraceError(.io, "cannot write the output: \(reason)", path: "stdout")
    }
    return nil
  }

  /// Writes `retrace: ` and the error on stderr, as one line: control, format and
  /// bidirectional characters from a file (a session ID or domain name with a newline or a
  /// terminal escape) are escaped (`String.oneLine()`).
  static func writeError(_ error: some Error & CustomStringConvertible) {
    writeError("\(CommandContext.name): " + error.description.oneLine())
  }

  /// Writes `line` and a newline on stderr, after what stdout holds.
  static func writeError(_ line: String) {
    StandardError.writeLine(line)
  }

  /// Writes `text` on stderr; a stderr that cannot take it (`2>/dev/full`, closed) is
  /// ignored, not a trap as with `FileHandle.write`: the command keeps its own outcome.
  static func writeStandardError(_ text: String) {
    StandardError.write(text)
  }

  /// A state diff with its removed lines in red and added lines in green, each line made
  /// safe to print (``lines(_:)``).
  static func colorDiff(_ text: String) -> String {
    guard Rainbow.enabled else { return lines(text) }
    return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
      let safe = line.oneLine()
      if line.hasPrefix("-") { return safe.red }
      if line.hasPrefix("+") { return safe.green }
      return safe
    }.joined(separator: "\n")
  }

  /// Text of several lines from a session (a state dump, a diff), each line made safe to
  /// print (`String.oneLine()`): its line breaks stay, every other control, format or
  /// bidirectional character in it is escaped.
  static func lines(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.oneLine() }
      .joined(separator: "\n")
  }
}

/// A line of progress on stderr, drawn only when stderr is a terminal, for work whose end is
/// not known in advance (a model checker's search); the caller decides how often to draw.
struct ProgressLine: Sendable {
  /// Whether the line is drawn: stderr is a terminal.
  let isEnabled = Terminal.stderrIsTerminal

  /// Replaces the line with `text`.
  func draw(_ text: String) {
    guard isEnabled else { return }
    Terminal.writeStandardError("\r\u{1B}[2K" + text)
  }

  /// Erases the line.
  func finish() {
    guard isEnabled else { return }
    Terminal.writeStandardError("\r\u{1B}[2K")
  }
}

/// A progress bar on stderr, drawn only when stderr is a terminal, at most ten times a second.
final class ProgressBar {
  private let label: String
  private let isEnabled: Bool
  private var lastDraw: Double = 0
  private var drawn = false

  /// Creates a bar; it draws nothing until the first update.
  ///
  /// - Parameter label: What is in progress, such as `replaying session.trace`.
  init(_ label: String, enabled: Bool = Terminal.stderrIsTerminal) {
    self.label = label
    self.isEnabled = enabled
  }

  /// Shows `done` of `total`.
  func update(_ done: Int, _ total: Int) {
    guard isEnabled, total > 0 else { return }
    let now = Date().timeIntervalSinceReferenceDate
    guard now - lastDraw >= 0.1 || done >= total else { return }
    lastDraw = now
    let fraction = min(1, Double(done) / Double(total))
    let width = 30
    let filled = Int(fraction * Double(width))
    let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
    let percent = Int(fraction * 100)
    Terminal.writeStandardError("\r\u{1B}[2K\(label) \(bar) \(percent)% (\(done)/\(total))")
    drawn = true
  }

  /// Erases the bar.
  func finish() {
    guard drawn else { return }
    Terminal.writeStandardError("\r\u{1B}[2K")
    drawn = false
  }

  /// The bar's update function, for the engine's `progress:` parameters.
  var callback: ((Int, Int) -> Void)? {
    isEnabled ? { [self] done, total in update(done, total) } : nil
  }
}
