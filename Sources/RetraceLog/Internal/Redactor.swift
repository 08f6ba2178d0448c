import Crypto
import Retrace

/// Applies a domain's ``RedactionPolicy`` to encoded actions and states, on the recorder's
/// writer thread, before a byte of them is written.
///
/// It rewrites the CBOR item by item: heads, keys and every value no rule touches are copied
/// as they are, so that a redacted state encodes exactly as the state that the redacted
/// actions produce when replayed, and its hash matches theirs (`docs/PRIVACY.md`). A text
/// value under a `pseudonymize` rule becomes its keyed pseudonym; a value under `drop`, a
/// placeholder of its type. Every pseudonym made is remembered, and any later string equal
/// to its original (in an action or in the state, under a rule or not) is replaced by it:
/// equal in, equal out, wherever a reducer moves a value.
struct Redactor {
  /// A rule's path, split into components.
  private struct Pattern {
    enum Component: Equatable {
      case key(String)
      /// `*`: one key or array element.
      case any
      /// `**`: any number of components.
      case anyDepth
    }
    let components: [Component]
    let rule: RedactionPolicy.Rule

    init(_ path: String, _ rule: RedactionPolicy.Rule) {
      components = path.split(separator: ".").map {
        $0 == "*" ? .any : $0 == "**" ? .anyDepth : .key(String($0))
      }
      self.rule = rule
    }

    /// Whether the pattern matches `path` whole.
    func matches(_ path: ArraySlice<PathComponent>) -> Bool {
      Self.match(components[...], path)
    }

    private static func match(_ pattern: ArraySlice<Component>, _ path: ArraySlice<PathComponent>)
      -> Bool
    {
      guard let first = pattern.first else { return path.isEmpty }
      switch first {
      case .anyDepth:
        // Zero or more components.
        var rest = path
        while true {
          if match(pattern.dropFirst(), rest) { return true }
          guard !rest.isEmpty else { return false }
          rest = rest.dropFirst()
        }
      case .any:
        return !path.isEmpty && match(pattern.dropFirst(), path.dropFirst())
      case .key(let name):
        guard case .key(let key)? = path.first, key == name else { return false }
        return match(pattern.dropFirst(), path.dropFirst())
      }
    }
  }

  /// A step into an encoded value: a map's key, or an array's element.
  enum PathComponent: Equatable {
    case key(String)
    case element
  }

  /// What a rewrite is for.
  private enum Mode {
    case action
    /// The initial state: its rules pseudonymize what the state holds before any action.
    case initialState
    /// A later state: only the pseudonyms already made replace their originals.
    case state
  }

  /// The error for what cannot be redacted safely.
  struct Failure: Error {
    let message: String
  }

  private let key: SymmetricKey
  private let actionRules: [Pattern]
  private let stateRules: [Pattern]
  /// Every original value pseudonymized so far, with its pseudonym.
  private var pseudonyms: [String: String] = [:]

  /// Creates a redactor for `policy`, keyed with `key`.
  init(policy: RedactionPolicy, key: RedactionKey) {
    self.key = SymmetricKey(data: key.bytes)
    // The longest (most specific) paths first: the first that matches decides.
    func compile(_ rules: [String: RedactionPolicy.Rule]) -> [Pattern] {
      rules.sorted { ($0.key.count, $0.key) > ($1.key.count, $1.key) }.map(Pattern.init)
    }
    actionRules = compile(policy.actions)
    stateRules = compile(policy.state)
  }

  /// The action, redacted.
  mutating func redactAction(_ encoded: UnsafeRawBufferPointer) throws(Failure) -> [UInt8] {
    try rewrite(encoded, mode: .action)
  }

  /// The state the recording starts from, redacted by the state rules.
  mutating func redactInitialState(_ encoded: [UInt8]) throws(Failure) -> [UInt8] {
    try encoded.withBytes { bytes throws(Failure) in try rewrite(bytes, mode: .initialState) }
  }

  /// A later state, with every value pseudonymized so far replaced by its pseudonym.
  mutating func redactState(_ encoded: [UInt8]) throws(Failure) -> [UInt8] {
    // Nothing to replace yet: the bytes as they are.
    guard !pseudonyms.isEmpty else { return encoded }
    return try encoded.withBytes { bytes throws(Failure) in try rewrite(bytes, mode: .state) }
  }

  private mutating func rewrite(_ bytes: UnsafeRawBufferPointer, mode: Mode) throws(Failure)
    -> [UInt8]
  {
    var cursor = RecordCBOR.Cursor(bytes)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var path: [PathComponent] = []
    do {
      try rewriteItem(&cursor, path: &path, mode: mode, rule: nil, into: &output)
    } catch let error as RecordCBOR.CursorError {
      throw Failure(message: "offset \(error.offset): \(error.reason)")
    } catch let error as Failure {
      throw error
    } catch {
      throw Failure(message: "\(error)")
    }
    return output
  }

  /// The rule for the value at `path`: the rule of the first pattern that matches it, or the
  /// rule the enclosing value inherited.
  private func rule(at path: [PathComponent], mode: Mode, inherited: RedactionPolicy.Rule?)
    -> RedactionPolicy.Rule?
  {
    let rules: [Pattern]
    switch mode {
    case .action: rules = actionRules
    case .initialState: rules = stateRules
    case .state: return nil
    }
    return rules.first { $0.matches(path[...]) }?.rule ?? inherited
  }

