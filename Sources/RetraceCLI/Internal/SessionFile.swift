import Foundation
import Retrace
import RetraceDebugger

/// The one place where the commands read and write session files.
///
/// For now sessions are stored as JSON Lines (the format of `retrace export`, see
/// ``JSONLines``); when the trace-file module lands, these functions read and write `.trace`
/// files (and keep reading JSON Lines for `import`), and no command changes.
enum SessionFile {
  /// The file's bytes.
  ///
  /// - Throws: ``DebuggerError``: ``DebuggerError/Code/notFound`` or ``DebuggerError/Code/io``.
  static func readData(_ path: String) throws(DebuggerError) -> Data {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw DebuggerError(.notFound, "no such file", path: path)
    }
    guard !isDirectory.boolValue else {
      throw DebuggerError(.io, "is a directory, not a trace", path: path)
    }
    do {
      return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
    } catch {
      throw DebuggerError(.io, "cannot read the file: \(error.localizedDescription)", path: path)
    }
  }

  /// The registered domain the session in `path` belongs to.
  ///
  /// - Throws: ``DebuggerError`` when the file cannot be read, is not a session, or names a
  ///   domain that is not registered.
  static func domain(of path: String) throws(DebuggerError) -> any Domain {
    let data = try readData(path)
    let header = try JSONLines.readHeader(from: data, path: path)
    do {
      return try CommandContext.registry.domain(named: header.domain)
    } catch {
      throw error.at(path: path)
    }
  }

  /// The whole session in `path`.
  ///
  /// - Parameters:
  ///   - path: The file.
  ///   - domain: The domain its header names.
  ///   - sequence: When given, only the state up to this sequence number is needed; a
  ///     seekable format may then read less.
  /// - Throws: ``DebuggerError`` naming the file and the position of the problem.
  static func load<D: Domain>(_ path: String, as domain: D, through sequence: UInt64? = nil) throws(DebuggerError)
    -> RecordedSession<D>
  {
    try JSONLines.readSession(from: try readData(path), domain: domain, path: path)
  }

  /// What `info` and `verify` report about a file: the intact part and the damage.
  struct Inspection<D: Domain> {
    var session: RecordedSession<D>
    var integrity: IntegrityReport
    var format: String
    var bytes: Int
    var blocks: Int?
  }

  /// Reads as much of `path` as is intact, and says whether it is whole.
  ///
  /// - Throws: ``DebuggerError`` when the file cannot be read or is not a session at all.
  static func inspect<D: Domain>(_ path: String, as domain: D) throws(DebuggerError) -> Inspection<D> {
    let data = try readData(path)
    let (session, damage) = try JSONLines.readIntactPrefix(from: data, domain: domain, path: path)
    let integrity: IntegrityReport
    if let damage {
      integrity = IntegrityReport(
        status: damage.isTruncation ? .truncated : .damaged, intactActions: session.actions.count,
        problem: damage.error.message, line: damage.error.line, sequence: session.endSequence + 1)
    } else {
      integrity = IntegrityReport(status: .clean, intactActions: session.actions.count)
    }
    return Inspection(session: session, integrity: integrity, format: "jsonl", bytes: data.count, blocks: nil)
  }

  /// Writes `session` to `path`, replacing any file there.
  ///
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/io``) when the file cannot be written.
  static func write<D: Domain>(_ session: RecordedSession<D>, domain: D, to path: String) throws(DebuggerError) {
    do {
      var text = try JSONLines.headerLine(for: session, domain: domain) + "\n"
      let writer = JSONLines.ActionWriter<D.Action>()
      for action in session.actions {
        text += try writer.line(for: action)
        text += "\n"
      }
      try writeText(text, to: path)
    } catch let error as DebuggerError {
      throw error
    } catch {
      throw DebuggerError(.io, "cannot encode the session: \(error)", path: path)
    }
  }

  /// Writes text to `path`, or to stdout when `path` is `nil` or `-`.
  ///
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/io``) when the file cannot be written.
  static func writeText(_ text: String, to path: String?) throws(DebuggerError) {
    guard let path, path != "-" else {
      print(text, terminator: "")
      return
    }
    do {
      try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw DebuggerError(.io, "cannot write the file: \(error.localizedDescription)", path: path)
    }
  }

  /// The state hash the recorder used for sessions of `domain`.
  static func stateHash<D: Domain>(for domain: D) -> @Sendable (D.State) -> UInt64 {
    { defaultStateHash($0) }
  }

  /// A debugger for the session in `path`.
  static func debugger<D: Domain>(_ path: String, as domain: D, through sequence: UInt64? = nil) throws(DebuggerError)
    -> Debugger<D>
  {
    Debugger(domain: domain, session: try load(path, as: domain, through: sequence), stateHash: stateHash(for: domain))
  }
}
