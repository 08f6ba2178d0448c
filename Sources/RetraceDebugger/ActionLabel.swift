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
/// let formats = ActionDisplayFormats(["**.amount": .money(currencyCode: "EUR")])
/// actionLabel(LedgerAction.deposit(amount: 4412), formats: formats)
/// // deposit(amount: 4412 (44.12 EUR))
/// ```
///
/// The rules, over the action's encoding (`docs/CODEC.md`): a case whose only payload is
/// another case, unlabelled or labelled `action` (a child feature's action, wrapped), is
/// written `case › child`; a case with no payload is its name; a case with associated values
/// writes them as Swift prints them: `label: value` where the case has a label, whether it
/// has one value or several, and the value alone where it has none (which Swift encodes as
/// `_0`, `_1`, …). Text is quoted and cut at 40 characters, its invisible characters escaped
/// (`String.oneLine(quoted:)`), collections show their size, and a struct its fields while
/// the label stays short. A number that `formats` names is followed by its formatted value,
/// as `retrace state` writes it (``ActionDisplayFormats`` says how a payload's value is
/// matched). The whole label is cut at `maxLength` characters with `…`.
///
/// - Parameters:
///   - action: The action.
///   - maxLength: The longest label, in characters; at least 8.
///   - formats: The domain's display formats, made once for many labels.
/// - Returns: The label; the type's name when the action does not encode.
public func actionLabel(
  _ action: some Encodable, maxLength: Int = 120, formats: ActionDisplayFormats = .none
) -> String {
  guard let value = try? CBORValue(encoding: action) else { return "\(type(of: action))" }
  return actionLabel(encoded: value, maxLength: maxLength, formats: formats)
}

/// The label of an action given in its encoded form: see
/// ``actionLabel(_:maxLength:formats:)``.
///
/// - Parameters:
///   - value: The encoded action.
///   - maxLength: The longest label, in characters; at least 8.
///   - formats: The domain's display formats, made once for many labels.
/// - Returns: The label.
public func actionLabel(
  encoded value: CBORValue, maxLength: Int = 120, formats: ActionDisplayFormats = .none
) -> String {
  var writer = ActionLabelWriter(budget: max(maxLength, 8) * 2, formats: formats)
  var label = writer.caseLabel(value)
  let limit = max(maxLength, 8)
  if label.count > limit { label = String(label.prefix(limit - 1)) + "…" }
  return label
}

/// A domain's display formats (`Domain.displayFormats`) applied to actions: to the numbers of
/// their payloads in labels (``actionLabel(_:maxLength:formats:)``) and in the note the CLI
/// writes after an action (``note(for:)``). Made once, for many actions.
///
/// A payload's value is matched by its path in the action's encoding (what `log --json`
/// shows): the case's name, then the argument labels and field names down to it (`_0`, `_1`
/// for an unlabelled value), `*` for an array's element. So `deposit(amount: 4412)` is at
/// `deposit.amount`, which `**.amount` matches as it matches a state's `amount` fields,
/// while a state path such as `accounts.*.balance` matches no action.
///
/// ```swift
/// let formats = ActionDisplayFormats(["**.amount": .money(currencyCode: "EUR")])
/// formats.note(for: LedgerAction.deposit(amount: 4412))
/// // " (amount: 44.12 EUR)"
/// ```
public struct ActionDisplayFormats: Sendable {
  private let table: DisplayFormatTable

  /// No formats: actions are shown with their raw values.
  public static let none = ActionDisplayFormats([:])

  /// The formats of `formats` that can match an action of one of `actionCases`: those whose
  /// pattern starts with `*`, `**` or one of the cases (all of them when `actionCases` is
  /// `nil` or empty: not known). A domain whose patterns all name state fields
  /// (`accounts.*.balance`) leaves none, and its actions cost nothing more to show.
  ///
  /// - Parameters:
  ///   - formats: The domain's display formats.
  ///   - actionCases: The domain's action cases (`Domain.actionCases`).
  public init(_ formats: [String: DisplayFormat], actionCases: [String]? = nil) {
    table = DisplayFormatTable(
      formats.filter { pattern, _ in
        guard let actionCases, !actionCases.isEmpty else { return true }
        let first = pattern.prefix { $0 != "." }
        return first == "*" || first == "**" || actionCases.contains { $0 == first }
      })
  }

  /// The formats of `domain` that can match its actions.
  ///
  /// - Parameter domain: The domain.
  public init(_ domain: some Domain) {
    self.init(domain.displayFormats, actionCases: domain.actionCases)
  }

