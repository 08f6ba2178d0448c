/// Reads the heads of the WebSocket frames a live app sends, as the Studio relays them to
/// FlyingFox, and tells when one announces more payload than a message may hold.
///
/// FlyingFox reads a frame's whole payload before its handler sees it, so a frame that
/// announces gigabytes would be buffered before ``LiveFrames`` could refuse it. The relay
/// checks each frame's head (RFC 6455 §5.2) as its bytes pass and ends the link with 1009
/// (message too big) at the head, before a byte of such a payload is taken in.
struct FrameHeaderGuard {
  /// The most payload bytes one frame may announce.
  let limit: UInt64
  /// The head of the frame being read, until it is whole.
  private var head: [UInt8] = []
  /// Payload bytes of the current frame still to pass before the next head.
  private var remaining: UInt64 = 0
  /// Bytes of the upgrade request still to pass before the first frame.
  private var preamble: Int

  /// Creates a guard for a connection whose first `preamble` bytes are the upgrade request.
  init(limit: Int, preamble: Int) {
    self.limit = UInt64(max(limit, 0))
    self.preamble = preamble
  }

  /// Takes the next bytes from the client; returns `false` as soon as a frame head announces
  /// more than ``limit``.
  mutating func accept(_ bytes: some Collection<UInt8>) -> Bool {
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
        continue
      }
      head.append(bytes[index])
      index = bytes.index(after: index)
      guard let (length, size) = Self.payloadLength(head) else { continue }
      guard length <= limit else { return false }
      _ = size
      head.removeAll(keepingCapacity: true)
      remaining = length
    }
    return true
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
  static let closeTooBig: [UInt8] = [0x88, 0x02, 0x03, 0xF1]
}
