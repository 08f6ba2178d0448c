extension CBORValue {
  /// The item as compact JSON, following RFC 8949 §6.1; map keys in stored order.
  ///
  /// Integers and finite floats become numbers (floats without a trailing `.0`, as
  /// JSONEncoder writes them); non-finite floats, `undefined` and other simple values
  /// become `null`; byte strings become base64url strings without padding; tags are
  /// dropped in favour of their content, except that a negative bignum (tag 3) gets a
  /// `~` before its base64url text; a map key that is not a text string becomes the
  /// string of its own JSON text.
  ///
  /// ```swift
  /// let action = try CBORValue(decoding: CBOREncoder().encode(Action.move(from: 1, to: 2)))
  /// print(action.jsonText)   // {"move":{"from":1,"to":2}}
  /// ```
  public var jsonText: String {
    jsonText(sortingKeys: false)
  }

  /// The item as compact JSON (see ``jsonText``), with map keys in stored order or sorted.
  ///
  /// With `sortingKeys`, the entries of each map are ordered by the UTF-8 bytes of their
  /// JSON keys, which is the order of `JSONEncoder`'s `.sortedKeys` (swift-foundation), so
  /// that the text can be compared with JSON written by Foundation. (CBOR's deterministic
  /// order is a different one: shorter keys first.)
  ///
  /// ```swift
  /// let value: CBORValue = ["to": 2, "from": 1]
  /// value.jsonText(sortingKeys: true)   // {"from":1,"to":2}
  /// ```
  ///
  /// - Parameter sortingKeys: Whether to sort each map's entries by key.
  /// - Returns: The JSON text.
  public func jsonText(sortingKeys: Bool) -> String {
    var text = TextOutput()
    writeJSON(to: &text, sortingKeys: sortingKeys)
    return text.string
  }

  private func writeJSON(to text: inout TextOutput, sortingKeys: Bool) {
    switch self {
    case .unsigned(let value):
      text += String(value)
    case .negative(let value):
      text += Self.negativeDecimal(value)
    case .byteString(let bytes):
      text += "\"" + Self.base64url(bytes) + "\""
    case .textString(let string):
      Self.writeQuoted(string, escapingNonASCII: false, to: &text)
    case .array(let items):
      text += "["
      for (index, item) in items.enumerated() {
        if index > 0 { text += "," }
        item.writeJSON(to: &text, sortingKeys: sortingKeys)
      }
      text += "]"
    case .map(let pairs):
      var entries = pairs.map { pair -> (key: String, value: CBORValue) in
        if case .textString(let key) = pair.key { return (key, pair.value) }
        return (pair.key.jsonText(sortingKeys: sortingKeys), pair.value)
      }
      if sortingKeys {
        entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
      }
      text += "{"
      for (index, entry) in entries.enumerated() {
        if index > 0 { text += "," }
        Self.writeQuoted(entry.key, escapingNonASCII: false, to: &text)
        text += ":"
        entry.value.writeJSON(to: &text, sortingKeys: sortingKeys)
      }
      text += "}"
    case .tagged(3, .byteString(let bytes)):
      text += "\"~" + Self.base64url(bytes) + "\""
    case .tagged(_, let content):
      content.writeJSON(to: &text, sortingKeys: sortingKeys)
    case .boolean(let value):
      text += value ? "true" : "false"
    case .null, .undefined, .simple:
      text += "null"
    case .float(let value):
      guard value.isFinite else {
        text += "null"
        return
      }
      var number = value.description
      if number.hasSuffix(".0") { number.removeLast(2) }
      text += number
    }
  }

  private static let base64urlAlphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)

  /// Base64url without padding (RFC 4648 §5).
  static func base64url(_ bytes: [UInt8]) -> String {
    var text = String.UnicodeScalarView()
    var index = 0
    while index < bytes.count {
      let chunk = bytes[index..<min(index + 3, bytes.count)]
      var group: UInt32 = 0
      for (k, byte) in chunk.enumerated() { group |= UInt32(byte) << (16 - 8 * k) }
      for k in 0...chunk.count {
        text.append(base64urlAlphabet[Int((group >> (18 - 6 * k)) & 0x3f)])
      }
      index += 3
    }
    return String(text)
  }
}
