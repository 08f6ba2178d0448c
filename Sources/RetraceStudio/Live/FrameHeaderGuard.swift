/// Reads the heads of the WebSocket frames a live app sends, as the Studio relays them to
/// FlyingFox, and tells when one announces more payload than a message may hold, or breaks
/// the protocol.
///
/// FlyingFox reads a frame's whole payload before its handler sees it, so a frame that
/// announces gigabytes would be buffered before ``LiveFrames`` could refuse it. The relay
/// checks each frame's head (RFC 6455 §5.2) as its bytes pass and ends the link with 1009
/// (message too big) at the head, before a byte of such a payload is taken in. A frame
/// from the app that is not masked, or sets a reserved bit (no extension is agreed), ends
/// it with 1002 (protocol error), as RFC 6455 §5.1 and §5.2 require; FlyingFox takes both.
///
/// It also tells when the app's first message has ended: the relay gives an app
/// ``RequestLimits/helloTime`` to send its `hello`.
struct FrameHeaderGuard {
  /// The most payload bytes one frame may announce.
  let limit: UInt64
  /// The head of the frame being read, until it is whole.
  private var head: [UInt8] = []
  /// Payload bytes of the current frame still to pass before the next head.
  private var remaining: UInt64 = 0
  /// Bytes of the upgrade request still to pass before the first frame.
  private var preamble: Int
  /// Whether the current frame ends a data message (its FIN bit, on a data frame or a
  /// continuation).
  private var endsMessage = false
  /// Whether the app's first data message has passed whole.
  private(set) var firstMessageEnded = false

  /// What the guard makes of the bytes so far.
  enum Verdict: Equatable {
    /// Every frame head so far is within the limit and the protocol.
    case pass
    /// A frame head announces more than ``limit``: close with 1009.
    case tooBig
    /// A frame is not masked, or sets a reserved bit: close with 1002.
    case protocolError
  }

  /// Creates a guard for a connection whose first `preamble` bytes are the upgrade request.
  init(limit: Int, preamble: Int) {
    self.limit = UInt64(max(limit, 0))
    self.preamble = preamble
  }

  /// Takes the next bytes from the client; returns ``Verdict/pass`` unless a frame head
  /// announces more than ``limit`` or breaks the protocol.
  mutating func accept(_ bytes: some Collection<UInt8>) -> Verdict {
    var index = bytes.startIndex
    while index != bytes.endIndex {
      if preamble > 0 {
        let count = min(preamble, bytes.distance(from: index, to: bytes.endIndex))
        preamble -= count
        index = bytes.index(index, offsetBy: count)
        continue
      }
      if remaining > 0 {
        let available = UInt64(bytes.distance(from: index, to: bytes.endIndex))
        let count = min(remaining, available)
        remaining -= count
        index = bytes.index(index, offsetBy: Int(count))
        if remaining == 0, endsMessage { firstMessageEnded = true }
        continue
      }
      head.append(bytes[index])
      index = bytes.index(after: index)
      guard let (length, _) = Self.payloadLength(head) else { continue }
      // RSV1-3 (no extension is agreed), and the mask every frame from a client carries.
      guard head[0] & 0x70 == 0, head[1] & 0x80 != 0 else { return .protocolError }
      guard length <= limit else { return .tooBig }
      let opcode = head[0] & 0x0F
      endsMessage = head[0] & 0x80 != 0 && opcode < 0x8
      head.removeAll(keepingCapacity: true)
      remaining = length
      if remaining == 0, endsMessage { firstMessageEnded = true }
    }
    return .pass
  }

  /// The payload length a frame head announces and the head's size, once `head` is whole.
  static func payloadLength(_ head: [UInt8]) -> (UInt64, Int)? {
    guard head.count >= 2 else { return nil }
    let masked = head[1] & 0x80 != 0
    let short = UInt64(head[1] & 0x7F)
    let lengthBytes = short == 126 ? 2 : short == 127 ? 8 : 0
    let size = 2 + lengthBytes + (masked ? 4 : 0)
    guard head.count == size else { return nil }
    var length = short
    if lengthBytes > 0 {
      length = head[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | UInt64($1) }
    }
    return (length, size)
  }

  /// A Close frame from the server (unmasked) with status 1009, message too big.
  static let closeTooBig: [UInt8] = close(LiveFrames.messageTooBig)
  /// A Close frame from the server with status 1002, protocol error.
  static let closeProtocolError: [UInt8] = close(LiveFrames.protocolError)

  /// A Close frame from the server (unmasked) with `code` and `reason` (at most 123 bytes).
  static func close(_ code: UInt16, reason: String = "") -> [UInt8] {
    let text = Array(reason.utf8.prefix(123))
    return [0x88, UInt8(2 + text.count), UInt8(code >> 8), UInt8(code & 0xFF)] + text
  }
}
