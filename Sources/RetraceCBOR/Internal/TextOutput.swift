/// UTF-8 text under construction, made into a `String` once at the end: appending to a
/// byte array is several times cheaper than appending to a `String` piece by piece.
struct TextOutput {
  var bytes: [UInt8]

  init() {
    bytes = []
    bytes.reserveCapacity(128)
  }

  static func += (text: inout TextOutput, piece: String) {
    var piece = piece
    piece.withUTF8 { text.bytes.append(contentsOf: $0) }
  }

  mutating func append(_ scalar: Unicode.Scalar) {
    UTF8.encode(scalar) { bytes.append($0) }
  }

  var string: String { String(decoding: bytes, as: UTF8.self) }
}
