import FlyingFox
import Foundation

/// The live link's WebSocket frames (RFC 6455) on the Studio's side: reassembles the app's
/// messages for ``LiveHub``, at most ``maximumMessageSize`` bytes each, answers Ping with
/// Pong and Close with Close, and frames what the hub sends.
///
/// It takes the place of FlyingFox's `MessageFrameWSHandler`, which reassembles a message
/// of any size: a peer with the token could make the Studio hold gigabytes with fragments.
/// A message, or a frame, that would pass the limit closes the connection with 1009
/// ("message too big", RFC 6455 §7.4.1) before its bytes are added to the message.
///
/// Frames are read as the hub asks for messages, so a connection holds at most one message
/// in memory: an app that sends faster than the Studio reduces is held back by TCP, where
/// FlyingFox's handler queued every message it read.
///
/// FlyingFox reads each frame whole before a handler sees it, so one frame is held
/// in memory whatever its length before it is refused: FlyingFox 0.27.1 has no limit on
/// a frame, and no place to check a frame's header before its payload is read.
struct LiveFrames: WSHandler {
  /// The hub that takes the messages.
  let hub: LiveHub
  /// The most bytes a message may hold, all its fragments together.
  let maximumMessageSize: Int

  /// The limit on a message by default: 64 MiB. A `hello` holds the app's whole state (a
  /// banking state of a million transactions is about 60 MB of CBOR); every other message is
  /// at most a batch of 4,096 actions.
  static let defaultMaximumMessageSize = 64 << 20

  /// The close code of a message over the limit: 1009, "message too big".
  static let messageTooBig: UInt16 = 1009
  /// The close code of a frame that breaks the protocol: 1002.
  static let protocolError: UInt16 = 1002

  func makeFrames(for client: AsyncThrowingStream<WSFrame, any Error>) async throws
    -> AsyncStream<WSFrame>
  {
    let (framesOut, toApp) = AsyncStream<WSFrame>.makeStream()
    // The app's frames are read only when the hub asks for its next message: an app that
    // sends faster than the Studio reduces waits (TCP holds the rest), instead of the
    // messages piling up in memory here.
    let source = FrameSource(client, maximum: maximumMessageSize, replies: toApp)
    let messagesIn = AsyncStream<WSMessage>(unfolding: { await source.nextMessage() })
    let messagesOut = try await hub.makeMessages(for: messagesIn)
    let task = Task {
      for await message in messagesOut {
        switch message {
        case .data(let data):
          toApp.yield(WSFrame(fin: true, opcode: .binary, mask: nil, payload: data))
        case .text(let text):
          toApp.yield(WSFrame(fin: true, opcode: .text, mask: nil, payload: Data(text.utf8)))
        case .close(let code):
          toApp.yield(.close(code: code))
          toApp.finish()
          return
        }
      }
      // The hub is done with the connection.
      toApp.finish()
    }
    toApp.onTermination = { _ in task.cancel() }
    return framesOut
  }
}

/// The app's frames, read one message at a time as the hub asks for them.
private actor FrameSource {
  private var frames: AsyncThrowingStream<WSFrame, any Error>.Iterator
  private var reader: MessageReader
  private let replies: AsyncStream<WSFrame>.Continuation
  private var ended = false

  init(
    _ client: AsyncThrowingStream<WSFrame, any Error>, maximum: Int,
    replies: AsyncStream<WSFrame>.Continuation
  ) {
    frames = client.makeAsyncIterator()
    reader = MessageReader(maximum: maximum)
    self.replies = replies
  }

  /// The app's next message; `nil` at the end of the connection, or after a frame that
  /// breaks the protocol or the limit, which is answered with a Close frame of its code.
  func nextMessage() async -> WSMessage? {
    guard !ended else { return nil }
    do {
      // The iterator's state lives in the stream it came from: a copy reads on where the
      // last one stopped (an actor's property cannot be the subject of a mutating await).
      var iterator = frames
      defer { frames = iterator }
      while let frame = try await iterator.next(isolation: self) {
        switch try reader.take(frame) {
        case .message(let message): return message
        case .reply(let reply): replies.yield(reply)
        case .closed(let code):
          ended = true
          replies.yield(.close(code: code))
          return .close(code)
        case .none: continue
        }
      }
    } catch let refusal as MessageReader.Refusal {
      replies.yield(.close(code: WSCloseCode(refusal.code, reason: refusal.reason)))
    } catch {
      // The connection broke: nothing to answer.
    }
    ended = true
    return nil
  }
}

