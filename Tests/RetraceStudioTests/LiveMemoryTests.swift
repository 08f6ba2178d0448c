import FlyingFox
import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import Testing

@testable import RetraceStudio

/// What a live session may cost the Studio: the states a segment holds, and the sessions
/// kept once they end.
@Suite(.serialized)
struct LiveMemoryTests {
  /// An `actions` message: `actions` numbered from `first`.
  static func actions<Action: Encodable>(_ actions: [Action], first: UInt64) throws -> [UInt8] {
    let encoder = CBOREncoder()
    return CBORValue.map([
      .init(.textString("type"), .textString("actions")),
      .init(.textString("first"), .unsigned(first)),
      .init(
        .textString("times"), .array(actions.indices.map { .float(1_763_771_000 + Double($0)) })),
      .init(
        .textString("actions"),
        .array(try actions.map { .byteString(try encoder.encode($0)) })),
    ]).encoded()
  }

  /// A segment holds states for the app while it is connected (its state, and states kept for
  /// checkpoints that have not come), and none once it has ended.
  @Test func anEndedSegmentLetsGoOfItsStates() async throws {
    let studio = try await StudioHarness.live()
    defer { studio.end() }

    let link = try await studio.connectApp("states")
    let actions = bankingDomain.generate(count: 2_000, seed: 5).actions
    try await link.send(try Self.actions(actions, first: 1))
    let segment = try await Self.segment(in: studio) { $0.heldStates > 100 }
    #expect(segment.isConnected)
    // 2,000 actions, a state kept after every 16th, no checkpoint to check them.
    #expect(segment.heldStates == 1 + 2_000 / 16, "\(segment.heldStates)")

    try await link.socket.write(Data(RawWebSocket.header(opcode: 0x8, length: 2) + [0x03, 0xE8]))
    link.close()
    _ = try await Self.segment(in: studio) { !$0.isConnected }
    #expect(segment.heldStates == 0)
    // The recording still answers: every action is there.
    let listed = try await studio.get("/api/sessions").json() as? [[String: Any]]
    #expect(listed?.first?["actions"] as? Int == 2_000)
  }

