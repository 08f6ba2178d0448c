import Foundation
import Retrace

/// The source of a Swift Testing test that replays actions from a domain's initial state and
/// checks the state they reach: what `retrace shrink --emit-test` and `retrace check
/// --emit-test` print.
package enum SwiftTestSource {
  /// What the test expects of the state the actions reach.
  package enum Expectation: Sendable {
    /// The invariant fails (inside `withKnownIssue`, so that the test passes while the bug
    /// is there and fails once it is fixed).
    case invariantFails(String)
    /// The predicate holds.
    case predicateHolds(String)
  }

  /// A test file that replays `actions` and checks `expectation`.
  ///
  /// The actions are embedded as JSON and decoded with the action type's `Codable`
  /// conformance, so the test compiles whatever the actions hold.
  ///
  /// - Parameters:
  ///   - domain: The domain's type.
  ///   - domainName: The domain's name, for the function's name and the default expression.
  ///   - actions: The actions to replay.
  ///   - expectation: What the test expects of the state.
  ///   - comment: The lines of the comment at the top, `//` included.
  ///   - domainExpression: A Swift expression for the domain value; `<name>Domain` by
  ///     default.
  ///   - imports: The modules to import besides Foundation, Retrace and Testing; by default
  ///     the modules that define the action type (and the state type, with
  ///     `startingState`).
  ///   - startingState: The state the actions start from when it is not the domain's
  ///     initial state (a session recorded from a later point): embedded as JSON and
  ///     decoded with the state type's `Codable` conformance.
  /// - Returns: The source of a test file.
  package static func test<D: Domain>(
    _ domain: D.Type, domainName: String, actions: [D.Action], expectation: Expectation,
    comment: [String], domainExpression: String?, imports: [String]?,
    startingState: D.State? = nil
  ) -> String {
    let (module, actionType) = Self.splitTypeName(String(reflecting: D.Action.self))
    let (stateModule, stateType) = Self.splitTypeName(String(reflecting: D.State.self))
    let expression = domainExpression ?? Self.identifier(domainName) + "Domain"
    let defaultModules = [module, startingState == nil ? nil : stateModule].compactMap { $0 }
    let modules = Set(["Foundation", "Retrace", "Testing"] + (imports ?? defaultModules)).sorted()
    let writer = JSONLines.ActionWriter<D.Action>()
    let actionLines = actions.map {
      Self.jsonEscapingNonASCII((try? writer.json(for: $0)) ?? "null")
    }
    let json = "[\n" + actionLines.map { "  " + $0 }.joined(separator: ",\n") + "\n]"
    let stateJSON = startingState.map { state -> String? in
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
      // Line by line: the newlines between values are JSON's whitespace, which must stay
      // as they are (a newline inside a string is `\n` already).
      return (try? encoder.encode(state)).map {
        String(decoding: $0, as: UTF8.self).split(separator: "\n")
          .map { Self.jsonEscapingNonASCII(String($0)) }.joined(separator: "\n")
      }
    }
    // Enough `#`s that no `"#…` in the JSON ends the raw string and no `\#…` in it starts an
    // escape or an interpolation (`\#(…)`), whatever text the actions hold. The JSON is
    // printable ASCII, so its bytes are compared.
    var hashes = "#"
    for text in [json, (stateJSON ?? nil) ?? ""] {
      while text.utf8.contains(subsequence: "\"" + hashes)
        || text.utf8.contains(subsequence: "\\" + hashes)
      {
        hashes += "#"
      }
    }
    let (verb, name) =
      switch expectation {
      case .invariantFails(let name): ("Breaks", name)
      case .predicateHolds(let name): ("Reaches", name)
      }
    let functionName =
      Self.identifier(domainName) + verb + Self.identifier(name, capitalized: true)
    var lines = comment
    lines += modules.map { "import \($0)" }
    lines += [
      "",
      "@Test func \(functionName)() throws {",
      "  let domain = \(expression)",
      "  let actions = try JSONDecoder().decode(",
      "    [\(actionType)].self,",
      "    from: Data(",
      "      \(hashes)\"\"\"",
    ]
    lines += json.split(separator: "\n").map { "      " + $0 }
    lines += [
      "      \"\"\"\(hashes).utf8))"
    ]
    switch stateJSON {
    case nil:
      lines += ["  var state = domain.initialState"]
    case .some(nil):
      lines += [
        "  #error(\"the session's starting state could not be written as JSON; start from it by hand\")",
        "  var state = domain.initialState",
      ]
    case .some(let state?):
      lines += [
        "  // The session starts from a recorded state, not the domain's initial state.",
        "  var state = try JSONDecoder().decode(",
        "    \(stateType).self,",
        "    from: Data(",
        "      \(hashes)\"\"\"",
      ]
      lines += state.split(separator: "\n").map { "      " + $0 }
      lines += ["      \"\"\"\(hashes).utf8))"]
    }
    lines += [
      "  for action in actions {",
      "    _ = domain.reduce(into: &state, action: action)",
      "  }",
    ]
    switch expectation {
    case .invariantFails(let invariant):
      lines += [
        "  let invariant = try #require(domain.invariant(named: \(Self.stringLiteral(invariant))))",
        "  // The failure these actions reproduce. Once it is fixed, this known issue is no longer",
        "  // recorded and the test fails: then replace `withKnownIssue` with a plain #expect.",
        "  withKnownIssue {",
        "    #expect(invariant.holds(state))",
        "  }",
        "}",
      ]
    case .predicateHolds(let predicate):
      lines += [
        "  let predicate = try #require(domain.predicate(named: \(Self.stringLiteral(predicate))))",
        "  #expect(predicate.holds(state))",
        "}",
      ]
    }
    let text = lines.joined(separator: "\n") + "\n"
    return text
  }

  /// `text` as a Swift string literal, quotes included, that compiles whatever `text`
  /// holds: printable ASCII as itself, `\\` and `\"` for a backslash and a quote, `\n`,
  /// `\r` and `\t`, and `\u{…}` for every other scalar (`a"b`, a newline and `é` become
  /// `"a\"b\n\u{E9}"`).
  ///
  /// Nothing else is written as itself: the Swift lexer refuses some characters in a literal
  /// (a DEL), joins a combining mark to the character before it, and a reader of the test
  /// would see a bidirectional control reorder the line.
  package static func stringLiteral(_ text: String) -> String {
    var literal = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": literal += "\\\\"
      case "\"": literal += "\\\""
      case "\n": literal += "\\n"
      case "\r": literal += "\\r"
      case "\t": literal += "\\t"
      case " "..."~": literal.unicodeScalars.append(scalar)
      default: literal += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      }
    }
    return literal + "\""
  }

  /// `json` with every scalar outside printable ASCII written as a JSON escape (`\u00E9`,
  /// and a surrogate pair above U+FFFF), which decodes to the same text.
  ///
  /// The JSON goes into a raw string literal: printable ASCII is all it may hold for the
  /// literal to compile whatever the actions hold (a DEL, a combining mark after `#` or
  /// `"`), and for the count of `#`s that closes it to be found by comparing ASCII.
  static func jsonEscapingNonASCII(_ json: String) -> String {
    var escaped = ""
    for scalar in json.unicodeScalars {
      if (0x20...0x7E).contains(scalar.value) {
        escaped.unicodeScalars.append(scalar)
      } else {
        for unit in String(scalar).utf16 {
          let hex = String(unit, radix: 16, uppercase: true)
          escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
      }
    }
    return escaped
  }

  /// `RetraceExamples.BankingAction` → (`RetraceExamples`, `BankingAction`).
  static func splitTypeName(_ name: String) -> (module: String?, type: String) {
    guard let dot = name.firstIndex(of: "."), !name[..<dot].contains("<") else {
      return (nil, name)
    }
    return (String(name[..<dot]), String(name[name.index(after: dot)...]))
  }

  /// A Swift identifier from a name such as `non-negative-balance`: `nonNegativeBalance`;
  /// of ASCII letters and digits only.
  static func identifier(_ name: String, capitalized: Bool = false) -> String {
    // ASCII only: not every Unicode letter may be part of an identifier, and the name comes
    // from the trace.
    let words = name.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
    var result = ""
    for (index, word) in words.enumerated() {
      if index == 0 && !capitalized {
        result += word.prefix(1).lowercased() + word.dropFirst()
      } else {
        result += word.prefix(1).uppercased() + word.dropFirst()
      }
    }
    if let first = result.first, first.isNumber { result = "_" + result }
    return result.isEmpty ? "session" : result
  }
}

extension String.UTF8View {
  /// Whether `text`'s UTF-8 bytes occur in these, in a row.
  fileprivate func contains(subsequence text: String) -> Bool {
    let needle = Array(text.utf8)
    let bytes = Array(self)
    guard needle.count <= bytes.count else { return false }
    return (0...(bytes.count - needle.count)).contains { start in
      bytes[start..<(start + needle.count)].elementsEqual(needle)
    }
  }
}
