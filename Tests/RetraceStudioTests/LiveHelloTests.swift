import Foundation
import Retrace
import Testing

@testable import RetraceStudio

/// A live connection must say `hello` first, within ``RequestLimits/helloTime``, in masked
/// frames without reserved bits: otherwise it is closed, and its place among the live
/// connections is free for the next app.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LiveHelloTests {
  /// A Studio that serves one live connection at a time, with `helloTime`.
  static func studio(helloTime: Duration = .seconds(30)) async throws -> StudioHarness {
    var limits = RequestLimits()
    limits.helloTime = helloTime
    return try await StudioHarness.start(
      [], limits: limits, liveConnectionLimit: 1,
      recordDirectory: try LiveSessionTests.directory())
  }

  /// A link to `harness`.
  static func link(_ harness: StudioHarness) async throws -> RawWebSocket {
    try await RawWebSocket.connect(port: harness.port, token: StudioHarness.token)
  }

  /// The Close frame's code the Studio ends `link` with (`nil` if it ends without one),
  /// reading at most `within` for it.
  static func closeCode(_ link: RawWebSocket, within: Duration = .seconds(20)) async -> UInt16? {
    await withTaskGroup(of: UInt16?.self) { group in
      group.addTask { try? await LiveMessageLimitTests.closeCode(from: link) }
      group.addTask {
        try? await Task.sleep(for: within)
        return nil
      }
      let first = await group.next() ?? nil
      link.close()
      group.cancelAll()
      return first
    }
  }

  /// Whether `link`'s hello is taken: a ping after it is answered.
  static func helloIsTaken(_ link: RawWebSocket) async throws -> Bool {
    try await link.send(try RawWebSocket.hello(appName: "after"))
    try await link.send([7], opcode: 0x9)
    while let frame = try await link.receive() {
      if frame.opcode == 0xA { return frame.payload == [7] }
      if frame.opcode == 0x8 { return false }
    }
    return false
  }

  @Test func aConnectionThatNeverSaysHelloIsClosedAndItsPlaceFreed() async throws {
    let harness = try await Self.studio(helloTime: .seconds(1))
    let silent = try await Self.link(harness)
    #expect(await Self.closeCode(silent) == 1008)
    // The one place is free again: the next app is served.
    // The place is freed once the hub has ended the connection: a moment, longer on a
    // machine busy with a whole test suite.
    var next: RawWebSocket?
    for _ in 0..<300 where next == nil {
      next = try? await Self.link(harness)
      if next == nil { try await Task.sleep(for: .milliseconds(100)) }
    }
    let app = try #require(next, "the Studio never served another connection")
    defer { app.close() }
    #expect(try await Self.helloIsTaken(app))
  }

  @Test func aHelloWithinTheTimeKeepsTheLinkPastIt() async throws {
    let harness = try await Self.studio(helloTime: .seconds(3))
    let app = try await Self.link(harness)
    defer { app.close() }
    #expect(try await Self.helloIsTaken(app))
    try await Task.sleep(for: .seconds(4))
    try await app.send([8], opcode: 0x9)
    let frame = try await app.receive()
    #expect(frame?.opcode == 0xA)
  }

  @Test func aMessageOfAnUnknownTypeBeforeTheHelloClosesTheLink() async throws {
    let harness = try await Self.studio()
    let link = try await Self.link(harness)
    try await link.send(
      CBORValue.map([.init(.textString("type"), .textString("whenever"))]).encoded())
    #expect(await Self.closeCode(link) == 1008)
  }

  /// A Close frame's code is one a peer may send (RFC 6455 §7.4): 999, or a one-byte code,
  /// is a protocol error, not a close to echo.
  @Test(arguments: [[UInt8(0x03), 0xE7], [0x03]])
  func aCloseCodeNoPeerMaySendIs1002(payload: [UInt8]) async throws {
    let harness = try await Self.studio()
    let link = try await Self.link(harness)
    try await link.send(payload, opcode: 0x8)
    #expect(await Self.closeCode(link) == 1002, "\(payload)")
  }

  @Test(arguments: [
    ("unmasked", [UInt8(0x82), 0x01, 0xA0]),
    ("RSV1", [UInt8(0xC2), 0x81, 0, 0, 0, 0, 0xA0]),
    ("RSV3", [UInt8(0x92), 0x81, 0, 0, 0, 0, 0xA0]),
  ])
  func aFrameThatBreaksTheProtocolClosesTheLinkWith1002(name: String, frame: [UInt8])
    async throws
  {
    let harness = try await Self.studio()
    let link = try await Self.link(harness)
    try await link.socket.write(Data(frame))
    #expect(await Self.closeCode(link) == 1002, "\(name)")
  }
}

/// Two segments that start at once with names alike are recorded to two files: one file's
/// two recorders would truncate each other's journal and stop the Studio.
@Suite struct RecordingPathTests {
  @Test func namesReservedAtOnceAreAllDifferent() async throws {
    let directory = try LiveSessionTests.directory()
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let paths = try await withThrowingTaskGroup(of: String.self) { group in
      for _ in 0..<40 {
        group.addTask { try LiveHub.recordingPath(in: directory, "banking-20261127-1-samepfx--1") }
      }
      return try await group.reduce(into: [String]()) { $0.append($1) }
    }
    #expect(Set(paths).count == 40)
    #expect(paths.contains(directory + "/banking-20261127-1-samepfx--1.trace"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 40)
  }

  @Test func appsWhoseSessionIDsShareTheirFirstCharactersAreRecordedApart() async throws {
    let directory = try LiveSessionTests.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let harness = try await StudioHarness.start([], recordDirectory: directory)
    var links: [RawWebSocket] = []
    defer { for link in links { link.close() } }
    for index in 0..<6 {
      let link = try await RawWebSocket.connect(port: harness.port, token: StudioHarness.token)
      links.append(link)
      try await link.send(try RawWebSocket.hello(appName: "twin", sessionID: "samepfx-\(index)"))
    }
    // Every hello is taken (a ping after it is answered) and the Studio still answers.
    for link in links {
      try await link.send([9], opcode: 0x9)
      var pong = false
      while let frame = try await link.receive() {
        if frame.opcode == 0xA {
          pong = true
          break
        }
      }
      #expect(pong)
    }
    let list = try #require(try await harness.get("/api/sessions").json() as? [[String: Any]])
    let recordings = list.compactMap { $0["recordedTo"] as? String }
    #expect(recordings.count == 6)
    #expect(Set(recordings).count == 6)
  }
}
