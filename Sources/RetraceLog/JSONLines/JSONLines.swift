import Foundation
import Retrace

/// Sessions as JSON Lines: the open, line-oriented form of a trace that `retrace export`
/// writes and `retrace import` reads.
///
/// The first line is a header object that names the domain; every other line is one action:
///
/// ```
/// {"format":"retrace-jsonl","version":1,"domain":"counter","actionSchemaVersion":1,"sessionID":"s1","startTime":1763771000,"producer":"Retrace 0.1.0","firstSequence":0}
/// {"seq":1,"time":1763771000,"action":{"increment":{}}}
/// {"seq":2,"time":1763771001,"action":{"decrement":{}}}
/// ```
///
/// `seq` counts from `firstSequence + 1` without gaps; `time` is in seconds since 1970;
/// `action` is the action as Swift's synthesized `Codable` encodes it, with sorted keys. A header whose
/// session does not start from the domain's initial state also holds `initialState`; one
/// whose app gave facts about itself holds them as `app` (with `redaction` among them for a
/// redacted recording), and one exported from an encrypted trace holds
/// `"encryption":{"keyID":…}` (the lines themselves are in clear). Blank
/// lines are ignored; any other line that is not a valid action is an error that names its
/// line number.
public enum JSONLines {
  /// The value of the header's `format` key.
  public static let format = "retrace-jsonl"
  /// The format version this library writes and the newest it reads.
  public static let version = 1

  /// The header line's fields.
  public struct Header: Codable, Equatable, Sendable {
    /// Always ``JSONLines/format``.
    public var format: String
    /// The format version.
    public var version: Int
    /// The domain's name.
    public var domain: String
    /// The version of the action encoding.
    public var actionSchemaVersion: Int
    /// The session's identifier.
    public var sessionID: String
    /// When the session started, in seconds since 1970.
    public var startTime: Double
    /// The library that recorded the session.
    public var producer: String
    /// The sequence number of the last action before the first line's.
    public var firstSequence: UInt64
    /// Facts about the app that recorded the session (``SessionInfo/app``), when it gave any.
    public var app: [String: String]?
    /// The encryption of the trace the session was exported from, when it was encrypted: the
    /// lines themselves are in clear.
    public var encryption: Encryption?

    /// Whether the session never closed (it was exported from an unfinished trace, whose
    /// actions end where its recording stopped); `nil` or `false` for a closed one.
    public var unfinished: Bool?
    /// Of an unfinished session, how many actions came from its trace's journal.
    public var recoveredActions: Int?
    /// When the trace the session was exported from was damaged: what was wrong, and so
    /// why the lines end before the damage; `nil` for a trace read whole.
    public var damage: String?

    /// What the header says of the encryption of the trace a session was exported from.
    public struct Encryption: Codable, Equatable, Sendable {
      /// The ID of the public key the trace was encrypted to.
      public var keyID: String
    }

    /// The session facts the header holds.
    public var info: SessionInfo {
      SessionInfo(
        domain: domain, actionSchemaVersion: actionSchemaVersion, sessionID: sessionID,
        startTime: startTime, producer: producer, app: app ?? [:],
        encryptionKeyID: encryption?.keyID)
    }
  }

  // MARK: - Writing

