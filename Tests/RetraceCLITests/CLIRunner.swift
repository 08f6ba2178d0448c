import Foundation
import RetraceTestSupport
import Testing

/// What one run of the `retrace` executable produced.
struct CLIResult: CustomStringConvertible {
  var stdout: String
  var stderr: String
  var exitCode: Int32
  /// Whether the process was killed by a signal (a trap is SIGILL or SIGTRAP), in which
  /// case ``exitCode`` is the signal's number, not an exit code.
  var signaled = false

  var description: String {
    "\(signaled ? "killed by signal" : "exit") \(exitCode)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
  }

  /// stdout parsed as one JSON object.
  func json() throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(
      with: Data(stdout.utf8), options: [.fragmentsAllowed])
    return try #require(object as? [String: Any], "not a JSON object: \(stdout)")
  }
}

/// Runs the built `retrace` executable, as swift-argument-parser's example tests run theirs.
enum CLI {
  /// The executable: `RETRACE_BINARY` if set, else `retrace` beside the test bundle, else in
  /// the package's `.build/debug`.
  static let binary: URL? = {
    let fileManager = FileManager.default
    var candidates: [URL] = []
    if let path = ProcessInfo.processInfo.environment["RETRACE_BINARY"] {
      candidates.append(URL(fileURLWithPath: path))
    }
    // Linux runs the test bundle itself as an executable in the build directory; on macOS
    // it is a .xctest bundle in that directory.
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    candidates.append(executable.deletingLastPathComponent().appendingPathComponent("retrace"))
    for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
      candidates.append(
        bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("retrace"))
    }
    candidates.append(Bundle.main.bundleURL.appendingPathComponent("retrace"))
    // The package's own build directory, from this file's path.
    let packageRoot = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(packageRoot.appendingPathComponent(".build/debug/retrace"))
    return candidates.first { fileManager.isExecutableFile(atPath: $0.path) }
  }()

  /// An executable of the package built beside `retrace` (such as `retrace-crash-child`).
  static func sibling(_ name: String) -> URL? {
    guard let directory = binary?.deletingLastPathComponent() else { return nil }
    let candidate = directory.appendingPathComponent(name)
    return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
  }

  /// Runs `retrace` with `arguments` in `directory`, with `input` on stdin.
  static func run(
    _ arguments: [String], in directory: URL, input: String = "",
    environment: [String: String] = [:]
  ) throws -> CLIResult {
    let binary = try #require(binary, "no retrace executable found; build it with `swift build`")
    return try run(binary, arguments, in: directory, input: input, environment: environment)
  }

  /// Runs `executable` (such as one of the package's scripts) with `arguments` in
  /// `directory`, with `input` on stdin.
  static func run(
    _ executable: URL, _ arguments: [String], in directory: URL, input: String = "",
    environment: [String: String] = [:]
  ) throws -> CLIResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var processEnvironment = ProcessInfo.processInfo.environment
    processEnvironment.removeValue(forKey: "NO_COLOR")
    processEnvironment.removeValue(forKey: "FORCE_COLOR")
    processEnvironment.merge(environment) { $1 }
    process.environment = processEnvironment

    // Files, not pipes: no deadlock however much the process writes.
    let id = UUID().uuidString
    let inputURL = directory.appendingPathComponent(".stdin-\(id)")
    let outputURL = directory.appendingPathComponent(".stdout-\(id)")
    let errorURL = directory.appendingPathComponent(".stderr-\(id)")
    try Data(input.utf8).write(to: inputURL)
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    defer {
      for url in [inputURL, outputURL, errorURL] { try? FileManager.default.removeItem(at: url) }
    }
    let inputHandle = try FileHandle(forReadingFrom: inputURL)
    let outputHandle = try FileHandle(forWritingTo: outputURL)
    let errorHandle = try FileHandle(forWritingTo: errorURL)
    process.standardInput = inputHandle
    process.standardOutput = outputHandle
    process.standardError = errorHandle
    try process.run()
    // A command that hangs (a regression that waits on a pipe) fails its test instead of
    // holding the whole run: Swift Testing's time limits cannot interrupt this wait.
    let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + 300, execute: watchdog)
    process.waitUntilExit()
    watchdog.cancel()
    try inputHandle.close()
    try outputHandle.close()
    try errorHandle.close()
    return CLIResult(
      stdout: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
      stderr: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self),
      exitCode: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal)
  }

  /// ``run(_:_:in:input:environment:)`` on a thread of its own: a long run (such as one of
  /// the package's scripts) must not hold one of the few threads that the suite's async tests
  /// share, or on a 2-core machine their timeouts fire while they wait for a thread.
  static func runOnOwnThread(
    _ executable: URL, _ arguments: [String], in directory: URL, environment: [String: String] = [:]
  ) async throws -> CLIResult {
    try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(
          with: Result { try run(executable, arguments, in: directory, environment: environment) })
      }.start()
    }
  }
}

/// A temporary directory for one test, with a `retrace` runner that works in it; removed
/// with everything in it when the test lets go of it.
final class Workspace: Sendable {
  let directory: URL

  init() throws {
    directory = try Fixtures.temporaryDirectory()
  }

  deinit {
    try? FileManager.default.removeItem(at: directory)
  }

  /// Runs `retrace` with the words of `command` (split on spaces) in this directory.
  @discardableResult
  func run(_ command: String, input: String = "", environment: [String: String] = [:]) throws
    -> CLIResult
  {
    try CLI.run(
      command.split(separator: " ").map(String.init), in: directory, input: input,
      environment: environment)
  }

  /// The path of `name` in this directory.
  func path(_ name: String) -> String {
    directory.appendingPathComponent(name).path
  }

  /// The contents of `name`.
  func read(_ name: String) throws -> String {
    try String(contentsOfFile: path(name), encoding: .utf8)
  }

  /// Writes `text` to `name`.
  func write(_ text: String, to name: String) throws {
    try Data(text.utf8).write(to: directory.appendingPathComponent(name))
  }
}
