import Foundation
import Retrace
import RetraceLog
import TallyApp
import Testing

/// The app records a session with its domain and replays it with its own debugger, which
/// speaks under its own name.
@Suite struct TallyDebuggerTests {
  /// The `tally-debugger` executable, built beside the tests.
  static var debugger: URL {
    get throws {
      var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        .deletingLastPathComponent()
      while directory.path != "/" {
        let candidate = directory.appendingPathComponent("tally-debugger")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory.deleteLastPathComponent()
      }
      throw CocoaError(.fileNoSuchFile)
    }
  }

  /// Runs the debugger; returns its exit code, stdout and stderr.
  static func run(_ arguments: [String], in directory: String) throws -> (
    code: Int32, out: String, err: String
  ) {
    let process = Process()
    process.executableURL = try debugger
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
      process.terminationStatus, String(decoding: output, as: UTF8.self),
      String(decoding: errors, as: UTF8.self)
    )
  }

  @Test @MainActor func aRecordedSessionReplaysWithTheAppsOwnDebugger() throws {
    let directory = NSTemporaryDirectory() + "tally-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }

    let store = Store(initialState: tallyDomain.initialState, reducer: TallyReducer())
    let recorder = try TraceRecorder(path: directory + "/session.trace", domain: tallyDomain)
    store.attach(recorder)
    for amount in 1...40 { store.send(.add(amount)) }
    store.send(.clear)
    try recorder.close()

    let replay = try Self.run(["replay", "session.trace", "--verify"], in: directory)
    #expect(replay.code == 0, "\(replay)")
    #expect(replay.out.hasPrefix("verified session.trace: 41 actions against "))
    let domains = try Self.run(["domains"], in: directory)
    #expect(domains.out.contains("tally"))
    #expect(domains.out.contains("add, clear"))
  }

  @Test func itsUsageErrorsAndVersionCarryItsName() throws {
    let directory = NSTemporaryDirectory()
    let missing = try Self.run(["state", "nope.trace"], in: directory)
    #expect(missing.code == 3)
    #expect(missing.err == "tally-debugger: nope.trace: no such file\n")
    let usage = try Self.run(["replay"], in: directory)
    #expect(usage.code == 2)
    // One line, under the debugger's name, pointing at its help.
    #expect(usage.err.hasPrefix("tally-debugger: "))
    #expect(usage.err.hasSuffix("(see 'tally-debugger replay --help')\n"))
    #expect(try Self.run(["--version"], in: directory).out == "1.0.0\n")
    let help = try Self.run(["--help"], in: directory)
    #expect(help.out.contains("USAGE: tally-debugger <subcommand>"))
    #expect(!help.out.contains("retrace"))
  }
}
