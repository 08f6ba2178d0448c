import Foundation
import Retrace
import RetraceExamples
import RetraceLiveProtocol
import RetraceLog
import Testing

/// `retrace-demo`, run as a process against the stand-in Studio.
@Suite(.serialized)
struct DemoTests {
  /// The executable, built beside the test bundle.
  static let binary: URL? = {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var candidates = [executable.deletingLastPathComponent().appendingPathComponent("retrace-demo")]
    for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
      candidates.append(
        bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("retrace-demo"))
    }
    let packageRoot = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(packageRoot.appendingPathComponent(".build/debug/retrace-demo"))
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }()

  /// A running demo, its output going to files.
  final class Demo: Sendable {
    let process: Process
    let output: URL
    let error: URL

    init(_ arguments: [String]) throws {
      let binary = try #require(DemoTests.binary, "retrace-demo was not built")
      let directory = FileManager.default.temporaryDirectory
      let id = UUID().uuidString
      output = directory.appendingPathComponent("demo-\(id).out")
      error = directory.appendingPathComponent("demo-\(id).err")
      _ = FileManager.default.createFile(atPath: output.path, contents: nil)
      _ = FileManager.default.createFile(atPath: error.path, contents: nil)
      process = Process()
      process.executableURL = binary
      process.arguments = arguments
      process.standardOutput = try FileHandle(forWritingTo: output)
      process.standardError = try FileHandle(forWritingTo: error)
      try process.run()
    }

    var stdout: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: error, encoding: .utf8)) ?? "" }

    /// Waits for the process to end; kills it after `timeout`.
    func wait(timeout: Duration = .seconds(60)) async throws -> Int32 {
      do {
        try await eventually("retrace-demo to exit", timeout: timeout) { !process.isRunning }
      } catch {
        process.terminate()
        throw error
      }
      return process.terminationStatus
    }

    deinit {
      if process.isRunning { process.terminate() }
      try? FileManager.default.removeItem(at: output)
      try? FileManager.default.removeItem(at: error)
    }
  }

  @Test func theDemoStreamsItsActionsAndFollowsAJump() async throws {
    let studio = try await TestStudio.start()
    defer { Task { await studio.stop() } }
    let trace = FileManager.default.temporaryDirectory
      .appendingPathComponent("demo-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: trace) }
    let demo = try Demo([
      // Idle for 10 s before it exits: on two cores busy with the whole suite, the jump sent
      // after the last action can take seconds to arrive.
      "banking", "--live", studio.address, "--rate", "0", "--actions", "300",
      "--exit-after-idle", "10", "--seed", "5", "--trace", trace,
    ])
    do {
      try await eventually("300 actions") { studio.actionsSinceLastHello().count == 300 }
    } catch {
      Issue.record("stdout: \(demo.stdout)\nstderr: \(demo.stderr)")
      throw error
    }
    let (_, finalState) = bankingDomain.generate(count: 300, seed: 5)
    var target = bankingDomain.initialState
    for action in bankingDomain.generate(count: 100, seed: 5).actions {
      _ = bankingDomain.reduce(into: &target, action: action)
    }
    #expect(target != finalState)
    let hash = try StateHash(of: target)
    studio.send(
      StudioMessage.jump(
        to: 100, state: try CBOREncoder(deterministic: true).encode(target), hash: hash.rawValue))
    #expect(try await demo.wait() == 0, "\(demo.stderr)")
    let lines = demo.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "connected, hello after 0 (dropped 0)")
    #expect(lines.contains("jumped after 300 to state \(hash)"))
    #expect(lines.last == "sent 300 actions, dropped 0")
    #expect(studio.messages(ofType: "jump").count == 1)
    #expect(FileManager.default.fileExists(atPath: trace))
  }

  @Test func sigintStopsTheDemoAndClosesItsTraceCleanly() async throws {
    let studio = try await TestStudio.start()
    defer { Task { await studio.stop() } }
    let trace = FileManager.default.temporaryDirectory
      .appendingPathComponent("demo-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: trace) }
    let demo = try Demo(["counter", "--live", studio.address, "--rate", "200", "--trace", trace])
    try await eventually("some actions") { studio.actionsSinceLastHello().count >= 20 }
    demo.process.interrupt()
    #expect(try await demo.wait() == 0, "\(demo.stderr)")
    let last = try #require(demo.stdout.split(separator: "\n").last.map(String.init))
    let sent = try #require(
      last.wholeMatch(of: /sent (\d+) actions, dropped 0/).map { Int($0.1)! }, "\(last)")
    #expect(sent >= 20)
    // Every action reached the Studio before the link closed.
    try await eventually("every action") { studio.actionsSinceLastHello().count == sent }
    let reader = try TraceReader(path: trace)
    #expect(reader.integrity.status == .clean)
    #expect(reader.actionCount == sent)
  }

  @Test(arguments: [
    ["counter"], ["nope", "--live", "http://127.0.0.1:1/?token=a"],
    ["counter", "--live", "http://studio.example/?token=a"],
    ["counter", "--live", "http://127.0.0.1:1/"],
    ["counter", "--live", "http://127.0.0.1:1/?token=a", "--rate", "-1"],
    ["counter", "--live", "http://127.0.0.1:1/?token=a", "--exit-after-idle", "1"],
  ])
  func badArgumentsAreOneLineAndANonZeroExit(_ arguments: [String]) async throws {
    let demo = try Demo(arguments)
    let status = try await demo.wait()
    #expect(status != 0)
    #expect(demo.stdout.isEmpty)
    #expect(demo.stderr.hasPrefix("retrace-demo: "))
    #expect(demo.stderr.split(separator: "\n").count == 1, "\(demo.stderr)")
  }
}
