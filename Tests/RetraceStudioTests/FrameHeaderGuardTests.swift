import Testing

@testable import RetraceStudio

/// The relay's check of frame heads: split anywhere, of every length form.
@Suite struct FrameHeaderGuardTests {
  /// A masked client frame's head announcing `length` bytes.
  static func head(_ length: UInt64) -> [UInt8] {
    var bytes: [UInt8] = [0x82]
    if length < 126 {
      bytes.append(0x80 | UInt8(length))
    } else if length <= 0xFFFF {
      bytes += [0x80 | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
    } else {
      bytes.append(0x80 | 127)
      bytes += (0..<8).reversed().map { UInt8((length >> (8 * UInt64($0))) & 0xFF) }
    }
    return bytes + [1, 2, 3, 4]  // the mask
  }

  @Test func framesWithinTheLimitPassWhereverTheBytesAreSplit() {
    let request = Array("GET /api/live HTTP/1.1\r\n\r\n".utf8)
    let stream =
      request + Self.head(5) + [0, 0, 0, 0, 0] + Self.head(300) + Array(repeating: 7, count: 300)
      + Self.head(1_000) + Array(repeating: 0, count: 1_000)
    for split in [1, 2, 3, 7, 64, stream.count] {
      var guarding = FrameHeaderGuard(limit: 1_000, preamble: request.count)
      var start = 0
      while start < stream.count {
        let end = min(start + split, stream.count)
        let verdict = guarding.accept(stream[start..<end])
        #expect(verdict == .pass, "split \(split) at \(start)")
        start = end
      }
    }
  }

  @Test(arguments: [1_001, 70_000, 1 << 40])
  func aFrameOverTheLimitIsRefusedAtItsHead(length: UInt64) {
    var guarding = FrameHeaderGuard(limit: 1_000, preamble: 0)
    let small = guarding.accept(Self.head(10) + Array(repeating: 0, count: 10))
    #expect(small == .pass)
    // Its head, byte by byte: refused at the byte that completes it.
    let head = Self.head(length)
    for byte in head.dropLast() {
      let verdict = guarding.accept([byte])
      #expect(verdict == .pass)
    }
    let last = guarding.accept([head.last!])
    #expect(last == .tooBig)
  }

  /// A client's frame is masked and sets no reserved bit (RFC 6455 §5.1, §5.2).
  @Test func anUnmaskedFrameOrAReservedBitBreaksTheProtocol() {
    for (first, second) in [(UInt8(0x82), UInt8(0x05)), (0xC2, 0x85), (0xA2, 0x85), (0x92, 0x85)] {
      var guarding = FrameHeaderGuard(limit: 1_000, preamble: 0)
      #expect(guarding.accept([first, second, 0, 0, 0, 0]) == .protocolError)
    }
  }

  /// The first data message has ended once its last fragment's payload has passed, and not
  /// before: pings and the first fragments do not count.
  @Test func theFirstMessageEndsWithItsLastFragment() {
    var guarding = FrameHeaderGuard(limit: 1_000, preamble: 0)
    let ping: [UInt8] = [0x89, 0x80, 0, 0, 0, 0]
    let fragment: [UInt8] = [0x02, 0x83, 0, 0, 0, 0, 1, 2, 3]
    let last: [UInt8] = [0x80, 0x82, 0, 0, 0, 0, 4, 5]
    for part in [ping, fragment, ping] {
      #expect(guarding.accept(part) == .pass)
      #expect(!guarding.firstMessageEnded)
    }
    #expect(guarding.accept(last.dropLast()) == .pass)
    #expect(!guarding.firstMessageEnded)
    #expect(guarding.accept(last.suffix(1)) == .pass)
    #expect(guarding.firstMessageEnded)
  }
}
