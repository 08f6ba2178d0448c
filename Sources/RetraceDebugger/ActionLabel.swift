import Retrace

/// A one-line, readable label for an action: its case path and a short form of its payload,
/// as a developer reads it in a list (`navigation › push(route: about)`), where the encoded
/// action is `{"navigation":{"_0":{"push":{"route":{"about":{}}}}}}`.
///
/// ```swift
/// actionLabel(AppAction.navigation(.push(route: .about)))
/// // navigation › push(route: about)
/// actionLabel(TodoAction.complete(id: 11))
/// // complete(id: 11)
/// actionLabel(BoardAction.move(1, 2))
/// // move(1, 2)
/// ```
///
/// The rules, over the action's encoding (`docs/CODEC.md`): a case whose only payload is
/// another case, unlabelled or labelled `action` (a child feature's action, wrapped), is
/// written `case › child`; a case with no payload is its name; a case with associated values
/// writes them as Swift prints them: `label: value` where the case has a label, whether it
/// has one value or several, and the value alone where it has none (which Swift encodes as
/// `_0`, `_1`, …). Text is quoted and cut at 40 characters, its invisible characters escaped
/// (`String.oneLine(quoted:)`), collections show their size, and a struct its fields while
/// the label stays short. The whole label is cut at `maxLength` characters with `…`.
///
/// - Parameters:
///   - action: The action.
///   - maxLength: The longest label, in characters; at least 8.
/// - Returns: The label; the type's name when the action does not encode.
public func actionLabel(_ action: some Encodable, maxLength: Int = 120) -> String {
  guard let value = try? CBORValue(encoding: action) else { return "\(type(of: action))" }
  return actionLabel(encoded: value, maxLength: maxLength)
}

/// The label of an action given in its encoded form: see ``actionLabel(_:maxLength:)``.
///
/// - Parameters:
///   - value: The encoded action.
///   - maxLength: The longest label, in characters; at least 8.
/// - Returns: The label.
public func actionLabel(encoded value: CBORValue, maxLength: Int = 120) -> String {
  var writer = ActionLabelWriter(budget: max(maxLength, 8) * 2)
  var label = writer.caseLabel(value)
  let limit = max(maxLength, 8)
  if label.count > limit { label = String(label.prefix(limit - 1)) + "…" }
  return label
}

/// Writes labels within a budget of characters, so that a huge payload costs no more than
/// the label shows.
private struct ActionLabelWriter {
  var budget: Int

  /// A case and its payload, or any other value as a value.
  mutating func caseLabel(_ value: CBORValue) -> String {
    guard let (name, payload) = Self.singleCase(value) else { return self.value(value) }
    budget -= name.count
    guard case .map(let fields) = payload, !fields.isEmpty else { return name }
    // A wrapped child action (`case child(ChildAction)` or `case child(action: …)`):
    // `parent › child`.
    if fields.count == 1, let key = Self.text(fields[0].key), key == "_0" || key == "action",
      Self.singleCase(fields[0].value) != nil
    {
      return name + " › " + caseLabel(fields[0].value)
    }
    var parts: [String] = []
    for field in fields {
      guard budget > 0 else {
        parts.append("…")
        break
      }
      let label = Self.text(field.key) ?? "?"
      let written = self.value(field.value)
      parts.append(label.hasPrefix("_") ? written : label + ": " + written)
    }
    return name + "(" + parts.joined(separator: ", ") + ")"
  }

  /// A value inside a payload.
  mutating func value(_ value: CBORValue) -> String {
    let written: String
    switch value {
    case .textString(let text):
      let cut = text.count > 40 ? String(text.prefix(39)) + "…" : text
      written = cut.oneLine(quoted: true)
    case .unsigned(let number): written = String(number)
    case .negative(let number):
      written = number == .max ? "-18446744073709551616" : "-\(number + 1)"
    case .float(let number):
      written =
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    case .boolean(let flag): written = String(flag)
    case .null, .undefined: written = "nil"
    case .byteString(let bytes): written = "\(bytes.count) bytes"
    case .array(let items): written = items.count == 1 ? "[1 item]" : "[\(items.count) items]"
    case .tagged(_, let inner): return self.value(inner)
    case .simple(let simple): written = "simple(\(simple))"
    case .map(let fields):
      if Self.singleCase(value) != nil { return caseLabel(value) }
      if fields.isEmpty {
        written = "{}"
      } else if budget < 20 || fields.count > 4 {
        written = "{\(fields.count) fields}"
      } else {
        budget -= 2
        var parts: [String] = []
        for field in fields {
          parts.append((Self.text(field.key) ?? "?") + ": " + self.value(field.value))
        }
        return "{" + parts.joined(separator: ", ") + "}"
      }
    }
    budget -= written.count
    return written
  }

  /// The case name and payload of a value encoded as an enum case: a map of one text key
  /// whose value is a map (the associated values, possibly none).
  static func singleCase(_ value: CBORValue) -> (String, CBORValue)? {
    guard case .map(let pairs) = value, pairs.count == 1, let name = text(pairs[0].key),
      case .map = pairs[0].value
    else { return nil }
    return (name.oneLine(), pairs[0].value)
  }

  /// A key's text, made one line: keys come from the encoding, which a trace can forge.
  static func text(_ value: CBORValue) -> String? {
    if case .textString(let text) = value { return text.oneLine() }
    return nil
  }
}
