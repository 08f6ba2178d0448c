import Foundation
import Testing

/// What a live app sends reaches the Studio's stderr as one line, whatever it holds.
@Suite(.timeLimit(.minutes(2))) struct LiveLogTests {
  /// `retrace serve` with `options`, its stderr going to a file; the process, its port and
  /// that file.
  static func serve(token: String, recordDirectory: String, _ options: [String] = []) throws
    -> (process: Process, port: UInt16, stderr: URL)
  {
    let command = ServeCommandTests()
    let process = try command.process(
      ["serve", "--port", "0", "--token", token, "--record-dir", recordDirectory] + options)
    let stderr = URL(fileURLWithPath: recordDirectory).appendingPathComponent("stderr.txt")
    _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
    process.standardError = try FileHandle(forWritingTo: stderr)
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let byte = output.fileHandleForReading.readData(ofLength: 1)
      if byte.isEmpty { break }
      line.append(byte)
    }
    let text = String(decoding: line, as: UTF8.self)
    let prefix = "Retrace Studio: http://127.0.0.1:"
    let port = try #require(UInt16(text.dropFirst(prefix.count).prefix { $0.isNumber }), "\(text)")
    return (process, port, stderr)
  }

  @Test func anAppsNameCannotForgeALogLineOrDriveTheTerminal() async throws {
    let directory = try LiveSessionTests.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let token = "live-log-token-1234"
    let (process, port, stderr) = try Self.serve(token: token, recordDirectory: directory)
    defer { process.terminate() }

    let link = try await RawWebSocket.connect(port: port, token: token)
    defer { link.close() }
    try await link.send(
      try RawWebSocket.hello(
        appName: "demo\nretrace: warning: forged line\u{1B}[2J\u{202E}", sessionID: "forged\r\nid"))
    var text = ""
    for _ in 0..<600 where !text.contains("live session") {
      try await Task.sleep(for: .milliseconds(50))
      text = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
    }
    let lines = text.split(separator: "\n")
    #expect(lines.count == 1, "\(text)")
    #expect(lines.first?.hasPrefix("retrace: live session banking-live-") == true, "\(text)")
    #expect(text.contains(#"demo\nretrace: warning: forged line\u{1B}[2J\u{202E}"#), "\(text)")
    #expect(!text.contains("\u{1B}") && !text.contains("\u{202E}"), "\(text)")
  }

  /// A hello that names a domain the Studio does not know is refused, and the Studio says so
  /// on stderr: one line naming the app and the domain, their control characters escaped.
  @Test func anUnknownDomainIsNamedOnStderr() async throws {
    let directory = try LiveSessionTests.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let token = "live-log-token-5678"
    let (process, port, stderr) = try Self.serve(token: token, recordDirectory: directory)
    defer { process.terminate() }

    let link = try await RawWebSocket.connect(port: port, token: token)
    defer { link.close() }
    try await link.send(
      try RawWebSocket.hello(appName: "Acme\nforged", domain: "shop\u{1B}[2J"))
    var text = ""
    for _ in 0..<600 where !text.contains("\n") {
      try await Task.sleep(for: .milliseconds(50))
      text = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
    }
    let lines = text.split(separator: "\n")
    #expect(lines.count == 1, "\(text)")
    #expect(text.contains(#"shop\u{1B}[2J"#) && text.contains(#"Acme\nforged"#), "\(text)")
    #expect(text.contains("does not know the domain"), "\(text)")
    #expect(!text.contains("\u{1B}"), "\(text)")
  }
}
