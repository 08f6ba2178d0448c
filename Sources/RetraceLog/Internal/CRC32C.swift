/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as used by iSCSI, ext4 and
/// LevelDB's log files, computed slicing-by-8.
///
/// Written by hand: no package in this project's set provides it (zlib's `crc32` is the
/// other polynomial), and it is forty lines.
enum CRC32C {
  static let tables: [[UInt32]] = {
    var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
    for i in 0..<256 {
      var crc = UInt32(i)
      for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0x82F6_3B78 : 0) }
      tables[0][i] = crc
    }
    for i in 0..<256 {
      for t in 1..<8 {
        let previous = tables[t - 1][i]
        tables[t][i] = (previous >> 8) ^ tables[0][Int(previous & 0xFF)]
      }
    }
    return tables
  }()

  /// Extends `crc` (the CRC of what came before; 0 to start) with `bytes`.
  static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var crc = ~crc
    var index = 0
    let count = bytes.count
    tables.withUnsafeBufferPointer { t in
      let t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3], t4 = t[4], t5 = t[5], t6 = t[6], t7 = t[7]
      t0.withUnsafeBufferPointer { t0 in
        while count - index >= 8 {
          let low = crc ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian
          let high = bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self).littleEndian
          crc =
            t7[Int(low & 0xFF)] ^ t6[Int((low >> 8) & 0xFF)] ^ t5[Int((low >> 16) & 0xFF)]
            ^ t4[Int(low >> 24)] ^ t3[Int(high & 0xFF)] ^ t2[Int((high >> 8) & 0xFF)]
            ^ t1[Int((high >> 16) & 0xFF)] ^ t0[Int(high >> 24)]
          index += 8
        }
        while index < count {
          crc = (crc >> 8) ^ t0[Int((crc ^ UInt32(bytes[index])) & 0xFF)]
          index += 1
        }
      }
    }
    return ~crc
  }

  /// The CRC-32C of `bytes`.
  static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    update(0, bytes)
  }

  /// The CRC-32C of `bytes`.
  static func checksum(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBytes { checksum($0) }
  }
}
