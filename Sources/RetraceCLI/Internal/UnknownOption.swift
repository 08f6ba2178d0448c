import ArgumentParser
import Foundation

/// A long option that the command it was given to does not have, with the nearest one it
/// does have.
///
/// swift-argument-parser names an unknown option (and suggests the nearest) only once the
/// command has decoded: a required option that is missing, or a failed validation, is
/// reported instead, so that `bisect t.trace --invarient x` said "Missing expected argument
/// '--invariant'". The mistyped option is the cause, so it is looked for first.
struct UnknownOption: Equatable {
  /// The option as typed, such as `--invarient`.
  var typed: String
  /// The nearest option of the command, such as `--invariant`, if one is near.
  var suggestion: String?
  /// The command's words after the tool's name, such as `["bisect"]`.
  var commandPath: [String]

  /// The problem as swift-argument-parser words it.
  var message: String {
    "Unknown option '\(typed)'" + (suggestion.map { ". Did you mean '\($0)'?" } ?? "")
  }

  /// How far apart two names may be for one to be suggested for the other: what
  /// swift-argument-parser uses.
  private static let similarityFloor = 4

  /// The first unknown long option in `arguments`, given to the subcommand of `root` that
  /// the leading words name; `nil` when every long option is known.
  ///
  /// - Parameters:
  ///   - arguments: The arguments, without the tool's name.
  ///   - root: The root command.
  static func find(in arguments: [String], root: any ParsableCommand.Type) -> UnknownOption? {
    guard let data = root._dumpHelp().data(using: .utf8),
      let tool = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      var command = tool["command"] as? [String: Any]
    else { return nil }
    var rest = arguments[...]
    var path: [String] = []
    // The subcommands the leading words name.
    while let word = rest.first,
      let subcommand = (command["subcommands"] as? [[String: Any]])?.first(where: {
        $0["commandName"] as? String == word
          || ($0["aliases"] as? [String] ?? []).contains(word)
      })
    {
      command = subcommand
      path.append(word)
      rest = rest.dropFirst()
    }
    var longNames: Set<String> = ["help", "version", "experimental-dump-help"]
    var takesValue: Set<String> = []
    for argument in command["arguments"] as? [[String: Any]] ?? [] {
      let kind = argument["kind"] as? String
      for name in argument["names"] as? [[String: Any]] ?? []
      where name["kind"] as? String == "long" {
        guard let text = name["name"] as? String else { continue }
        longNames.insert(text)
        if kind == "option" { takesValue.insert(text) }
      }
    }
    var skipValue = false
    for word in rest {
      if skipValue {
        skipValue = false
        continue
      }
      if word == "--" { break }
      guard word.hasPrefix("--"), word.count > 2 else { continue }
      let name = String(word.dropFirst(2).prefix { $0 != "=" })
      if longNames.contains(name) {
        skipValue = takesValue.contains(name) && !word.contains("=")
        continue
      }
      let typed = "--" + name
      let nearest =
        longNames
        .map { (name: $0, distance: editDistance($0, name)) }
        .filter { $0.distance < similarityFloor }
        .min { ($0.distance, $0.name) < ($1.distance, $1.name) }
      return UnknownOption(
        typed: typed, suggestion: nearest.map { "--" + $0.name }, commandPath: path)
    }
    return nil
  }

  /// The Levenshtein distance between two names.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        current[j] = min(
          previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}