  /// The header line of `session`, without its newline.
  ///
  /// - Parameters:
  ///   - session: The session.
  ///   - domain: Its domain (to tell whether the initial state must be written out).
  ///   - unfinishedRecoveredActions: When the session never closed (it was read from an
  ///     unfinished trace), how many of its actions came from the trace's journal: written
  ///     as `"unfinished":true` and `"recoveredActions"`; `nil` for a closed session.
  ///   - damage: When the trace the session was read from is damaged, what was wrong
  ///     (written as `"damage"`): the session is the part before the damage.
  /// - Returns: The line.
  /// - Throws: `EncodingError` when the initial state cannot be encoded; ``TraceError`` for a
  ///   session with time-travel jumps (``RecordedSession/jumps``), which JSON Lines cannot hold.
  public static func headerLine<D: Domain>(
    for session: RecordedSession<D>, domain: D, unfinishedRecoveredActions: Int? = nil,
    damage: String? = nil
  ) throws -> String {
    // JSON Lines are actions alone: the states a jump set would be lost, and the file would
    // replay to other states than the session showed.
    if let jump = session.jumps.first {
      throw TraceError(
        .outOfRange,
        "JSON Lines cannot hold the session's \(session.jumps.count) time-travel jump(s) (the first after action \(jump.sequence)), and without them they would replay to other states",
        sequence: jump.sequence)
    }
    let info = session.info
    var fields: [(String, JSONValue)] = [
      ("format", .string(format)),
      ("version", .int(Int64(version))),
      ("domain", .string(info.domain)),
      // The lines are written with today's action type, so they are in the current schema
      // whatever schema the session was recorded with.
      ("actionSchemaVersion", .int(Int64(domain.actionSchemaVersion))),
      ("sessionID", .string(info.sessionID)),
      ("startTime", .double(info.startTime)),
      ("producer", .string(info.producer)),
      ("firstSequence", .uint(session.startSequence)),
    ]
    // Only when there are any, so that the header of a session without them stays as it was.
    if !info.app.isEmpty {
      fields.append(("app", .object(info.app.sorted { $0.key < $1.key }.map { ($0, .string($1)) })))
    }
    if let keyID = info.encryptionKeyID {
      fields.append(("encryption", .object([("keyID", .string(keyID))])))
    }
    if let recovered = unfinishedRecoveredActions {
      fields.append(("unfinished", .bool(true)))
      fields.append(("recoveredActions", .int(Int64(recovered))))
    }
    if let damage {
      fields.append(("damage", .string(damage)))
    }
    if session.startSequence != 0 || session.initialState != domain.initialState {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      fields.append(
        (
          "initialState",
          .raw(String(decoding: try encoder.encode(session.initialState), as: UTF8.self))
        ))
    }
    return JSONValue.object(fields).text
  }

  /// A writer of action lines that reuses one encoder.
  ///
  /// ```swift
  /// var writer = JSONLines.ActionWriter<CounterAction>()
  /// print(try writer.line(for: TimedAction(sequence: 1, time: 1763771000.5, action: .increment)))
  /// ```
  ///
  /// ```
  /// {"seq":1,"time":1763771000.5,"action":{"increment":{}}}
  /// ```
  public struct ActionWriter<Action: Encodable> {
    private let encoder: JSONEncoder

    /// Creates a writer.
    public init() {
      encoder = JSONEncoder()
      // Sorted keys: the same action always gives the same line.
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// One action's line, without its newline.
    ///
    /// - Parameter action: The recorded action.
    /// - Returns: `{"seq":N,"time":T,"action":{...}}`.
    /// - Throws: `EncodingError` when the action cannot be encoded.
    public func line(for action: TimedAction<Action>) throws -> String {
      let json = try encoder.encode(action.action)
      return #"{"seq":\#(action.sequence),"time":\#(jsonNumber(action.time)),"action":"#
        + String(decoding: json, as: UTF8.self) + "}"
    }

    /// The action alone, as JSON.
    ///
    /// - Parameter action: The action.
    /// - Returns: Its JSON, such as `{"increment":{}}`.
    /// - Throws: `EncodingError` when the action cannot be encoded.
    public func json(for action: Action) throws -> String {
      String(decoding: try encoder.encode(action), as: UTF8.self)
    }

    /// How the commands show an action in text: its case path (`actionCasePath(of:)`), then
    /// the associated values of its innermost case (``payloadText(for:)``):
    /// `addTransaction {"amount":-2900,…}`, `setGender "M"`, `reset`,
    /// `detail.rename "Tea"`. JSON output keeps the whole action as Swift's `JSONEncoder`
    /// writes it.
    ///
    /// - Parameter action: The action.
    /// - Returns: The text; the JSON of the whole action if its encoding is not a case.
    public func text(for action: Action) -> String {
      let name = actionCasePath(of: action)
      guard let payload = try? payloadText(for: action) else { return name }
      return payload.isEmpty ? name : name + " " + payload
    }

    /// What `log` prints after an action's case path: the associated values of its innermost
    /// case (`innermostAction(of:)`: those of `.rename("Tea")` for `.detail(.rename("Tea"))`)
    /// as JSON, with unlabelled ones as themselves rather than under Swift's `_0`, `_1` keys;
    /// nothing for a case without any.
    ///
    /// ```
    /// addTransaction(iban: "NL…", amount: -2900, …)  →  {"amount":-2900,"iban":"NL…",…}
    /// setGender("M")                                  →  "M"
    /// move(1, 2)                                      →  [1,2]
    /// reset                                           →  (nothing)
    /// ```
    ///
    /// - Parameter action: The action.
    /// - Returns: The payload's text; empty for a case without associated values.
    /// - Throws: `EncodingError` or `CBORError` when the action cannot be encoded.
    public func payloadText(for action: Action) throws -> String {
      let value = try CBORValue(decoding: try CBOREncoder().encode(innermostAction(of: action)))
      guard let payload = value.casePayload else { return value.jsonText(sortingKeys: true) }
      guard case .map(let pairs) = payload, !pairs.isEmpty else { return "" }
      let labels = pairs.map { $0.key.stringValue ?? "" }
      let unlabelled = (0..<labels.count).map { "_\($0)" }
      guard labels == unlabelled else { return payload.jsonText(sortingKeys: true) }
      return labels.count == 1
        ? pairs[0].value.jsonText(sortingKeys: true)
        : CBORValue.array(pairs.map(\.value)).jsonText(sortingKeys: true)
    }
  }

