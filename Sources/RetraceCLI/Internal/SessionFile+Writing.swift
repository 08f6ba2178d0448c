import Foundation
import Retrace
import RetraceDebugger
import RetraceLog

// Writing session files: a trace through the real recorder, or JSON Lines.
extension SessionFile {
  /// Writes `session` to `path`, replacing any file there: as JSON Lines when the name ends
  /// in `.jsonl`, otherwise as a trace through the real recorder, replaying the actions
  /// through `domain`'s reducer so that the trace gets its checkpoints and snapshots.
  ///
  /// - Parameters:
  ///   - session: The session to write.
  ///   - domain: Its domain.
  ///   - path: The file to write.
  ///   - actionSchema: An older action schema version to write the trace's actions in (with
  ///     the domain's ``Domain/legacyEncoding(of:schemaVersion:)``), as an older release of
  ///     the app recorded them; `nil` for the current one. Traces only.
  ///   - redactionKey: The key to redact the trace with, by the domain's redaction policy;
  ///     `nil` to write it as it is. Traces in the current action schema only.
  ///   - encryptionKey: The public key to encrypt the trace to; `nil` to write it in clear.
  ///     Traces only.
  ///   - formatVersion: The trace format to write (`--trace-format`). Traces only.
  /// - Throws: `TraceError`: `io` when the file cannot be written, `outOfRange` when the
  ///   domain cannot write `actionSchema`.
  static func write<D: Domain>(
    _ session: RecordedSession<D>, domain: D, to path: String, actionSchema: Int? = nil,
    redactionKey: RedactionKey? = nil, encryptionKey: TracePublicKey? = nil,
    formatVersion: UInt16 = TraceFormat.version
  ) throws(TraceError) {
    if let version = actionSchema, version != domain.actionSchemaVersion {
      precondition(
        !path.hasSuffix(".jsonl"), "JSON Lines are written in the current action schema only")
      let unwritable = TraceError(
        .outOfRange,
        "domain \(domain.name) cannot write action schema version \(version) (its current version is \(domain.actionSchemaVersion))",
        path: path)
      // Every action, before a byte is written: one the old schema cannot hold is refused.
      var legacy: [LegacyAction] = []
      legacy.reserveCapacity(session.actions.count)
      for action in session.actions {
        guard version < domain.actionSchemaVersion,
          let encoded = domain.legacyEncoding(of: action.action, schemaVersion: version)
        else { throw unwritable }
        legacy.append(LegacyAction(encoded))
      }
      guard version < domain.actionSchemaVersion else { throw unwritable }
      try OutputFile.replace(path) { file throws(TraceError) in
        do throws(TraceError) {
          var next = 0
          try writeTrace(
            session, domain: domain, schemaVersion: version, to: file,
            encryptionKey: encryptionKey, formatVersion: formatVersion
          ) { _ in
            defer { next += 1 }
            return legacy[next]
          }
        } catch {
          throw error.at(path: path)
        }
      }
    } else if path.hasSuffix(".jsonl") {
      try writeJSONLines(session, domain: domain, to: path)
    } else {
      try OutputFile.replace(path) { file throws(TraceError) in
        do throws(TraceError) {
          try writeTrace(
            session, domain: domain, schemaVersion: domain.actionSchemaVersion, to: file,
            redactionKey: redactionKey, encryptionKey: encryptionKey,
            formatVersion: formatVersion
          ) { $0 }
        } catch {
          throw error.at(path: path)
        }
      }
    }
  }

  private static func writeTrace<D: Domain, Recorded: Codable & Sendable>(
    _ session: RecordedSession<D>, domain: D, schemaVersion: Int, to path: String,
    redactionKey: RedactionKey? = nil, encryptionKey: TracePublicKey? = nil,
    formatVersion: UInt16, recording: (D.Action) -> Recorded
  ) throws(TraceError) {
    var configuration = TraceRecorderConfiguration()
    configuration.formatVersion = formatVersion
    configuration.reproducibleCheckpoints = true
    // Nothing may be dropped: the loop below waits for the writer every `batch` actions, so
    // the queue never holds more than that.
    let batch = 1 << 18
    configuration.maxPendingActions = max(configuration.maxPendingActions, batch * 2)
    configuration.redactionKey = redactionKey
    configuration.encryptionKey = encryptionKey
    let recorder = try TraceRecorder<D.State, Recorded>(
      path: path, domain: domain.name, actionSchemaVersion: schemaVersion,
      sessionID: session.info.sessionID,
      // The app's facts go with the session (a redacted one's among them); its encryption
      // does not: that takes the public key, `encryptionKey`.
      startTime: session.info.startTime, app: session.info.app, configuration: configuration,
      redaction: domain.redaction, replaying: domain as? any Domain<D.State, Recorded>)
    recorder.attached(sequence: session.startSequence, state: session.initialState)
    var state = session.initialState
    // Time-travel jumps are written where they came, after the hash of the state before.
    var jumps = session.jumps[...]
    func writeJumps(after sequence: UInt64, time: Double) {
      while let jump = jumps.first, jump.sequence <= sequence {
        jumps.removeFirst()
        guard jump.sequence == sequence, let jumped = jump.state else { continue }
        recorder.jumped(sequence: sequence, time: time, from: state, to: jumped)
        state = jumped
      }
    }
    writeJumps(after: session.startSequence, time: session.info.startTime)
    for (index, action) in session.actions.enumerated() {
      _ = domain.reduce(into: &state, action: action.action)
      recorder.record(
        Transition(
          sequence: action.sequence, time: action.time, action: recording(action.action),
          stateBefore: nil,
          stateAfter: state))
      if !jumps.isEmpty { writeJumps(after: action.sequence, time: action.time) }
      if index % batch == batch - 1 { try recorder.flush() }
    }
    // The last actions are covered by a hash, as a store's recorder covers them at close.
    recorder.checkpoint(state: state, after: session.endSequence)
    try recorder.close()
    guard recorder.droppedActionCount == 0 else {
      throw TraceError(
        .io, "the recorder dropped \(recorder.droppedActionCount) actions", path: path)
    }
  }

  private static func writeJSONLines<D: Domain>(
    _ session: RecordedSession<D>, domain: D, to path: String
  )
    throws(TraceError)
  {
    do {
      var text = try JSONLines.headerLine(for: session, domain: domain) + "\n"
      let writer = JSONLines.ActionWriter<D.Action>()
      for action in session.actions {
        text += try writer.line(for: action)
        text += "\n"
      }
      try writeText(text, to: path)
    } catch let error as TraceError {
      throw error
    } catch {
      throw TraceError(.io, "cannot encode the session: \(error)", path: path)
    }
  }

  /// Writes text to `path` (see ``OutputFile``), or to stdout when `path` is `nil` or `-`.
  ///
  /// - Throws: `TraceError` (`io`) when the file cannot be written.
  static func writeText(_ text: String, to path: String?) throws(TraceError) {
    guard let path, path != "-" else {
      print(text, terminator: "")
      return
    }
    try OutputFile.writeText(Array(text.utf8), to: path)
  }
}

/// An action already in an older schema's shape, for the recorder: it encodes exactly as the
/// domain's legacy encoding does. Written only, never read back.
private struct LegacyAction: Codable, Sendable {
  let base: any Encodable & Sendable

  init(_ base: any Encodable & Sendable) {
    self.base = base
  }

  init(from decoder: any Decoder) throws {
    throw DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: decoder.codingPath, debugDescription: "a legacy action is only written"))
  }

  func encode(to encoder: any Encoder) throws {
    try base.encode(to: encoder)
  }
}
