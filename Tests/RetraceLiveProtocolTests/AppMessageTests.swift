import Foundation
import RetraceCBOR
import Testing

@testable import RetraceLiveProtocol

/// Every message of the protocol, both ways, through its one codec: encoded, decoded, and
/// equal to what was encoded.
struct AppMessageTests {
  static let hello = AppMessage.Hello(
    domain: "banking", actionSchemaVersion: 3, sessionID: "s-1", startTime: 1_700_000_000.25,
    app: ["name": "Acme", "version": "2.1"], sequence: 1_000_000,
    state: Data([0xa1, 0x61, 0x78, 0x01]),
    dropped: 7, commands: ["jump", "dispatch"])

  /// Encodes `message` and decodes it back.
  static func roundTrip(_ message: AppMessage) throws -> AppMessage {
    try AppMessage(decoding: Data(try message.encoded()))
  }

  @Test func aHelloRoundTrips() throws {
    guard case .hello(let decoded) = try Self.roundTrip(.hello(Self.hello)) else {
      Issue.record("not a hello")
      return
    }
    #expect(decoded == Self.hello)
  }

  @Test func aHelloWithoutCommandsTakesJumpOnly() throws {
    var hello = Self.hello
    hello.commands = []
    var bytes: [UInt8] = []
    hello.state.withUnsafeBytes { state in
      AppMessage.appendHello(
        domain: hello.domain, actionSchemaVersion: hello.actionSchemaVersion,
        sessionID: hello.sessionID, startTime: hello.startTime, app: hello.app,
        sequence: hello.sequence, state: state, dropped: hello.dropped, commands: [], to: &bytes)
    }
    guard case .hello(let decoded) = try AppMessage(decoding: Data(bytes)) else {
      Issue.record("not a hello")
      return
    }
    #expect(decoded.commands == ["jump"])
    #expect(decoded.version == LiveProtocol.version)
  }

  @Test(arguments: [0, 1, 23, 24, 255, 256, 4_096])
  func anActionsMessageRoundTrips(_ count: Int) throws {
    let first: UInt64 = 0x1_0000_0000
    let times = (0..<count).map { 1_700_000_000 + Double($0) / 8 }
    let actions = (0..<count).map { index in
      [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: index % 40)
    }
    var bytes: [UInt8] = []
    AppMessage.appendActionsHead(first: first, count: count, to: &bytes)
    for time in times { AppMessage.appendTime(time, to: &bytes) }
    AppMessage.appendActionsArrayHead(count: count, to: &bytes)
    for action in actions { action.withUnsafeBytes { AppMessage.appendAction($0, to: &bytes) } }
    let decoded = try AppMessage(decoding: Data(bytes))
    guard case .actions(let message) = decoded else {
      Issue.record("not an actions message")
      return
    }
    #expect(message.first == first)
    #expect(message.count == count)
    var read: [(Double, [UInt8])] = []
    try message.forEach { _, time, action in read.append((time, Array(action))) }
    #expect(read.map(\.0) == times)
    #expect(read.map(\.1) == actions)
    // `encoded()` writes the same bytes as the sender's `append` functions.
    #expect(try decoded.encoded() == bytes)
  }

  @Test func aCheckpointRoundTrips() throws {
    guard
      case .checkpoint(let sequence, let hash) = try Self.roundTrip(
        .checkpoint(sequence: 256, hash: .max))
    else {
      Issue.record("not a checkpoint")
      return
    }
    #expect(sequence == 256 && hash == .max)
  }

  @Test func theAppsJumpRoundTrips() throws {
    let state = Data((0..<300).map { UInt8(truncatingIfNeeded: $0) })
    guard
      case .jump(let sequence, let time, let decoded) = try Self.roundTrip(
        .jump(sequence: 12, time: 0.5, state: state))
    else {
      Issue.record("not a jump")
      return
    }
    #expect(sequence == 12 && time == 0.5 && decoded == state)
  }

  @Test func theAppsErrorRoundTrips() throws {
    guard case .error(let message) = try Self.roundTrip(.error("jump to 3 refused: é")) else {
      Issue.record("not an error")
      return
    }
    #expect(message == "jump to 3 refused: é")
  }

  @Test func anUnknownTypeRoundTrips() throws {
    guard case .unknown(let type) = try Self.roundTrip(.unknown("something-new")) else {
      Issue.record("not unknown")
      return
    }
    #expect(type == "something-new")
  }

  @Test(arguments: [
    StudioMessage.jump(to: 41, state: [0xa1, 0x61, 0x78, 0x01], hash: 0xdead_beef_0000_0001),
    .dispatch(action: [0xa1, 0x69, 0x69, 0x6e, 0x63, 0x72, 0x65, 0x6d, 0x65, 0x6e, 0x74, 0xa0]),
    .error("the Studio does not know the domain 'x'"), .other("something-new"),
  ])
  func theStudiosMessagesRoundTrip(_ message: StudioMessage) throws {
    #expect(try StudioMessage(decoding: message.encoded()) == message)
  }

  @Test func theStudiosErrorIsTheAppsErrorOnTheWire() throws {
    var bytes: [UInt8] = []
    AppMessage.appendError("no", to: &bytes)
    #expect(StudioMessage.error("no").encoded() == bytes)
  }

  @Test func bytesThatAreNotAMessageAreRefusedAsSuch() {
    for bytes: [UInt8] in [[0xff], [0xa0, 0x00], [0x80], [0xa1, 0x61, 0x78, 0x01]] {
      #expect(throws: LiveProtocolError.self) { try StudioMessage(decoding: bytes) }
      do {
        _ = try StudioMessage(decoding: bytes)
      } catch {
        #expect(error.code == .notAMessage, "\(bytes): \(error)")
      }
    }
  }

  @Test func aCommandWithoutItsFieldsIsRefusedByField() throws {
    var bytes: [UInt8] = []
    CBORPrimitiveWriter.appendHead(5, 1, to: &bytes)
    AppMessage.appendType("dispatch", to: &bytes)
    do {
      _ = try StudioMessage(decoding: bytes)
      Issue.record("a dispatch without action decoded")
    } catch {
      #expect(error.code == .badField)
      #expect(error.description == "a dispatch message needs 'action' (a byte string)")
    }
  }
}