  // MARK: - Reading

  /// Reads the header of a JSON Lines session.
  ///
  /// - Parameters:
  ///   - data: The file's contents (only the first line is read).
  ///   - path: The file's name, for errors.
  /// - Returns: The header.
  /// - Throws: ``TraceError``: ``TraceError/Code/notATrace`` when the first line is
  ///   not a header, ``TraceError/Code/unsupportedVersion`` for a newer version,
  ///   ``TraceError/Code/corrupted`` for impossible values, ``TraceError/Code/tooLarge``
  ///   for session facts (a session ID, app facts) larger than a trace's header may hold;
  ///   the last three name line 1.
  public static func readHeader(from data: Data, path: String? = nil) throws(TraceError)
    -> Header
  {
    var lines = LineIterator(data)
    guard let (number, line) = lines.next() else {
      throw TraceError(
        .notATrace, "empty file; expected a retrace JSON Lines header", path: path)
    }
    return try header(from: line, number: number, path: path)
  }

  /// Reads a whole JSON Lines session of `domain`.
  ///
  /// ```swift
  /// let session = try JSONLines.readSession(from: data, domain: counterDomain, path: "s.jsonl")
  /// print(session.actions.count)
  /// ```
  ///
  /// ```
  /// 2
  /// ```
  ///
  /// - Parameters:
  ///   - data: The file's contents.
  ///   - domain: The domain the header must name.
  ///   - path: The file's name, for errors.
  /// - Returns: The session, without checkpoints or snapshots.
  /// - Throws: ``TraceError`` naming the line: ``TraceError/Code/corrupted`` for a line
  ///   that is not a valid record or is out of sequence, ``TraceError/Code/undecodable``
  ///   for an action the domain's type cannot decode (such as an unknown case),
  ///   ``TraceError/Code/wrongDomain`` when the header names another domain.
  public static func readSession<D: Domain>(
    from data: Data, domain: D, path: String? = nil
  ) throws(TraceError) -> RecordedSession<D> {
    let (session, damage) = try readIntactPrefix(from: data, domain: domain, path: path)
    if let damage { throw damage.error }
    return session
  }

  /// Where and how a JSON Lines session is damaged: what ``readIntactPrefix(from:domain:path:)``
  /// reports besides the intact actions.
  public struct Damage: Sendable {
    /// The error for the first bad line.
    public var error: TraceError
    /// Whether the bad line is the file's last and has no newline: a write that stopped
    /// half-way, rather than damage in the middle.
    public var isTruncation: Bool
  }

