/// SHA-1 (FIPS 180-4), for one purpose only: the WebSocket handshake's
/// `Sec-WebSocket-Accept`, which RFC 6455 defines as the Base64 of the SHA-1 of the key the
/// client sent and a fixed GUID.
///
/// It is here because no dependency of this module offers it: FlyingFox has one, but
/// internal to its server module, and swift-crypto would be a dependency of every app that
/// links the live link, for 60 bytes hashed once per connection. SHA-1 is not used for
/// anything that needs a secure hash: the check only proves the answer came from a
/// WebSocket server that read this request.
enum SHA1 {
  /// The 20-byte digest of `message`.
  static func hash(_ message: [UInt8]) -> [UInt8] {
    var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
      0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )
    var padded = message
    padded.append(0x80)
    while padded.count % 64 != 56 { padded.append(0) }
    let bitCount = UInt64(message.count) &* 8
    for shift in stride(from: 56, through: 0, by: -8) {
      padded.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift)))
    }
    var w = [UInt32](repeating: 0, count: 80)
    for block in stride(from: 0, to: padded.count, by: 64) {
      for i in 0..<16 {
        let j = block + i * 4
        w[i] =
          UInt32(padded[j]) << 24 | UInt32(padded[j + 1]) << 16 | UInt32(padded[j + 2]) << 8
          | UInt32(padded[j + 3])
      }
      for i in 16..<80 {
        let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
        w[i] = x << 1 | x >> 31
      }
      var (a, b, c, d, e) = h
      for i in 0..<80 {
        let f: UInt32
        let k: UInt32
        switch i {
        case 0..<20:
          f = (b & c) | (~b & d)
          k = 0x5A82_7999
        case 20..<40:
          f = b ^ c ^ d
          k = 0x6ED9_EBA1
        case 40..<60:
          f = (b & c) | (b & d) | (c & d)
          k = 0x8F1B_BCDC
        default:
          f = b ^ c ^ d
          k = 0xCA62_C1D6
        }
        let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[i]
        e = d
        d = c
        c = b << 30 | b >> 2
        b = a
        a = temp
      }
      h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
    }
    var digest: [UInt8] = []
    digest.reserveCapacity(20)
    for word in [h.0, h.1, h.2, h.3, h.4] {
      digest += [
        UInt8(truncatingIfNeeded: word >> 24), UInt8(truncatingIfNeeded: word >> 16),
        UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word),
      ]
    }
    return digest
  }
}