  /// Whether no format can match an action.
  public var isEmpty: Bool { table.isEmpty }

  /// What the CLI writes after an action's JSON (`log`, `bisect`, `shrink`, `diff A B`,
  /// `debug`): the numbers of its payload that a format names, formatted, in the order of
  /// the action's encoding: ` (amount: 44.12 EUR)`; empty when there are none.
  ///
  /// - Parameter action: The action.
  /// - Returns: The note, with its leading space; empty when no format applies.
  public func note(for action: some Encodable) -> String {
    guard !isEmpty, let value = try? CBORValue(encoding: action) else { return "" }
    var path: [String?] = []
    var shown: [String] = []
    forEachFormatted(in: value, path: &path) { key, formatted in
      shown.append((key ?? "*") + ": " + formatted)
    }
    return shown.isEmpty ? "" : " (" + shown.joined(separator: ", ") + ")"
  }

  /// The formatted value of the number written as `raw` at `path`; `nil` when no format
  /// names the path or the format does not take the number.
  fileprivate func shown(_ raw: String, at path: [String?]) -> String? {
    guard !table.isEmpty else { return nil }
    return table.format(at: path)?.format(raw)
  }

  /// Calls `body` with the last key of the path (`nil` for an array's element) and the
  /// formatted value of each number under `value` that a format names, in order.
  private func forEachFormatted(
    in value: CBORValue, path: inout [String?], _ body: (String?, String) -> Void
  ) {
    switch value {
    case .map(let fields):
      for field in fields {
        path.append(ActionLabelWriter.text(field.key) ?? "?")
        forEachFormatted(in: field.value, path: &path, body)
        path.removeLast()
      }
    case .array(let items):
      for item in items {
        path.append(nil)
        forEachFormatted(in: item, path: &path, body)
        path.removeLast()
      }
    case .tagged(_, let inner):
      forEachFormatted(in: inner, path: &path, body)
    default:
      if let raw = Self.number(value), let formatted = shown(raw, at: path) {
        // Named by its label; an unlabelled value (`_0`) by the label or case above it.
        body(path.last { $0.map { !$0.hasPrefix("_") } ?? false } ?? nil, formatted)
      }
    }
  }

  /// A number's text as labels write it (a whole float without its fraction); `nil` for
  /// what is not a number.
  fileprivate static func number(_ value: CBORValue) -> String? {
    switch value {
    case .unsigned(let number): String(number)
    case .negative(let number): number == .max ? "-18446744073709551616" : "-\(number + 1)"
    case .float(let number):
      number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    default: nil
    }
  }
}

/// Writes labels within a budget of characters, so that a huge payload costs no more than
/// the label shows.
private struct ActionLabelWriter {
  var budget: Int
  let formats: ActionDisplayFormats
  /// The path of the value being written, in the action's encoding.
  var path: [String?] = []

  /// A case and its payload, or any other value as a value.
  mutating func caseLabel(_ value: CBORValue) -> String {
    guard let (name, payload) = Self.singleCase(value) else { return self.value(value) }
    budget -= name.count
    guard case .map(let fields) = payload, !fields.isEmpty else { return name }
    path.append(name)
    defer { path.removeLast() }
    // A wrapped child action (`case child(ChildAction)` or `case child(action: …)`):
    // `parent › child`.
    if fields.count == 1, let key = Self.text(fields[0].key), key == "_0" || key == "action",
      Self.singleCase(fields[0].value) != nil
    {
      path.append(key)
      defer { path.removeLast() }
      return name + " › " + caseLabel(fields[0].value)
    }
    var parts: [String] = []
    for field in fields {
      guard budget > 0 else {
        parts.append("…")
        break
      }
      let label = Self.text(field.key) ?? "?"
      path.append(label)
      let written = self.value(field.value)
      path.removeLast()
      parts.append(label.hasPrefix("_") ? written : label + ": " + written)
    }
    return name + "(" + parts.joined(separator: ", ") + ")"
  }

  /// A value inside a payload.
  mutating func value(_ value: CBORValue) -> String {
    var written: String
    switch value {
    case .textString(let text):
      let cut = text.count > 40 ? String(text.prefix(39)) + "…" : text
      written = cut.oneLine(quoted: true)
    case .unsigned, .negative, .float:
      written = ActionDisplayFormats.number(value) ?? ""
      if let shown = formats.shown(written, at: path) { written += " (\(shown))" }
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
          let key = Self.text(field.key) ?? "?"
          path.append(key)
          parts.append(key + ": " + self.value(field.value))
          path.removeLast()
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