/// Reassembles messages from frames, refusing any that would pass ``maximum`` bytes.
struct MessageReader {
  /// The most bytes a message may hold.
  let maximum: Int
  /// The fragments of a message so far, and its opcode.
  private var partial: (opcode: WSFrame.Opcode, payload: Data)?

  /// What one frame gives.
  enum Outcome {
    /// A whole message.
    case message(WSMessage)
    /// A frame to send back (a Pong).
    case reply(WSFrame)
    /// The peer closed the connection with this code.
    case closed(WSCloseCode)
    /// Nothing yet (a fragment, or a Pong).
    case none
  }

  /// A frame the Studio refuses: the connection is closed with ``code``.
  struct Refusal: Error {
    /// The close code: 1009 or 1002 (or 1007 for text that is not UTF-8).
    var code: UInt16
    /// The close reason, at most 123 bytes.
    var reason: String
  }

  /// A reader of messages of at most `maximum` bytes.
  init(maximum: Int) {
    precondition(maximum > 0, "a message limit of at least one byte")
    self.maximum = maximum
  }

  /// Takes the next frame.
  ///
  /// - Throws: ``Refusal`` with 1009 for a frame or message over the limit, 1002 for a frame
  ///   that breaks RFC 6455, 1007 for a text message that is not UTF-8.
  mutating func take(_ frame: WSFrame) throws(Refusal) -> Outcome {
    switch frame.opcode {
    case .ping, .pong, .close:
      guard frame.fin, frame.payload.count <= 125 else {
        throw Refusal(code: LiveFrames.protocolError, reason: "a fragmented or long control frame")
      }
      switch frame.opcode {
      case .ping:
        return .reply(WSFrame(fin: true, opcode: .pong, mask: nil, payload: frame.payload))
      case .pong: return .none
      default:
        let payload = [UInt8](frame.payload)
        guard !payload.isEmpty else { return .closed(WSCloseCode(1000)) }
        // A close code is two bytes, one RFC 6455 §7.4 lets a peer send: 1000-1003,
        // 1007-1014, or 3000-4999 (registered or private).
        let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 0
        guard
          (1000...1003).contains(code) || (1007...1014).contains(code)
            || (3000...4999).contains(code)
        else {
          throw Refusal(code: LiveFrames.protocolError, reason: "a close code no peer may send")
        }
        return .closed(WSCloseCode(code))
      }
    case .text, .binary:
      guard partial == nil else {
        throw Refusal(
          code: LiveFrames.protocolError, reason: "a new message before the last one ended")
      }
      try check(frame.payload.count)
      guard frame.fin else {
        partial = (frame.opcode, frame.payload)
        return .none
      }
      return .message(try message(frame.opcode, frame.payload))
    case .continuation:
      guard var started = partial else {
        throw Refusal(code: LiveFrames.protocolError, reason: "a continuation of no message")
      }
      try check(started.payload.count + frame.payload.count)
      partial = nil
      started.payload.append(frame.payload)
      guard frame.fin else {
        partial = started
        return .none
      }
      return .message(try message(started.opcode, started.payload))
    default:
      throw Refusal(code: LiveFrames.protocolError, reason: "an unknown opcode")
    }
  }

  private func check(_ count: Int) throws(Refusal) {
    guard count <= maximum else {
      throw Refusal(code: LiveFrames.messageTooBig, reason: "message too big")
    }
  }

  private func message(_ opcode: WSFrame.Opcode, _ payload: Data) throws(Refusal) -> WSMessage {
    guard opcode == .text else { return .data(payload) }
    guard let text = String(data: payload, encoding: .utf8) else {
      throw Refusal(code: 1007, reason: "a text message that is not UTF-8")
    }
    return .text(text)
  }
}
