import Retrace

/// `text`, a state dump (``stateDump(_:)``) or diff (``stateDiff(_:_:)``) in
/// swift-custom-dump's format, with each number that `formats` names followed by its
/// formatted value: `balance: 4412,` becomes `balance: 4412 (44.12 EUR),`.
///
/// A value's path is read from the dump's nesting: each field's label, and `*` for an
/// array's element (`[3]: …`) or a dictionary's key. A diff's `- `, `+ ` and `  ` markers are
/// kept.
///
/// ```swift
/// let formats: [String: DisplayFormat] = ["accounts.*.balance": .money(currencyCode: "EUR")]
/// print(displayFormatted(stateDump(state), formats))
/// ```
///
/// ```
/// BankingState(
///   accounts: [
///     [0]: Account(
///       …
///       balance: 4412 (44.12 EUR)
/// ```
///
/// - Parameters:
///   - text: The dump or diff.
///   - formats: The domain's display formats (`Domain.displayFormats`).
/// - Returns: The text with the formatted values beside the raw ones.
public func displayFormatted(_ text: String, _ formats: [String: DisplayFormat]) -> String {
  let table = DisplayFormatTable(formats)
  guard !table.isEmpty else { return text }
  let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
  // A diff's lines all start with a two-character marker.
  let isDiff = lines.allSatisfy {
    $0.isEmpty || $0.hasPrefix("- ") || $0.hasPrefix("+ ") || $0.hasPrefix("  ")
  }
  // The path component of each container open, by depth.
  var open: [String?] = []
  var result: [Substring] = []
  result.reserveCapacity(lines.count)
  for line in lines {
    let marker = isDiff ? line.prefix(2) : ""
    let content = line.dropFirst(marker.count)
    let body = content.drop { $0 == " " }
    let depth = (content.count - body.count) / 2
    open.removeLast(max(0, open.count - depth))
    guard let (label, value) = DumpLine.split(body) else {
      result.append(line)
      continue
    }
    let separator = value.hasSuffix(",") ? "," : ""
    let raw = value.dropLast(separator.count)
    if raw.hasSuffix("(") || raw.hasSuffix("[") {
      while open.count < depth { open.append(nil) }
      open.append(label)
      result.append(line)
      continue
    }
    // The root's own container has no label: the path starts below it.
    let path = Array(open.dropFirst()) + [label]
    guard DumpLine.isNumber(raw), let format = table.format(at: path),
      let shown = format.format(String(raw))
    else {
      result.append(line)
      continue
    }
    result.append(line.dropLast(separator.count) + " (\(shown))" + separator)
  }
  return result.joined(separator: "\n")
}

/// Reads a line of swift-custom-dump's output.
private enum DumpLine {
  /// The label (`nil` for an element or a dictionary key) and the value of a labelled line,
  /// or `nil` for a line that is not one (`)`, `… (3 unchanged)`).
  static func split(_ body: Substring) -> (label: String?, value: Substring)? {
    if body.first == "[", let end = body.firstIndex(of: "]"),
      body[body.index(after: end)...].hasPrefix(": "),
      body[body.index(after: body.startIndex)..<end].allSatisfy(\.isNumber)
    {
      return (nil, body[body.index(end, offsetBy: 3)...])
    }
    if body.first == "\"", let end = body.range(of: "\": ") {
      return (nil, body[end.upperBound...])
    }
    let name = body.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
    guard !name.isEmpty, body[name.endIndex...].hasPrefix(": ") else {
      // An unlabelled value that opens a container: a root, or an enum's payload.
      if body.hasSuffix("(") || body.hasSuffix("[") { return (nil, body) }
      return nil
    }
    return (String(name), body[body.index(name.endIndex, offsetBy: 2)...])
  }

  /// Whether `text` is a number as swift-custom-dump writes one: `4412`, `-17.5`, `1e-05`.
  static func isNumber(_ text: Substring) -> Bool {
    guard let first = text.first, first == "-" || first.isNumber else { return false }
    return Double(text) != nil
  }
}