  /// Reads the actions of a JSON Lines session up to the first bad line, and reports that
  /// line: what `retrace info` and `retrace verify` need to describe a damaged file.
  ///
  /// - Parameters:
  ///   - data: The file's contents.
  ///   - domain: The domain the header must name.
  ///   - path: The file's name, for errors.
  /// - Returns: The session with every action before the first bad line, and the damage,
  ///   or `nil` when every line is good.
  /// - Throws: ``TraceError`` when the header itself is missing or bad, or names another
  ///   domain.
  public static func readIntactPrefix<D: Domain>(
    from data: Data, domain: D, path: String? = nil
  ) throws(TraceError) -> (session: RecordedSession<D>, damage: Damage?) {
    var lines = LineIterator(data)
    guard let (headerNumber, headerLine) = lines.next() else {
      throw TraceError(
        .notATrace, "empty file; expected a retrace JSON Lines header", path: path)
    }
    let header = try header(from: headerLine, number: headerNumber, path: path)
    try check(header, number: headerNumber, readableAs: domain, path: path)
    let initialState = try initialState(
      in: headerLine, number: headerNumber, domain: domain, path: path)
    var reader = ActionLines<D>(header: header, path: path)
    // JSONDecoder's cost is mostly per call, so lines are decoded a batch at a time, as one
    // JSON array; a batch that does not decode is decoded again line by line, to find and
    // name the first bad line.
    var damage: Damage?
    var batch: [(number: Int, line: Data)] = []
    var exhausted = false
    while damage == nil && !exhausted {
      batch.removeAll(keepingCapacity: true)
      while batch.count < 1_024, let (number, line) = lines.next() { batch.append((number, line)) }
      exhausted = batch.count < 1_024
      guard !batch.isEmpty else { break }
      switch reader.acceptBatch(batch) {
      case .accepted: break
      case .stopped(let error): damage = Damage(error: error, isTruncation: false)
      case .undecodable:
        if let (index, error) = reader.firstBadLine(in: batch, domain: domain) {
          let isLast = index == batch.count - 1 && lines.isAtEnd
          damage = Damage(error: error, isTruncation: isLast && data.last != 0x0A)
        }
      }
    }
    let session = RecordedSession<D>(
      info: header.info, startSequence: header.firstSequence, initialState: initialState,
      actions: reader.actions)
    return (session, damage)
  }

  /// Throws unless a session with `header` can be read as one of `domain`.
  private static func check<D: Domain>(
    _ header: Header, number: Int, readableAs domain: D, path: String?
  ) throws(TraceError) {
    guard header.domain == domain.name else {
      throw TraceError(
        .wrongDomain, "the session is of domain '\(header.domain)', not '\(domain.name)'",
        path: path, line: number)
    }
    guard header.actionSchemaVersion <= domain.actionSchemaVersion else {
      throw TraceError(
        .unsupportedVersion,
        "actionSchemaVersion \(header.actionSchemaVersion) is newer than domain \(domain.name)'s (\(domain.actionSchemaVersion))",
        path: path, line: number)
    }
  }

  /// The header's `initialState`, or the domain's when it has none.
  private static func initialState<D: Domain>(
    in headerLine: Data, number: Int, domain: D, path: String?
  ) throws(TraceError) -> D.State {
    do {
      return try JSONDecoder().decode(InitialStateOnly<D.State>.self, from: headerLine)
        .initialState ?? domain.initialState
    } catch {
      throw TraceError(
        .undecodable,
        "the header's initialState is not a state of domain \(domain.name): \(Self.describe(error))",
        path: path, line: number, cause: error)
    }
  }

  /// The action lines read so far, each checked to follow the one before.
  private struct ActionLines<D: Domain> {
    let header: Header
    let path: String?
    let decoder = JSONDecoder()
    var actions: [TimedAction<D.Action>] = []
    var expected: UInt64
    /// What became of a batch decoded as a whole.
    enum BatchOutcome {
      /// Every line decoded and was taken.
      case accepted
      /// A line decoded but does not follow: reading stops there.
      case stopped(TraceError)
      /// The batch does not decode as one array: some line is bad.
      case undecodable
    }

    init(header: Header, path: String?) {
      self.header = header
      self.path = path
      self.expected = header.firstSequence + 1
    }

    /// Takes one decoded line; returns the error that stops reading, if any.
    mutating func accept(_ decoded: ActionLine<D.Action>, number: Int) -> TraceError? {
      guard decoded.seq == expected else {
        return TraceError(
          .corrupted, "expected sequence number \(expected), found \(decoded.seq)", path: path,
          line: number)
      }
      guard decoded.time.isFinite,
        abs(decoded.time - header.startTime) < JSONLines.maximumTimeSpan
      else {
        return TraceError(
          .corrupted,
          "time \(decoded.time) is not within \(JSONLines.maximumTimeSpanText) seconds of the session's startTime",
          path: path, line: number)
      }
      actions.append(TimedAction(sequence: decoded.seq, time: decoded.time, action: decoded.action))
      expected += 1
      return nil
    }

