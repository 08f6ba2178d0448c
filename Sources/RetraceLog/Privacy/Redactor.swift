import Crypto
import Retrace

/// Applies a domain's ``RedactionPolicy`` to encoded actions and states, on the recorder's
/// writer thread, before a byte of them is written.
///
/// It rewrites the CBOR item by item: heads, keys and every value no rule names are copied
/// as they are. A text value under a `pseudonymize` rule becomes its keyed pseudonym (the
/// same value, the same pseudonym, in every action and in the starting state); a value under
/// `drop`, a placeholder of its type. Nothing else changes: a field name, an enum's case or
/// a kept value that happens to equal a redacted one stays what it is. The states hashed
/// after the start are not rewritten at all: the recorder replays the redacted actions
/// itself (``RedactedReplay``), so its hashes are of the states every later replay gives
/// (`docs/PRIVACY.md`).
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

  /// What a rewrite is for: which rules apply.
  private enum Mode {
    case action
    /// The initial state: the state rules pseudonymize what it holds before any action.
    case initialState
  }

  /// The error for what cannot be redacted safely.
  struct Failure: Error {
    let message: String
  }

  private let key: SymmetricKey
  private let actionRules: [Pattern]
  private let stateRules: [Pattern]
  /// Pseudonyms made recently, by their originals: the same few values recur in a session,
  /// and an HMAC per value is the costly part. Emptied when it reaches
  /// ``pseudonymCacheLimit``, so that a long session does not grow it without bound.
  private var pseudonyms: [PseudonymKey: String] = [:]
  private struct PseudonymKey: Hashable {
    let text: String
    let keeping: Int
  }
  private static let pseudonymCacheLimit = 4_096
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
    try encoded.withBytes { bytes throws(Failure) in try rewrite(bytes, mode: .initialState) }
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
      // No rule: the bytes as they are, without making a string of them.
      guard let rule, rule != .keep else {
        output.append(contentsOf: cursor.bytes[start..<end])
        break
      }
      let text = String(decoding: raw, as: UTF8.self)
      let written: String
      switch rule {
      case .pseudonymize: written = pseudonym(of: text, keeping: 0)
      case .pseudonymizeKeepingPrefix(let count): written = pseudonym(of: text, keeping: count)
      case .drop: written = ""
      case .keep: written = text
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
      output.append(contentsOf: cursor.bytes[start..<cursor.offset])
      for _ in 0..<head.argument {
        // Keys are copied as they are: rules name values, never keys (a struct's keys are
        // its field names).
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
    if let known = pseudonyms[PseudonymKey(text: text, keeping: keeping)] { return known }
    // The stream of bytes that chooses each letter and digit: the first 32 are HMAC of the
    // text and a 0 byte; each next 32, HMAC of the first 32 and the block's number, so that
    // a long text costs one HMAC of itself, not one per 32 characters (which made
    // pseudonymizing a text quadratic in its length).
    var stream: [UInt8] = []
    var first: [UInt8] = []
    var block: UInt64 = 0
    var position = 0
    func nextByte() -> UInt8 {
      if position == stream.count {
        if block == 0 {
          var message = Array(text.utf8)
          message.append(0)
          first = Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
          stream = first
        } else {
          var message = first
          withUnsafeBytes(of: block.bigEndian) { message.append(contentsOf: $0) }
          stream = Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        }
        block += 1
        position = 0
      }
      defer { position += 1 }
      return stream[position]
    }
    // ASCII text (the common case) byte by byte: the same answer as the scalars' properties
    // give, without them.
    var utf8 = text
    if let ascii = utf8.withUTF8({ bytes -> String? in
      guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
      return String(unsafeUninitializedCapacity: bytes.count) { output in
        for (index, byte) in bytes.enumerated() {
          switch byte {
          case _ where index < keeping: output[index] = byte
          case 0x41...0x5A: output[index] = 0x41 + nextByte() % 26
          case 0x61...0x7A: output[index] = 0x61 + nextByte() % 26
          case 0x30...0x39: output[index] = 0x30 + nextByte() % 10
          default: output[index] = byte
          }
        }
        return bytes.count
      }
    }) {
      return remember(ascii, for: text, keeping: keeping)
    }
    var result = String.UnicodeScalarView()
    for (index, scalar) in text.unicodeScalars.enumerated() {
      guard index >= keeping else {
        result.append(scalar)
        continue
      }
      let properties = scalar.properties
      let isLetter = properties.isAlphabetic
      let isUpper = isLetter && properties.isUppercase
      let isDigit = !isLetter && properties.numericType != nil
      if isLetter {
        let base: UInt32 = isUpper ? 0x41 : 0x61
        result.append(Unicode.Scalar(base + UInt32(nextByte() % 26))!)
      } else if isDigit {
        result.append(Unicode.Scalar(0x30 + UInt32(nextByte() % 10))!)
      } else {
        result.append(scalar)
      }
    }
    return remember(String(result), for: text, keeping: keeping)
  }

  /// Keeps `pseudonym` as the one of `text` in the cache, and returns it.
  private mutating func remember(_ pseudonym: String, for text: String, keeping: Int) -> String {
    if pseudonyms.count >= Self.pseudonymCacheLimit { pseudonyms.removeAll(keepingCapacity: true) }
    pseudonyms[PseudonymKey(text: text, keeping: keeping)] = pseudonym
    return pseudonym
  }
}
