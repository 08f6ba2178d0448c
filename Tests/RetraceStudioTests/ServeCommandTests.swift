import FlyingFox
import FlyingSocks
import Foundation
import Testing

/// `retrace serve` as a user runs it: the built binary, its one line, its errors.
@Suite struct ServeCommandTests {
  static let binary: URL? = {
    var candidates: [URL] = []
    if let path = ProcessInfo.processInfo.environment["RETRACE_BINARY"] {
      candidates.append(URL(fileURLWithPath: path))
    }
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    candidates.append(executable.deletingLastPathComponent().appendingPathComponent("retrace"))
    for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
      candidates.append(
        bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("retrace"))
    }
    candidates.append(StudioHarness.packageRoot.appendingPathComponent(".build/debug/retrace"))
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }()

  /// `retrace ARGUMENTS`, not yet started, in the package's directory.
  func process(_ arguments: [String]) throws -> Process {
    let process = Process()
    let binary: URL = try #require(Self.binary, "retrace is not built")
    process.executableURL = binary
    process.arguments = arguments
    process.currentDirectoryURL = StudioHarness.packageRoot
    return process
  }

  /// Runs `retrace` to its end; its exit code and stderr.
  func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
    let process = try process(arguments)
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let data = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  @Test(arguments: [
    (["serve", "traces/counter.trace", "--port", "70000"], 2, "--port must be from 0 to 65535"),
    (["serve", "traces/counter.trace", "--host", "example.com"], 2, "--host must be"),
    (["serve", "traces/counter.trace", "--token", "short"], 2, "--token must be"),
    (["serve", "--live-message-limit", "0"], 2, "--live-message-limit must be from 1 to 4096"),
    (
      ["serve", "--live-connection-limit", "0"], 2, "--live-connection-limit must be from 1 to 4096"
    ),
    (["serve", "nope.trace"], 3, "nope.trace: no such file"),
    (["serve", "Sources"], 3, "no trace or JSON Lines file found"),
  ])
  func badInputIsOneLine(arguments: [String], status: Int32, message: String) throws {
    let (exit, stderr) = try run(arguments)
    #expect(exit == status)
    #expect(stderr.contains(message), "\(stderr)")
    #expect(stderr.split(separator: "\n").count == 1, "\(stderr)")
  }

  /// It prints `Retrace Studio: http://127.0.0.1:PORT/?token=T` and answers there; a
  /// second server on the same port says it is in use.
  /// Starts `retrace ARGUMENTS` (a `serve`) in the package's directory, and returns the
  /// process and the first line it printed.
  func serve(_ arguments: [String]) throws -> (process: Process, line: String) {
    let process = try process(arguments)
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let byte = output.fileHandleForReading.readData(ofLength: 1)
      if byte.isEmpty { break }
      line.append(byte)
    }
    return (
      process,
      String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    )
  }

  @Test func itPrintsItsAddressAndServesThere() async throws {
    let (process, text) = try serve([
      "serve", "traces/counter.trace", "--port", "0", "--token", "serve-test-token",
    ])
    defer { process.terminate() }
    let prefix = "Retrace Studio: http://127.0.0.1:"
    #expect(text.hasPrefix(prefix) && text.hasSuffix("/?token=serve-test-token"), "\(text)")
    let port = try #require(
      UInt16(text.dropFirst(prefix.count).prefix { $0.isNumber }))

    let response = try await StudioHarness.send(
      HTTPRequest(
        method: .GET, version: .http11, path: "/api/sessions", query: [],
        headers: [.host: "127.0.0.1:\(port)", .authorization: "Bearer serve-test-token"],
        body: HTTPBodySequence(data: Data())), port: port)
    #expect(response.statusCode.code == 200)
    let sessions =
      try JSONSerialization.jsonObject(with: try await response.bodyData) as? [[String: Any]]
    #expect(sessions?.first?["id"] as? String == "counter")

    let (exit, stderr) = try run(["serve", "traces/counter.trace", "--port", "\(port)"])
    #expect(exit == 3)
    #expect(
      stderr.contains("cannot listen on 127.0.0.1:\(port): the address is in use"), "\(stderr)")
  }

  /// An encrypted trace is served with its key (`--key`), and refused in one line without.
  @Test func anEncryptedTraceIsServedWithItsKeyOnly() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("retrace-serve-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let key = directory.appendingPathComponent("dev").path
    let trace = directory.appendingPathComponent("enc.trace").path
    #expect(try run(["keygen", "-o", key]).status == 0)
    #expect(
      try run([
        "generate", "banking", "--actions", "2000", "--seed", "33", "--encrypt-to", key + ".pub",
        "-o", trace,
      ]).status == 0)
    let (exit, stderr) = try run(["serve", trace, "--port", "0"])
    #expect(exit == 3)
    #expect(stderr.contains("the trace is encrypted (to key "), "\(stderr)")
    #expect(stderr.split(separator: "\n").count == 1, "\(stderr)")

    let (process, text) = try serve([
      "serve", trace, "--port", "0", "--token", "serve-test-token", "--key", key + ".key",
    ])
    defer { process.terminate() }
    let prefix = "Retrace Studio: http://127.0.0.1:"
    let port = try #require(UInt16(text.dropFirst(prefix.count).prefix { $0.isNumber }), "\(text)")
    let response = try await StudioHarness.send(
      HTTPRequest(
        method: .GET, version: .http11, path: "/api/sessions/enc/bisect",
        query: [.init(name: "invariant", value: "non-negative-balance")],
        headers: [.host: "127.0.0.1:\(port)", .authorization: "Bearer serve-test-token"],
        body: HTTPBodySequence(data: Data())), port: port)
    #expect(response.statusCode.code == 200)
    let bisect =
      try JSONSerialization.jsonObject(with: try await response.bodyData) as? [String: Any]
    #expect(bisect?["firstViolation"] as? Int == 1069)
  }
}