    /// Decodes `batch` as one JSON array and takes its lines.
    mutating func acceptBatch(_ batch: [(number: Int, line: Data)]) -> BatchOutcome {
      var joined = Data("[".utf8)
      for (index, entry) in batch.enumerated() {
        if index > 0 { joined.append(0x2C) }
        joined.append(entry.line)
      }
      joined.append(0x5D)
      guard let decoded = try? decoder.decode([ActionLine<D.Action>].self, from: joined),
        decoded.count == batch.count
      else { return .undecodable }
      for (entry, line) in zip(batch, decoded) {
        if let error = accept(line, number: entry.number) { return .stopped(error) }
      }
      return .accepted
    }

    /// Takes `batch`'s lines one by one up to the first that does not decode or does not
    /// follow: its index in the batch, and why.
    mutating func firstBadLine(in batch: [(number: Int, line: Data)], domain: D)
      -> (Int, TraceError)?
    {
      for (index, entry) in batch.enumerated() {
        do {
          let decoded = try decoder.decode(ActionLine<D.Action>.self, from: entry.line)
          if let stop = accept(decoded, number: entry.number) { return (index, stop) }
        } catch {
          return (
            index,
            TraceError(
              JSONLines.isActionProblem(error, line: entry.line, domain: domain)
                ? .undecodable : .corrupted,
              JSONLines.problem(with: entry.line, error: error, domain: domain), path: path,
              line: entry.number, cause: error)
          )
        }
      }
      return nil
    }
  }

  private static func header(from line: Data, number: Int, path: String?) throws(TraceError)
    -> Header
  {
    guard let header = try? JSONDecoder().decode(Header.self, from: line), header.format == format
    else {
      throw TraceError(
        .notATrace,
        "not a retrace JSON Lines file: line \(number) is not a header with \"format\":\"\(format)\"",
        path: path)
    }
    guard header.version <= version else {
      throw TraceError(
        .unsupportedVersion,
        "JSON Lines version \(header.version) is newer than this tool reads (\(version))",
        path: path, line: number)
    }
    guard header.version >= 1 else {
      throw TraceError(
        .corrupted, "version \(header.version) is impossible: versions start at 1", path: path,
        line: number)
    }
    // The values a trace can hold, so that an imported session reads back as it was written.
    let asTrace = TraceHeader(
      domain: header.domain, actionSchemaVersion: header.actionSchemaVersion,
      sessionID: header.sessionID,
      startTime: header.startTime, producer: header.producer, app: header.app ?? [:],
      firstSequence: header.firstSequence, checkpointInterval: 0, snapshotInterval: 0)
    if let impossibility = asTrace.impossibility {
      throw TraceError(.corrupted, impossibility, path: path, line: number)
    }
    // The session facts a trace's header holds, within what a reader of traces accepts: a
    // 50 MB session ID is refused here, on its line, not by `import` on the trace it writes.
    do {
      try asTrace.checkWritable(path: path ?? "")
    } catch {
      throw TraceError(.tooLarge, error.message, path: path, line: number)
    }
    return header
  }

  /// Whether a line failed to decode because of its action (an unknown case, a bad field)
  /// rather than because the line itself is broken.
  private static func isActionProblem<D: Domain>(_ error: any Error, line: Data, domain: D) -> Bool
  {
    if unknownCase(in: line, domain: domain) != nil { return true }
    let path: [any CodingKey]
    switch error as? DecodingError {
    case .keyNotFound(_, let context)?, .typeMismatch(_, let context)?,
      .valueNotFound(_, let context)?,
      .dataCorrupted(let context)?:
      path = context.codingPath
    default:
      return false
    }
    return path.first?.stringValue == "action"
  }

  /// The action case of a line whose action the domain does not know, if that is its problem.
  private static func unknownCase<D: Domain>(in line: Data, domain: D) -> String? {
    guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
      let action = object["action"] as? [String: Any], action.count == 1,
      let name = action.keys.first,
      !domain.actionCases.contains(name)
    else { return nil }
    return name
  }

