import FlyingFox
import Foundation
import Testing

@testable import RetraceStudio

/// A live app's message is at most `--live-message-limit` MiB (64 by default): a larger
/// one, in one frame or in fragments, closes the link with 1009 ("message too big").
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LiveMessageLimitTests {
  /// The close code of a Close frame's payload.
  static func closeCode(_ payload: [UInt8]) -> UInt16? {
    payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
  }

  /// Reads frames until a Close (its code) or the end of the connection (`nil`).
  static func closeCode(from link: RawWebSocket) async throws -> UInt16? {
    while let frame = try await link.receive() {
      if frame.opcode == 0x8 { return closeCode(frame.payload) }
    }
    return nil
  }

  /// A message larger than the limit (64 MiB by default) closes the link with 1009, "message
  /// too big" (RFC 6455 §7.4.1), before it reaches the hub.
  /// `retrace serve --live-message-limit 1` (MiB) and a link to it.
  static func studio(_ directory: String) async throws -> (Process, RawWebSocket) {
    let token = "live-limit-token-1234"
    let (process, port, _) = try LiveLogTests.serve(
      token: token, recordDirectory: directory, ["--live-message-limit", "1"])
    do {
      return (process, try await RawWebSocket.connect(port: port, token: token))
    } catch {
      process.terminate()
      throw error
    }
  }

  /// A link to `studio(_:)` recording in a fresh directory, for `body`; then the link is
  /// closed, the Studio ended and the directory removed.
  static func withLink(_ body: (RawWebSocket) async throws -> Void) async throws {
    let directory = try LiveSessionTests.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (process, link) = try await Self.studio(directory)
    defer {
      link.close()
      process.terminate()
    }
    try await body(link)
  }

  @Test func aMessageOverTheLimitClosesTheLinkWith1009() async throws {
    try await Self.withLink { link in
      try await link.send([UInt8](repeating: 0xA0, count: (1 << 20) + 1))
      #expect(try await Self.closeCode(from: link) == 1009)
    }
  }

  /// Fragments each under the limit, together over it, close the link with 1009 as the one
  /// that passes it comes.
  @Test func fragmentsOverTheLimitTogetherCloseTheLinkWith1009() async throws {
    try await Self.withLink { link in
      let fragment = [UInt8](repeating: 0xA0, count: 256 << 10)
      try await link.send(fragment, opcode: 0x2, fin: false)
      for _ in 0..<4 { try await link.send(fragment, opcode: 0x0, fin: false) }
      #expect(try await Self.closeCode(from: link) == 1009)
    }
  }

  /// A frame whose header announces more than the limit is refused at its header, before
  /// its payload is read: FlyingFox 0.27.1 would read the whole payload before any handler
  /// saw it, so the Studio's relay checks each frame's head (``FrameHeaderGuard``).
  @Test func aFrameHeaderOverTheLimitIsRefusedBeforeItsPayload() async throws {
    let directory = try LiveSessionTests.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (process, link) = try await Self.studio(directory)
    defer { process.terminate() }
    try await link.socket.write(Data(RawWebSocket.header(opcode: 0x2, length: (1 << 20) + 1)))
    let code = await withTaskGroup(of: UInt16?.self) { group in
      group.addTask { try? await Self.closeCode(from: link) }
      group.addTask {
        try? await Task.sleep(for: .seconds(5))
        return nil
      }
      let first = await group.next() ?? nil
      // Ends the read that is still waiting, if it is.
      link.close()
      group.cancelAll()
      return first
    }
    // The Studio's relay reads the frame's head and refuses it: FlyingFox, which would
    // read the whole payload first, never sees it.
    #expect(code == 1009)
  }

  /// A message at the limit is taken: a hello is answered by a live session, not a Close.
  @Test func aMessageWithinTheLimitIsTaken() async throws {
    try await Self.withLink { link in
      try await link.send(try RawWebSocket.hello(appName: "within"))
      // A ping after it is answered: the hello did not end the connection.
      try await link.send([1, 2, 3], opcode: 0x9)
      let frame = try await link.receive()
      #expect(frame?.opcode == 0xA)
      #expect(frame?.payload == [1, 2, 3])
    }
  }

  /// The reassembly counts every fragment: one that would pass the limit is refused before it
  /// is added, and a message at the limit is whole.
  @Test func theReaderRefusesTheFragmentThatPassesTheLimit() throws {
    var reader = MessageReader(maximum: 10)
    func frame(_ opcode: WSFrame.Opcode, _ count: Int, fin: Bool) -> WSFrame {
      WSFrame(fin: fin, opcode: opcode, mask: nil, payload: Data(repeating: 1, count: count))
    }
    guard case .none = try reader.take(frame(.binary, 4, fin: false)) else {
      Issue.record("a first fragment is not a message")
      return
    }
    guard case .message(.data(let whole)) = try reader.take(frame(.continuation, 6, fin: true))
    else {
      Issue.record("ten bytes in two fragments are a message")
      return
    }
    #expect(whole.count == 10)
    _ = try reader.take(frame(.binary, 6, fin: false))
    #expect(throws: MessageReader.Refusal.self) {
      try reader.take(frame(.continuation, 5, fin: true))
    }
    var fresh = MessageReader(maximum: 10)
    #expect(throws: MessageReader.Refusal.self) { try fresh.take(frame(.binary, 11, fin: true)) }
  }
}
