extension StringProtocol {
  /// This text as one line that shows all it holds, for a terminal, a log or a comment.
  ///
  /// Control characters, line and paragraph separators, bidirectional controls and the
  /// other invisible format characters (Unicode's general category `Cf`: `U+200B`,
  /// `U+FEFF`, `U+2060`, …) are written as Swift writes them (`\n`, `\u{1B}`, `\u{202E}`,
  /// `\u{200B}`), so that text from a file or a peer can neither end the line and forge
  /// another, drive the terminal, make the line read in another order than it is stored,
  /// nor hide characters from its reader. A zero-width joiner or tag character inside an
  /// emoji (👩‍💻, a subdivision flag) stays: it is part of the emoji shown.
  ///
  /// ```swift
  /// "a\nb\u{202E}c".oneLine()  // a\nb\u{202E}c
  /// "say \"hi\"".oneLine(quoted: true)  // "say \"hi\""
  /// ```
  ///
  /// - Parameter quoted: Whether to write the text between double quotes, with its own
  ///   quotes and backslashes escaped (`\"`, `\\`), as a label shows a string value.
  /// - Returns: The line, as printable as the text allows.
  package func oneLine(quoted: Bool = false) -> String {
    // Printable ASCII, most labels and values, is written as it is, without a look at
    // Unicode's properties: a filter over 100,000 actions' labels spent 40% of its time there.
    if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
      guard quoted else { return String(self) }
      var line = "\""
      line.reserveCapacity(utf8.count + 2)
      for byte in utf8 {
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { line += "\\" }
        line.unicodeScalars.append(Unicode.Scalar(byte))
      }
      return line + "\""
    }
    guard quoted || unicodeScalars.contains(where: \.mayHideOnOneLine) else { return String(self) }
    var line = quoted ? "\"" : ""
    for character in self {
      let scalars = character.unicodeScalars
      let first = scalars.first!
      let isEmoji = first.value > 0x7F && first.properties.isEmoji
      for (index, scalar) in scalars.enumerated() {
        if quoted, scalar == "\"" || scalar == "\\" {
          line += "\\" + String(scalar)
        } else if scalar.mayHideOnOneLine, !(isEmoji && index > 0 && scalar.joinsEmoji) {
          line += scalar.escaped(asASCII: true)
        } else {
          line.unicodeScalars.append(scalar)
        }
      }
    }
    return quoted ? line + "\"" : line
  }
}

extension Unicode.Scalar {
  /// Whether the scalar can end a line, drive a terminal, reorder a line or not be seen:
  /// a control or format character, a line or paragraph separator, a bidirectional control.
  fileprivate var mayHideOnOneLine: Bool {
    if value < 0x80 { return value < 0x20 || value == 0x7F }
    switch properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator: return true
    default: return properties.isBidiControl
    }
  }

  /// The zero-width joiner and the tag characters, which build emoji sequences.
  fileprivate var joinsEmoji: Bool {
    value == 0x200D || (0xE0020...0xE007F).contains(value)
  }
}
