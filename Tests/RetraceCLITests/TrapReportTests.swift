import Foundation
import Testing

/// A Swift runtime error in a domain's code (an overflow) stops the process, as Swift
/// requires, with one line that says what it was doing instead of a stack trace.
@Suite struct TrapReportTests {
  @Test func aTrapEndsTheProcessWithOneLineThatSaysWhatItWasDoing() throws {
    let child = try #require(
      CLI.sibling("retrace-crash-child"), "retrace-crash-child was not built")
    let directory = FileManager.default.temporaryDirectory
    let result = try CLI.run(
      child, ["--trap", "running `retrace state`"], in: directory,
      environment: ["SWIFT_BACKTRACE": ""])
    #expect(result.signaled, "\(result)")
    let lines = result.stderr.split(separator: "\n")
    let line = try #require(lines.last.map(String.init), "\(result)")
    #expect(
      line.hasPrefix(
        "retrace-crash-child: stopped by a Swift runtime error (SIG"), "\(result)")
    #expect(line.contains(") while running `retrace state`: an overflow"), "\(result)")
    #expect(!result.stderr.contains("Thread 0"), "no stack trace: \(result)")
    #expect(lines.count <= 2, "the runtime's own message at most, and the line: \(result)")
  }

  /// With `SWIFT_BACKTRACE` set, the Swift runtime's stack trace is asked for: no line.
  @Test func swiftBacktraceLeavesTheRuntimesReport() throws {
    let child = try #require(
      CLI.sibling("retrace-crash-child"), "retrace-crash-child was not built")
    let result = try CLI.run(
      child, ["--trap", "running"], in: FileManager.default.temporaryDirectory,
      environment: ["SWIFT_BACKTRACE": "enable=no"])
    #expect(result.signaled, "\(result)")
    #expect(!result.stderr.contains("stopped by a Swift runtime error"), "\(result)")
  }
}
