extension CBORValue: CustomStringConvertible {
  /// The item in CBOR diagnostic notation (RFC 8949 §8).
  ///
  /// Integers in decimal, byte strings as `h'…'`, text strings in double quotes with JSON
  /// escapes (non-ASCII characters as `\uXXXX`, as in RFC 8949 Appendix A), arrays as
  /// `[a, b]`, maps as `{k: v}`, tags as `tag(content)`, floats always with a decimal
  /// point or an exponent (`1.0`, `1.0e+300`, `Infinity`, `NaN`), and `true`, `false`,
  /// `null`, `undefined`, `simple(n)`.
  ///
  /// ```swift
  /// let value: CBORValue = ["a": 1, "b": [2, 3.5], "c": .byteString([1, 2])]
  /// print(value)   // {"a": 1, "b": [2, 3.5], "c": h'0102'}
  /// ```
  public var description: String {
    var text = TextOutput()
    writeDiagnostic(to: &text)
    return text.string
  }

  private func writeDiagnostic(to text: inout TextOutput) {
    switch self {
    case .unsigned(let value):
      text += String(value)
    case .negative(let value):
      text += Self.negativeDecimal(value)
    case .byteString(let bytes):
      text += "h'"
      for byte in bytes {
        text += Self.hexDigits[Int(byte >> 4)]
        text += Self.hexDigits[Int(byte & 0xf)]
      }
      text += "'"
    case .textString(let string):
      Self.writeQuoted(string, escapingNonASCII: true, to: &text)
    case .array(let items):
      text += "["
      for (index, item) in items.enumerated() {
        if index > 0 { text += ", " }
        item.writeDiagnostic(to: &text)
      }
      text += "]"
    case .map(let pairs):
      text += "{"
      for (index, pair) in pairs.enumerated() {
        if index > 0 { text += ", " }
        pair.key.writeDiagnostic(to: &text)
        text += ": "
        pair.value.writeDiagnostic(to: &text)
      }
      text += "}"
    case .tagged(let tag, let content):
      text += "\(tag)("
      content.writeDiagnostic(to: &text)
      text += ")"
    case .simple(let value):
      text += "simple(\(value))"
    case .boolean(let value):
      text += value ? "true" : "false"
    case .null:
      text += "null"
    case .undefined:
      text += "undefined"
    case .float(let value):
      text += Self.diagnosticFloat(value)
    }
  }

  static let hexDigits = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f",
  ]

  /// The decimal text of `-1 - value`, which may be -2^64.
  static func negativeDecimal(_ value: UInt64) -> String {
    value == .max ? "-18446744073709551616" : "-\(value + 1)"
  }

  /// A float with a decimal point or an exponent, and an exponent without leading zeros.
  static func diagnosticFloat(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
    let swift = value.description  // e.g. "1.5", "1e+300", "5.960464477539063e-08"
    guard let e = swift.firstIndex(of: "e") else { return swift }
    var mantissa = String(swift[..<e])
    if !mantissa.contains(".") { mantissa += ".0" }
    var exponent = swift[swift.index(after: e)...]
    var sign = ""
    if let first = exponent.first, first == "+" || first == "-" {
      sign = String(first)
      exponent = exponent.dropFirst()
    }
    let digits = exponent.drop { $0 == "0" }
    return mantissa + "e" + sign + (digits.isEmpty ? "0" : String(digits))
  }

  /// Writes `string` in double quotes with JSON escapes.
  static func writeQuoted(_ string: String, escapingNonASCII: Bool, to text: inout TextOutput) {
    text += "\""
    var string = string
    let plain = string.withUTF8 { utf8 in
      let needsEscape = utf8.contains { byte in
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
          || (escapingNonASCII && byte >= 0x7f)
      }
      if !needsEscape { text.bytes.append(contentsOf: utf8) }
      return !needsEscape
    }
    if plain {
      text += "\""
      return
    }
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case "\u{08}": text += "\\b"
      case "\u{0C}": text += "\\f"
      case "\n": text += "\\n"
      case "\r": text += "\\r"
      case "\t": text += "\\t"
      default:
        if scalar.value < 0x20 || (escapingNonASCII && scalar.value > 0x7e) {
          for unit in String(scalar).utf16 {
            text += "\\u"
            for shift in stride(from: 12, through: 0, by: -4) {
              text += hexDigits[Int((unit >> UInt16(shift)) & 0xf)]
            }
          }
        } else {
          text.append(scalar)
        }
      }
    }
    text += "\""
  }
}