  private mutating func rewriteItem(
    _ cursor: inout RecordCBOR.Cursor, path: inout [PathComponent], mode: Mode,
    rule inherited: RedactionPolicy.Rule?, into output: inout [UInt8]
  ) throws {
    let start = cursor.offset
    let head = try cursor.readHead()
    guard head.info != 31 else {
      throw Failure(message: "offset \(start): an indefinite length cannot be redacted")
    }
    let rule = rule(at: path, mode: mode, inherited: inherited)
    switch head.major {
    case 3:
      let end = cursor.offset + Int(head.argument)
      guard head.argument <= UInt64(cursor.bytes.count - cursor.offset) else {
        throw Failure(message: "offset \(start): a string runs past the end")
      }
      let text = String(
        decoding: UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.offset..<end]), as: UTF8.self
      )
      cursor.offset = end
      let written: String
      switch rule {
      case .pseudonymize?: written = pseudonym(of: text, keeping: 0)
      case .pseudonymizeKeepingPrefix(let count)?: written = pseudonym(of: text, keeping: count)
      case .drop?: written = ""
      case .keep?, nil: written = pseudonyms[text] ?? text
      }
      RecordCBOR.appendHead(major: 3, UInt64(written.utf8.count), to: &output)
      output.append(contentsOf: written.utf8)
    case 4:
      output.append(contentsOf: cursor.bytes[start..<cursor.offset])
      path.append(.element)
      for _ in 0..<head.argument {
        try rewriteItem(&cursor, path: &path, mode: mode, rule: rule, into: &output)
      }
      path.removeLast()
    case 5:
      output.append(contentsOf: cursor.bytes[start..<cursor.offset])
      for _ in 0..<head.argument {
        // Keys are names, never personal data: copied as they are.
        let keyRange = try cursor.skipItem()
        output.append(contentsOf: cursor.bytes[keyRange])
        var key = RecordCBOR.Cursor(cursor.bytes, offset: keyRange.lowerBound)
        let keyHead = try key.readHead()
        let name =
          keyHead.major == 3
          ? String(
            decoding: UnsafeRawBufferPointer(
              rebasing: cursor.bytes[key.offset..<keyRange.upperBound]), as: UTF8.self)
          : ""
        path.append(.key(name))
        try rewriteItem(&cursor, path: &path, mode: mode, rule: rule, into: &output)
        path.removeLast()
      }
    case 6:
      output.append(contentsOf: cursor.bytes[start..<cursor.offset])
      try rewriteItem(&cursor, path: &path, mode: mode, rule: rule, into: &output)
    default:
      // Numbers, bytes, booleans, null: kept, or replaced by a placeholder of their type.
      cursor.offset = start
      let range = try cursor.skipItem()
      if case .drop? = rule {
        output.append(contentsOf: Self.placeholder(for: head.major, info: head.info))
      } else {
        output.append(contentsOf: cursor.bytes[range])
      }
    }
  }

  /// A value of the same CBOR type as the one dropped: 0, an empty byte string, `false`,
  /// or 0.0 of the same width.
  private static func placeholder(for major: UInt8, info: UInt8) -> [UInt8] {
    switch (major, info) {
    case (0, _), (1, _): [0x00]
    case (2, _): [0x40]
    case (7, 20), (7, 21): [0xF4]
    case (7, 25): [0xF9, 0, 0]
    case (7, 26): [0xFA, 0, 0, 0, 0]
    case (7, 27): [0xFB, 0, 0, 0, 0, 0, 0, 0, 0]
    default: [0xF6]
    }
  }

  /// The keyed pseudonym of `text`, the same every time: each letter after the first
  /// `keeping` characters becomes an ASCII letter of the same case, each digit an ASCII
  /// digit, chosen by HMAC-SHA256 of the text under the key; spaces, punctuation and other
  /// symbols stay, so the value keeps its shape.
  private mutating func pseudonym(of text: String, keeping: Int) -> String {
    if let known = pseudonyms[text] { return known }
    var stream: [UInt8] = []
    var block: UInt8 = 0
    var position = 0
    func nextByte() -> UInt8 {
      if position == stream.count {
        var message = Array(text.utf8)
        message.append(block)
        block &+= 1
        stream += Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
      }
      defer { position += 1 }
      return stream[position]
    }
    var result = String.UnicodeScalarView()
    for (index, scalar) in text.unicodeScalars.enumerated() {
      guard index >= keeping else {
        result.append(scalar)
        continue
      }
      let properties = scalar.properties
      if properties.isAlphabetic {
        let base: UInt32 = properties.isUppercase ? 0x41 : 0x61
        result.append(Unicode.Scalar(base + UInt32(nextByte() % 26))!)
      } else if properties.numericType != nil {
        result.append(Unicode.Scalar(0x30 + UInt32(nextByte() % 10))!)
      } else {
        result.append(scalar)
      }
    }
    let pseudonym = String(result)
    pseudonyms[text] = pseudonym
    return pseudonym
  }
}
