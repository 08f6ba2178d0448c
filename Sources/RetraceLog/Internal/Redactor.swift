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
      /// A key, as its UTF-8 bytes.
      case key([UInt8])
      /// `*`: one key or array element.
      case any
      /// `**`: any number of components.
      case anyDepth
    }
    let components: [Component]
    let rule: RedactionPolicy.Rule

    init(_ path: String, _ rule: RedactionPolicy.Rule) {
      components = path.split(separator: ".").map {
        $0 == "*" ? .any : $0 == "**" ? .anyDepth : .key(Array($0.utf8))
      }
      self.rule = rule
    }

    /// Whether the pattern matches `path` whole; its keys are ranges of `bytes`.
    func matches(_ path: ArraySlice<PathComponent>, in bytes: UnsafeRawBufferPointer) -> Bool {
      Self.match(components[...], path, bytes)
    }

    private static func match(
      _ pattern: ArraySlice<Component>, _ path: ArraySlice<PathComponent>,
      _ bytes: UnsafeRawBufferPointer
    ) -> Bool {
      guard let first = pattern.first else { return path.isEmpty }
      switch first {
      case .anyDepth:
        // Zero or more components.
        var rest = path
        while true {
          if match(pattern.dropFirst(), rest, bytes) { return true }
          guard !rest.isEmpty else { return false }
          rest = rest.dropFirst()
        }
      case .any:
        return !path.isEmpty && match(pattern.dropFirst(), path.dropFirst(), bytes)
      case .key(let name):
        guard case .key(let range)? = path.first, bytes[range].elementsEqual(name) else {
          return false
        }
        return match(pattern.dropFirst(), path.dropFirst(), bytes)
      }
    }
  }

  /// A step into an encoded value: a map's text key (its bytes' range in the value being
  /// rewritten), or an array's element.
  enum PathComponent: Equatable {
    case key(Range<Int>)
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
  /// The hashes of ``pseudonyms``' originals, which tell cheaply that a string is not one.
  private var originalHashes: Set<UInt64> = []
  /// Reused between calls, so that a rewrite allocates only its strings.
  private var output: [UInt8] = []
  private var path: [PathComponent] = []
  /// The path being rewritten, as bytes (a key: 1, its length and its bytes; an element:
  /// 2), the key of ``matchedRules``.
  private var pathBytes: [UInt8] = []
  /// Which rule's pattern matched each path seen, by mode: the same few paths recur in every
  /// action and state, so each is matched against the patterns once. Bounded, since a
  /// dictionary's keys are part of the path.
  private var matchedRules: [[PathKey: RedactionPolicy.Rule?]] = [[:], [:]]
  private static let matchedRulesLimit = 4_096

  /// A path's bytes as a dictionary key, hashed in one call rather than byte by byte.
  private struct PathKey: Hashable {
    let bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
      bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
  }

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

  /// Calls `body` with the action, redacted.
  mutating func withRedactedAction<R, E: Error>(
    _ encoded: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(E) -> R
  ) throws(Failure) -> Result<R, E> {
    try rewriteIntoOutput(encoded, mode: .action)
    return output.withUnsafeBytes { bytes in Result { () throws(E) in try body(bytes) } }
  }

  /// The action, redacted.
  mutating func redactAction(_ encoded: UnsafeRawBufferPointer) throws(Failure) -> [UInt8] {
    try rewrite(encoded, mode: .action)
  }

  /// The state the recording starts from, redacted by the state rules.
  mutating func redactInitialState(_ encoded: [UInt8]) throws(Failure) -> [UInt8] {
    try encoded.withBytes { bytes throws(Failure) in
      // Twice: the first pass makes the pseudonyms of every value a rule names, so that the
      // second also replaces a copy of one that comes before it, in a field no rule names.
      _ = try rewrite(bytes, mode: .initialState)
      return try rewrite(bytes, mode: .initialState)
    }
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
    try rewriteIntoOutput(bytes, mode: mode)
    return output
  }

  /// Rewrites `bytes` into ``output``.
  private mutating func rewriteIntoOutput(_ bytes: UnsafeRawBufferPointer, mode: Mode)
    throws(Failure)
  {
    var cursor = RecordCBOR.Cursor(bytes)
    var output = self.output
    var path = self.path
    self.output = []
    output.removeAll(keepingCapacity: true)
    path.removeAll(keepingCapacity: true)
    pathBytes.removeAll(keepingCapacity: true)
    defer {
      self.output = output
      self.path = path
    }
    do {
      try rewriteItem(&cursor, path: &path, mode: mode, rule: nil, into: &output)
    } catch let error as RecordCBOR.CursorError {
      throw Failure(message: "offset \(error.offset): \(error.reason)")
    } catch let error as Failure {
      throw error
    } catch {
      throw Failure(message: "\(error)")
    }
  }

  /// The rule for the value at `path`: the rule of the first pattern that matches it, or the
  /// rule the enclosing value inherited.
  private mutating func rule(
    at path: [PathComponent], in bytes: UnsafeRawBufferPointer, mode: Mode,
    inherited: RedactionPolicy.Rule?
  ) -> RedactionPolicy.Rule? {
    let rules: [Pattern]
    let cache: Int
    switch mode {
    case .action: (rules, cache) = (actionRules, 0)
    case .initialState: (rules, cache) = (stateRules, 1)
    case .state: return nil
    }
    let key = PathKey(bytes: pathBytes)
    if let matched = matchedRules[cache][key] { return matched ?? inherited }
    let matched = rules.first { $0.matches(path[...], in: bytes) }?.rule
    if matchedRules[cache].count < Self.matchedRulesLimit {
      matchedRules[cache][key] = .some(matched)
    }
    return matched ?? inherited
  }

  /// Steps into `component` of the value being rewritten.
  private mutating func push(
    _ component: PathComponent, in bytes: UnsafeRawBufferPointer,
    onto path: inout [PathComponent]
  ) -> Int {
    let mark = pathBytes.count
    path.append(component)
    switch component {
    case .key(let range):
      // 1, the key's length, and its bytes: no two paths give the same bytes.
      pathBytes.append(1)
      withUnsafeBytes(of: UInt32(range.count).littleEndian) { pathBytes.append(contentsOf: $0) }
      pathBytes.append(contentsOf: bytes[range])
    case .element:
      pathBytes.append(2)
    }
    return mark
  }

  /// Steps back out of the component ``push(_:in:onto:)`` stepped into.
  private mutating func pop(to mark: Int, from path: inout [PathComponent]) {
    path.removeLast()
    pathBytes.removeSubrange(mark...)
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
    let rule = rule(at: path, in: cursor.bytes, mode: mode, inherited: inherited)
    switch head.major {
    case 3:
      guard head.argument <= UInt64(cursor.bytes.count - cursor.offset) else {
        throw Failure(message: "offset \(start): a string runs past the end")
      }
      let end = cursor.offset + Int(head.argument)
      let raw = UnsafeRawBufferPointer(rebasing: cursor.bytes[cursor.offset..<end])
      cursor.offset = end
      // No rule, and (in an action, or for a value never pseudonymized) nothing to replace:
      // the bytes as they are, without making a string of them.
      if rule == nil && (mode == .action || !mayBePseudonymized(raw)) {
        output.append(contentsOf: cursor.bytes[start..<end])
        break
      }
      let text = String(decoding: raw, as: UTF8.self)
      let written: String
      switch rule {
      case .pseudonymize?: written = pseudonym(of: text, keeping: 0)
      case .pseudonymizeKeepingPrefix(let count)?: written = pseudonym(of: text, keeping: count)
      case .drop?: written = ""
      case .keep?: written = text
      case nil:
        // In a state, a value the actions brought in, moved by a reducer to a field no rule
        // names, is replaced as the replay will have it. In an action, only the rules decide
        // (above): a field no rule names is written as it is, so that an enum's name, an
        // identifier or a field name equal to someone's pseudonymized value stays what it is.
        written = pseudonyms[text] ?? text
      }
      RecordCBOR.appendHead(major: 3, UInt64(written.utf8.count), to: &output)
      output.append(contentsOf: written.utf8)
    case 4:
      output.append(contentsOf: cursor.bytes[start..<cursor.offset])
      let mark = push(.element, in: cursor.bytes, onto: &path)
      for _ in 0..<head.argument {
        try rewriteItem(&cursor, path: &path, mode: mode, rule: rule, into: &output)
      }
      pop(to: mark, from: &path)
    case 5:
      if mode != .action, try keysChange(in: cursor, count: head.argument) {
        try rewriteMapWithNewKeys(
          &cursor, head: start..<cursor.offset, count: head.argument, path: &path, mode: mode,
          rule: rule, into: &output)
        break
      }
      output.append(contentsOf: cursor.bytes[start..<cursor.offset])
      for _ in 0..<head.argument {
        // An action's keys are names, never personal data: copied as they are. So are a
        // state's, unless they are personal data too (see `keysChange`).
        let keyRange = try cursor.skipItem()
        output.append(contentsOf: cursor.bytes[keyRange])
        var key = RecordCBOR.Cursor(cursor.bytes, offset: keyRange.lowerBound)
        let keyHead = try key.readHead()
        let mark = push(
          keyHead.major == 3 ? .key(key.offset..<keyRange.upperBound) : .element, in: cursor.bytes,
          onto: &path)
        try rewriteItem(&cursor, path: &path, mode: mode, rule: rule, into: &output)
        pop(to: mark, from: &path)
      }
    case 6:
      output.append(contentsOf: cursor.bytes[start..<cursor.offset])
      try rewriteItem(&cursor, path: &path, mode: mode, rule: rule, into: &output)
    default:
      // Numbers, bytes, booleans, null: kept, or replaced by a placeholder of their type,
      // under `drop` and under `pseudonymize` too, since they have no pseudonym that keeps
      // their shape: a rule never lets a value through as it is.
      cursor.offset = start
      let range = try cursor.skipItem()
      switch rule {
      case .drop?, .pseudonymize?, .pseudonymizeKeepingPrefix?:
        output.append(contentsOf: Self.placeholder(for: head.major, info: head.info))
      case .keep?, nil:
        output.append(contentsOf: cursor.bytes[range])
      }
    }
  }

  /// The text of the key at `range`, if it is a text string.
  private static func keyText(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) throws
    -> (text: String, range: Range<Int>)?
  {
    var key = RecordCBOR.Cursor(bytes, offset: range.lowerBound)
    let head = try key.readHead()
    guard head.major == 3, head.info != 31 else { return nil }
    let text = String(
      decoding: UnsafeRawBufferPointer(rebasing: bytes[key.offset..<range.upperBound]),
      as: UTF8.self)
    return (text, key.offset..<range.upperBound)
  }

  /// Whether any text key of the map whose `count` entries start at `cursor` is a value
  /// pseudonymized before (a dictionary keyed by personal data, such as accounts by IBAN):
  /// a look ahead that leaves `cursor` where it is. Rules never name keys: a struct's keys
  /// are its field names, which a pseudonym would make undecodable.
  private func keysChange(in cursor: RecordCBOR.Cursor, count: UInt64) throws -> Bool {
    guard !pseudonyms.isEmpty else { return false }
    var ahead = cursor
    for _ in 0..<count {
      let keyRange = try ahead.skipItem()
      if let key = try Self.keyText(ahead.bytes, keyRange),
        mayBePseudonymized(UnsafeRawBufferPointer(rebasing: ahead.bytes[key.range])),
        pseudonyms[key.text] != nil
      {
        return true
      }
      _ = try ahead.skipItem()
    }
    return false
  }

  /// Whether `text` (UTF-8) may be a value pseudonymized before: `false` for nearly every
  /// string that is not, from a set of hashes of the originals, without making a string.
  private func mayBePseudonymized(_ text: UnsafeRawBufferPointer) -> Bool {
    !pseudonyms.isEmpty && originalHashes.contains(XXH64.hash(text))
  }

  /// Rewrites a state's map whose keys change, and sorts its entries by their encoded keys
  /// again, as the deterministic encoding of the state the redacted actions leave does
  /// (RFC 8949 §4.2.1).
  private mutating func rewriteMapWithNewKeys(
    _ cursor: inout RecordCBOR.Cursor, head: Range<Int>, count: UInt64,
    path: inout [PathComponent], mode: Mode, rule: RedactionPolicy.Rule?,
    into output: inout [UInt8]
  ) throws {
    var entries: [(key: [UInt8], value: [UInt8])] = []
    for _ in 0..<count {
      let keyRange = try cursor.skipItem()
      var key = Array(cursor.bytes[keyRange])
      var component = PathComponent.element
      if let original = try Self.keyText(cursor.bytes, keyRange) {
        component = .key(original.range)
        let replaced = pseudonyms[original.text] ?? original.text
        if replaced != original.text {
          key.removeAll()
          RecordCBOR.appendHead(major: 3, UInt64(replaced.utf8.count), to: &key)
          key.append(contentsOf: replaced.utf8)
        }
      }
      var value: [UInt8] = []
      let mark = push(component, in: cursor.bytes, onto: &path)
      try rewriteItem(&cursor, path: &path, mode: mode, rule: rule, into: &value)
      pop(to: mark, from: &path)
      entries.append((key, value))
    }
    entries.sort { $0.key.lexicographicallyPrecedes($1.key) }
    output.append(contentsOf: cursor.bytes[head])
    for entry in entries {
      output.append(contentsOf: entry.key)
      output.append(contentsOf: entry.value)
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
    var utf8 = text
    originalHashes.insert(utf8.withUTF8 { XXH64.hash(UnsafeRawBufferPointer($0)) })
    return pseudonym
  }
}
