import Retrace
import RetraceLog

/// What changed from one state to another, in the shape of their JSON: the one structural
/// diff of two states (``StatePreview/changes(from:_:to:limit:)``), with the preview of the
/// new state that holds every item changed, and a text written from the same changes.
///
/// The Studio's `/diff` answers these changes and their text; `retrace diff --json` writes the
/// same changes, at the same paths.
///
/// ```swift
/// let diff = try StateChanges(from: old, to: new)
/// print(diff.text(domain.displayFormats))
/// ```
///
/// ```
/// accounts[0].balance: 971 (9.71 EUR) → -1728 (-17.28 EUR)
/// accounts[1]: moved from [3], id "DE89…"
/// ```
package struct StateChanges {
  /// The changes, at most the limit given.
  package let changes: [StatePreview.Change]
  /// The preview of the new state, which holds each value changed or added.
  package let preview: StatePreview
  /// Whether ``changes`` holds every change: `false` when the limit cut them, or when a long
  /// array's items between its ends could not be compared (``uncompared``).
  package let isComplete: Bool
  /// The long arrays of the old state whose items between the first and last 50 are not
  /// compared (``LongArrays``), with their counts.
  package let uncompared: [(path: [PathStep], count: Int)]

  /// How many changes were looked for at most.
  private let limit: Int

  /// Compares `old` with `new`, finding at most `limit` changes.
  ///
  /// - Throws: What the states' own `encode(to:)` throws.
  package init<State: Encodable>(from old: State, to new: State, limit: Int = 2_000) throws {
    let (before, beforeArrays) = try StatePreview.capturing(old)
    let found = try StatePreview.changes(from: before, beforeArrays, to: new, limit: limit)
    changes = found.changes
    self.limit = limit
    preview = found.preview
    // Between the ends of a long array, items are compared only with the same long array
    // of the old state, held whole: one that is long on one side only (it grew from a short
    // one, or shrank to one, or is new) is not compared there.
    var uncompared = beforeArrays.uncompared
    var listed = Set(uncompared.map(\.path))
    var cutNew: [[PathStep]: Int] = [:]
    var cutOld: [[PathStep]: Int] = [:]
    Self.cutArrays(found.preview.root, into: &cutNew)
    Self.cutArrays(before.root, into: &cutOld)
    // An array inside an item that moved is compared with the one at the item's old place.
    var oldPlace: [[PathStep]: [PathStep]] = [:]
    for change in found.changes where change.kind == "moved" {
      if let from = change.from, case .index? = change.path.last {
        oldPlace[change.path] = change.path.dropLast() + [.index(from)]
      }
    }
    let newPlace = Dictionary(oldPlace.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    for (path, count) in cutNew.sorted(by: { "\($0.key)" < "\($1.key)" })
    where beforeArrays.arrays[Self.moved(path, oldPlace)] == nil && !listed.contains(path) {
      uncompared.append((path, count))
      listed.insert(path)
    }
    for (path, count) in cutOld.sorted(by: { "\($0.key)" < "\($1.key)" })
    where cutNew[Self.moved(path, newPlace)] == nil && !listed.contains(path) {
      uncompared.append((path, count))
      listed.insert(path)
    }
    self.uncompared = uncompared
    isComplete = found.changes.count < limit && uncompared.isEmpty
  }

  /// `path` with its longest prefix that `places` maps replaced by where it maps to.
  private static func moved(_ path: [PathStep], _ places: [[PathStep]: [PathStep]])
    -> [PathStep]
  {
    guard !places.isEmpty else { return path }
    for end in stride(from: path.count, to: 0, by: -1) {
      if let place = places[Array(path[..<end])] { return place + path[end...] }
    }
    return path
  }

  /// The arrays in `value` (at `path`) that a preview holds only part of, with their counts.
  private static func cutArrays(
    _ value: PreviewValue, at path: [PathStep] = [], into found: inout [[PathStep]: Int]
  ) {
    switch value {
    case .leaf: break
    case .object(let fields):
      for (key, field) in fields { cutArrays(field, at: path + [.key(key)], into: &found) }
    case .array(let count, let items, _):
      if items.count < count { found[path] = count }
      for (index, item) in items { cutArrays(item, at: path + [.index(index)], into: &found) }
    }
  }

  /// `key` as a JSON string, with every character that does not show itself (controls,
  /// format characters such as U+202E, line and paragraph separators, combining marks) written
  /// as `\u{…}`.
  static func quoted(_ key: String) -> String {
    var text = "\""
    for scalar in key.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      default:
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .nonspacingMark,
          .enclosingMark, .spacingMark, .privateUse, .surrogate, .unassigned:
          text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        default:
          if scalar.properties.isWhitespace && scalar != " " {
            text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
          } else {
            text.unicodeScalars.append(scalar)
          }
        }
      }
    }
    return text + "\""
  }

  /// The changes as text, one line each: the path, then what happened there, with the
  /// numbers that `formats` names followed by their formatted value, as ``displayFormatted(_:_:)``
  /// writes them.
  ///
  /// - `path: old → new` for a value changed;
  /// - `path: added: new` and `path: removed: old` (`removed` alone when the old value is
  ///   too long to hold);
  /// - `path: moved from [index]` for an item moved in its array, with its `id` when it has one.
  package func text(_ formats: [String: DisplayFormat] = [:]) -> String {
    let table = DisplayFormatTable(formats)
    var lines = changes.map { change -> String in
      let place = Self.text(of: change.path)
      let new = preview.node(at: change.path).map {
        Self.shown($0.json.text, at: change.path, table)
      }
      let old = change.old.map { Self.shown($0, at: change.path, table) }
      let id = change.id.map { ", id \($0)" } ?? ""
      switch change.kind {
      case "added": return "\(place): added" + (new.map { ": \($0)" } ?? "") + id
      case "removed": return "\(place): removed" + (old.map { ": \($0)" } ?? "") + id
      case "moved": return "\(place): moved from [\(change.from ?? 0)]" + id
      default: return "\(place): \(old ?? "…") → \(new ?? "…")"
      }
    }
    if changes.count >= limit { lines.append("… (the first \(changes.count) changes)") }
    for (path, count) in uncompared {
      lines.append(
        "… (\(Self.text(of: path)), \(count) items: those between the first and last 50 not compared)"
      )
    }
    return lines.joined(separator: "\n")
  }

  /// The longest value written in a line, in characters: a longer one is cut, with `…`.
  static let valueLimit = 200

  /// `json`, the value at `path`, as a line shows it: cut at ``valueLimit``, and each number
  /// in it (itself, or one inside an object or array) that the table names followed by its
  /// formatted value, as `retrace diff` writes them: `{"amount":-1199 (-11.99 EUR)}`.
  private static func shown(_ json: String, at path: [PathStep], _ table: DisplayFormatTable)
    -> String
  {
    let cut = json.count > valueLimit ? json.prefix(valueLimit) + "…" : json
    guard !table.isEmpty else { return cut }
    let keys = path.map { step -> String? in
      if case .key(let key) = step { return key }
      return nil
    }
    return formattingNumbers(in: cut, at: keys, table)
  }

  /// `json` with each number whose path (`base`, then the keys and indexes inside `json`,
  /// an index as `nil`) the table names followed by ` (formatted)`. It reads JSON text as
  /// written by an encoder; text cut short is formatted as far as it goes.
  static func formattingNumbers(
    in json: String, at base: [String?], _ table: DisplayFormatTable
  ) -> String {
    // The open containers: an object's key being read or last read, or an array's place.
    enum Level {
      case object(key: String?)
      case array
    }
    var levels: [Level] = []
    var output = ""
    var characters = json.makeIterator()
    var pending = characters.next()
    func path() -> [String?] {
      base
        + levels.map {
          if case .object(let key) = $0 { return key }
          return nil
        }
    }
    while let character = pending {
      pending = characters.next()
      switch character {
      case "{":
        levels.append(.object(key: nil))
        output.append(character)
      case "[":
        levels.append(.array)
        output.append(character)
      case "}", "]":
        if !levels.isEmpty { levels.removeLast() }
        output.append(character)
      case ",":
        if case .object = levels.last { levels[levels.count - 1] = .object(key: nil) }
        output.append(character)
      case "\"":
        var text = ""
        var raw = "\""
        var escaped = false
        while let next = pending {
          pending = characters.next()
          raw.append(next)
          if escaped {
            escaped = false
            text.append(next)
          } else if next == "\\" {
            escaped = true
          } else if next == "\"" {
            break
          } else {
            text.append(next)
          }
        }
        output += raw
        // A key: the string before a colon, in an object whose key is not read yet.
        if case .object(key: nil) = levels.last, pending == ":" {
          levels[levels.count - 1] = .object(key: text)
        }
      case "-", "0"..."9":
        var number = String(character)
        while let next = pending,
          next == "-" || next == "+" || next == "." || next == "e"
            || next == "E" || next.isASCII && next.isNumber
        {
          number.append(next)
          pending = characters.next()
        }
        output += number
        if let format = table.format(at: path()), let formatted = format.format(number) {
          output += " (\(formatted))"
        }
      default:
        output.append(character)
      }
    }
    return output
  }

  /// A path as text: `accounts[0].balance`; a key that is not a name as `["a key"]`; the
  /// whole state as `(the state)`.
  package static func text(of path: [PathStep]) -> String {
    guard !path.isEmpty else { return "(the state)" }
    var text = ""
    for step in path {
      switch step {
      case .index(let index): text += "[\(index)]"
      case .key(let key):
        // Bare only when plainly a name: ASCII letters, digits and `_`, so that no key reads
        // as another (a letter followed by an invisible mark is quoted, and the mark shown).
        let scalars = key.unicodeScalars
        let isName =
          scalars.first.map { $0 == "_" || $0.isASCII && $0.properties.isAlphabetic } == true
          && scalars.allSatisfy {
            $0 == "_" || $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
          }
        if isName {
          text += text.isEmpty ? key : ".\(key)"
        } else {
          text += "[\(quoted(key))]"
        }
      }
    }
    return text
  }
}
