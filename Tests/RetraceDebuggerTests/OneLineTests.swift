import Testing

@testable import RetraceDebugger

/// `String.oneLine()`: the one way text from a file or a peer is made safe to print on one
/// line, in the CLI, the Studio's log, a label and a generated test's comments.
@Suite struct OneLineTests {
  /// Controls, separators, bidirectional controls and the invisible format characters are
  /// escaped, as Swift writes them (`\u{0085}`: four digits at least); everything else is
  /// itself.
  @Test(arguments: [
    ("plain text, é, 日本", "plain text, é, 日本"),
    ("a\nb\r\tc\u{0}", #"a\nb\r\tc\0"#),
    ("\u{1B}[2J\u{7F}\u{85}", #"\u{1B}[2J\u{7F}\u{0085}"#),
    ("report\u{202E}txt.exe", #"report\u{202E}txt.exe"#),
    ("\u{2066}\u{2069}\u{200E}\u{200F}\u{61C}", #"\u{2066}\u{2069}\u{200E}\u{200F}\u{061C}"#),
    (
      "zero\u{200B}width\u{FEFF}bom\u{2060}joiner\u{AD}hyphen",
      #"zero\u{200B}width\u{FEFF}bom\u{2060}joiner\u{00AD}hyphen"#
    ),
    ("line\u{2028}paragraph\u{2029}", #"line\u{2028}paragraph\u{2029}"#),
    ("a\u{200D}b", #"a\u{200D}b"#),
    // A joiner or tag inside an emoji is part of it.
    ("👩‍💻 🏴󠁧󠁢󠁳󠁣󠁴󠁿", "👩‍💻 🏴󠁧󠁢󠁳󠁣󠁴󠁿"),
  ])
  func invisibleAndControlCharactersAreEscaped(text: String, expected: String) {
    #expect(text.oneLine() == expected)
  }

  /// Quoted, the text's own quotes and backslashes are escaped too.
  @Test func quotedTextEscapesItsQuotesAndBackslashes() {
    #expect(#"say "hi" \ "#.oneLine(quoted: true) == #""say \"hi\" \\ ""#)
    #expect("a\u{202E}".oneLine(quoted: true) == #""a\u{202E}""#)
  }
}
