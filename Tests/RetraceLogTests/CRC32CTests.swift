import Retrace
import Testing

@testable import RetraceLog

/// The checksum of every chunk and journal record: the CPU's CRC instructions and the
/// table-driven fallback must agree with each other and with the standard.
@Suite struct CRC32CTests {
  @Test func knownVectors() {
    // RFC 3720 (iSCSI), appendix B.4, and the usual check value.
    #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
    #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
    #expect(CRC32C.checksum(Array(0..<32)) == 0x46DD_794E)
    #expect(CRC32C.checksum([]) == 0)
  }

  @Test func hardwareAndSoftwareAgreeOnEveryLengthAndAlignment() {
    var random = SeededRandom(seed: 9)
    let bytes = (0..<600).map { _ in UInt8.random(in: 0...255, using: &random) }
    bytes.withUnsafeBytes { all in
      for start in 0..<9 {
        for length in 0...(all.count - start) where length < 80 || length % 37 == 0 {
          let slice = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
          let seed = UInt32(truncatingIfNeeded: start &* 2_654_435_761)
          #expect(
            CRC32C.update(seed, slice) == CRC32C.softwareUpdate(seed, slice),
            "at \(start), \(length) bytes")
        }
      }
    }
    // Continuing a checksum equals computing it in one go.
    let whole = CRC32C.checksum(bytes)
    let split = bytes.withUnsafeBytes {
      CRC32C.update(
        CRC32C.update(0, UnsafeRawBufferPointer(rebasing: $0[..<123])),
        UnsafeRawBufferPointer(rebasing: $0[123...]))
    }
    #expect(split == whole)
  }
}