  /// The first live segment of `studio` once `condition` holds for it (within 60 s).
  static func segment(
    in studio: StudioHarness, _ condition: (any LiveSegment) -> Bool
  ) async throws -> any LiveSegment {
    for _ in 0..<1_200 {
      if let segment = studio.server.catalog.sessions.first as? any LiveSegment,
        condition(segment)
      {
        return segment
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    throw APIError(500, "no live segment as expected")
  }

  /// `DELETE /api/sessions/ID` takes a session off the list: a file's or an ended live
  /// segment's; a connected one is 409, an unknown one 404, and the token is required.
  @Test func aSessionIsRemovedWithTheTokenOnceItHasEnded() async throws {
    let studio = try await StudioHarness.live()
    defer { studio.end() }

    let link = try await studio.connectApp("removed")
    let segment = try await Self.segment(in: studio) { _ in true }
    let path = "/api/sessions/\(segment.id)"

    #expect(try await studio.get(path, token: .none, method: .DELETE).status == 401)
    #expect(try await studio.get(path, token: .wrong, method: .DELETE).status == 401)
    let connected = try await studio.get(path, method: .DELETE)
    #expect(connected.status == 409, "\(String(decoding: connected.body, as: UTF8.self))")

    link.close()
    _ = try await Self.segment(in: studio) { !$0.isConnected }
    let removed = try await studio.get(path, method: .DELETE)
    #expect(removed.status == 200)
    #expect((try removed.json() as? [String: Any])?["removed"] as? Bool == true)
    #expect((try await studio.get("/api/sessions").json() as? [[String: Any]])?.isEmpty == true)
    #expect(try await studio.get(path).status == 404)
    #expect(try await studio.get(path, method: .DELETE).status == 404)
    // The recording stays on disk.
    #expect(FileManager.default.fileExists(atPath: segment.recordedTo))
  }

  /// Checkpoints sent as fast as a socket takes them are not each hashed: one for a state
  /// already checked, or sooner than a tenth of the time since the last hash, is counted as
  /// unchecked, and the Studio goes on answering.
  @Test func aFloodOfCheckpointsIsNotHashedEachTime() async throws {
    let studio = try await StudioHarness.live()
    defer { studio.end() }
    let link = try await studio.connectApp("flood")
    defer { link.close() }
    let hash = try StateHash(of: bankingDomain.initialState).rawValue
    let checkpoint = CBORValue.map([
      .init(.textString("type"), .textString("checkpoint")),
      .init(.textString("sequence"), .unsigned(0)), .init(.textString("hash"), .unsigned(hash)),
    ]).encoded()
    for _ in 0..<500 { try await link.send(checkpoint) }
    let segment = try await Self.segment(in: studio) { _ in true }
    var counts: (matched: Int, unchecked: Int) = (0, 0)
    for _ in 0..<600 where counts.matched + counts.unchecked < 500 {
      try await Task.sleep(for: .milliseconds(50))
      let summary = try #require(
        try JSONSerialization.jsonObject(with: Data(try await segment.summary().text.utf8))
          as? [String: Any])
      let checkpoints = try #require(summary["appCheckpoints"] as? [String: Any])
      counts = (checkpoints["matched"] as? Int ?? 0, checkpoints["unchecked"] as? Int ?? 0)
    }
    #expect(counts.matched + counts.unchecked == 500)
    #expect(counts.matched <= 1, "\(counts)")
    #expect(try await studio.get("/api/sessions").status == 200)
  }

  /// Two apps of one domain are listed apart: by the app's name and the time it started.
  @Test func liveSessionsAreNamedByTheirAppAndStartTime() async throws {
    let studio = try await StudioHarness.live()
    defer { studio.end() }
    let link = try await studio.connectApp("Acme")
    defer { link.close() }
    _ = try await Self.segment(in: studio) { _ in true }
    let listed = try #require(try await studio.get("/api/sessions").json() as? [[String: Any]])
    let name = try #require(listed.first?["name"] as? String)
    // The hello's start time, 1,763,771,000 s, in this machine's zone, on a 24-hour clock
    // (00:23:20 in UTC, which a 12-hour clock wrote 12:23:20).
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "HH:mm:ss"
    let started = formatter.string(from: Date(timeIntervalSince1970: 1_763_771_000))
    #expect(name == "banking · live · Acme · \(started)", "\(name)")
  }

  /// Past the limit of ended segments, the oldest ended ones leave the list; connected ones
  /// and files stay.
  @Test func theOldestEndedSegmentsLeaveTheListPastTheLimit() async throws {
    let directory = try LiveSessionTests.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = StudioServer(
      catalog: SessionCatalog(sessions: []), address: ListenAddress("127.0.0.1")!, port: 0,
      token: StudioHarness.token, recordDirectory: directory,
      registry: DomainRegistry(Examples.domains), flows: [], endedLiveSegmentLimit: 2)
    let url = try await server.start()
    let port = UInt16(try #require(URLComponents(string: url)?.port))
    defer { Task { await server.stop() } }

    var ids: [String] = []
    for number in 1...4 {
      let link = try await RawWebSocket.connect(port: port, token: StudioHarness.token)
      try await link.send(try RawWebSocket.hello(appName: "app \(number)"))
      while server.catalog.sessions.count < min(number, 3) {
        try await Task.sleep(for: .milliseconds(20))
      }
      ids.append(server.catalog.sessions.last!.id)
      link.close()
      while server.catalog.sessions.contains(where: {
        ($0 as? any LiveSegment)?.isConnected == true
      }) {
        try await Task.sleep(for: .milliseconds(20))
      }
    }
    // The oldest leave the list just after the last segment has ended (once its recording
    // is closed).
    for _ in 0..<250 where server.catalog.sessions.count > 2 {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(server.catalog.sessions.map(\.id) == Array(ids.suffix(2)))
  }
}
