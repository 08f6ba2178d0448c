/// Bytes from a hex string such as "a1 61 61 01" (spaces ignored).
func bytes(hex: String) -> [UInt8] {
  let digits = Array(hex.filter { !$0.isWhitespace })
  precondition(digits.count % 2 == 0, "odd number of hex digits")
  return stride(from: 0, to: digits.count, by: 2).map {
    UInt8(String(digits[$0...$0 + 1]), radix: 16)!
  }
}

/// Lowercase hex of bytes, for failure messages.
func hex(_ bytes: [UInt8]) -> String {
  bytes.map {
    String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
  }.joined()
}
