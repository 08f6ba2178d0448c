import CRetraceCRC32C

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as used by iSCSI, ext4 and
/// LevelDB's log files: with the CPU's CRC instructions where it has them (C target
/// `CRetraceCRC32C`), else computed slicing-by-8.
///
/// Written by hand: no package in this project's set provides it (zlib's `crc32` is the
/// other polynomial), and it is forty lines.
enum CRC32C {
  /// Whether the CPU computes it (SSE 4.2 on x86-64, the CRC extension on 64-bit ARM).
  static let hasHardware = retrace_crc32c_hardware_available() != 0

  /// Slicing-by-8 tables, table `t` at `t * 256`, in one allocation that is never freed,
  /// so that an update reads them without retaining arrays.
  nonisolated(unsafe) static let tables: UnsafePointer<UInt32> = {
    let tables = UnsafeMutablePointer<UInt32>.allocate(capacity: 8 * 256)
    for i in 0..<256 {
      var crc = UInt32(i)
      for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0x82F6_3B78 : 0) }
      tables[i] = crc
    }
    for t in 1..<8 {
      for i in 0..<256 {
        let previous = tables[(t - 1) * 256 + i]
        tables[t * 256 + i] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
      }
    }
    return UnsafePointer(tables)
  }()

  static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard hasHardware, let base = bytes.baseAddress else { return softwareUpdate(crc, bytes) }
    return retrace_crc32c_hardware_update(crc, base, bytes.count)
  }

  /// ``update(_:_:)`` without the CPU's help: slicing-by-8 over ``tables``.
  static func softwareUpdate(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var crc = ~crc
    var index = 0
    let count = bytes.count
    let t = tables
    while count &- index >= 8 {
      let low = crc ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian
      let high = bytes.loadUnaligned(fromByteOffset: index &+ 4, as: UInt32.self).littleEndian
      crc =
        t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
        ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
        ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
        ^ t[256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
      index &+= 8
    }
    while index < count {
      crc = (crc >> 8) ^ t[Int((crc ^ UInt32(bytes[index])) & 0xFF)]
      index &+= 1
    }
    return ~crc
  }

  static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    update(0, bytes)
  }

  /// The CRC-32C of `bytes`.
  static func checksum(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBytes { checksum($0) }
  }
}