  /// One sentence that says what is wrong with a line that did not decode.
  private static func problem<D: Domain>(with line: Data, error: any Error, domain: D) -> String {
    if let name = unknownCase(in: line, domain: domain) {
      return "unknown action case '\(name)' for domain \(domain.name); known: "
        + domain.actionCases.joined(separator: ", ")
    }
    let object: Any
    do {
      object = try JSONSerialization.jsonObject(with: line)
    } catch {
      // What the parser says is wrong, and where in the line: nested too deep, cut short,
      // a number beyond a Double's range.
      guard var why = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String,
        let first = why.first
      else { return "not valid JSON" }
      why = first.lowercased() + why.dropFirst()
      return "not valid JSON (\(why.hasSuffix(".") ? String(why.dropLast()) : why))"
    }
    guard object is [String: Any] else { return "not a JSON object" }
    return describe(error)
  }

  /// What a decoding error says, with where in the value it happened.
  private static func describe(_ error: any Error) -> String {
    switch error as? DecodingError {
    case .keyNotFound(let key, let context)?:
      return "missing \"\(key.stringValue)\"" + location(context.codingPath)
    case .typeMismatch(let type, let context)?:
      return "expected \(typeName(type))" + location(context.codingPath) + ": "
        + context.debugDescription
    case .valueNotFound(let type, let context)?:
      return "missing value of type \(typeName(type))" + location(context.codingPath)
    case .dataCorrupted(let context)? where context.codingPath.isEmpty:
      // What Foundation says, without a path, of valid JSON with a number its field cannot
      // hold.
      return
        "a number does not fit its field (such as a negative or fractional seq, or an integer beyond 64 bits)"
    case .dataCorrupted(let context)?:
      return "invalid value" + location(context.codingPath) + ": " + context.debugDescription
    default:
      return "cannot decode the line: \(error)"
    }
  }

  private static func location(_ path: [any CodingKey]) -> String {
    path.isEmpty
      ? ""
      : " at " + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
  }

  private static func typeName(_ type: Any.Type) -> String {
    String(describing: type)
  }
}

/// Formats a `Double` as a JSON number: the shortest form that reads back as the same value.
func jsonNumber(_ value: Double) -> String {
  if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
    return String(Int64(value))
  }
  return value.isFinite ? "\(value)" : "null"
}

/// One action line.
private struct ActionLine<Action: Decodable>: Decodable {
  var seq: UInt64
  var time: Double
  var action: Action
}

extension JSONLines {
  /// How far from the session's start an action's time may be, in seconds: what a trace
  /// holds (``TraceHeader/maximumStartTime``).
  static let maximumTimeSpan = TraceHeader.maximumStartTime
  private static let maximumTimeSpanText = "9e12"
}

/// A header line's initial state, if it has one.
private struct InitialStateOnly<State: Decodable>: Decodable {
  var initialState: State?
}

/// The non-blank lines of a file, with their 1-based line numbers; a trailing `\r` is dropped.
///
/// The line boundaries are found in one pass over the raw bytes: going through `Data`'s
/// collection interface byte by byte costs more than decoding the lines.
struct LineIterator: IteratorProtocol {
  private let data: Data
  /// The start and end offsets of every line, blank ones included.
  private let ranges: [Range<Int>]
  private var index = 0

  init(_ data: Data) {
    self.data = data
    var ranges: [Range<Int>] = []
    data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
      guard let base = buffer.baseAddress else { return }
      var start = 0
      while start < buffer.count {
        let end: Int
        if let newline = memchr(base + start, 0x0A, buffer.count - start) {
          end = base.distance(to: UnsafeRawPointer(newline))
        } else {
          end = buffer.count
        }
        ranges.append(start..<end)
        start = end + 1
      }
    }
    self.ranges = ranges
  }

  /// Whether every line has been read.
  var isAtEnd: Bool { index >= ranges.count }

  mutating func next() -> (Int, Data)? {
    while index < ranges.count {
      let range = ranges[index]
      index += 1
      let line = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Data? in
        var end = range.upperBound
        if end > range.lowerBound, buffer[end - 1] == 0x0D { end -= 1 }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[range.lowerBound..<end])
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return nil }
        return Data(bytes)
      }
      if let line { return (index, line) }
    }
    return nil
  }
}
