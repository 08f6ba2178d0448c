import ArgumentParser
import Foundation
import RetraceDebugger
import RetraceLog

/// `retrace report`: bug reports, the last sessions of an app in one file.
struct Report: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Make, list and unpack bug reports (an app's last sessions in one file).",
    discussion: """
      An app makes a report with SessionDirectory.makeReport and sends it with its own \
      transport; `report create` makes the same file from a session directory. Every \
      command reads a trace inside a report as REPORT#N, N from 1 (the newest session).
      """,
    subcommands: [List.self, Extract.self, Create.self])

  /// `retrace report list`.
  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "List a report's sessions, the app's facts and the note.")

    @Argument(help: "The report file.")
    var report: String

    @OptionGroup var output: JSONOptions
    @OptionGroup var keyOptions: KeyOptions

    mutating func run() async throws {
      let key = try keyOptions.load()
      let report = try Report.open(self.report)
      let note =
        (try? Report.note(of: report, key: key, path: self.report))
        ?? (
          text: nil,
          description: "(encrypted to key \(report.noteKeyID ?? "?"), not to the key given)"
        )
      let traces = report.entries.indices.map { index in
        let (trace, journal) = report.trace(at: index)
        return try? TraceReader(bytes: trace, journal: journal, key: key)
      }
      // An unfinished encrypted session read without its key: its journal's records are
      // sealed, so how many actions it holds is not known.
      let counts = traces.map { reader in
        reader.flatMap { !$0.isUnfinished || $0.canReadRecords ? $0.actionCount : nil }
      }
      if output.json {
        let entries = report.entries.enumerated().map { index, entry in
          ReportListReport.Entry(
            number: index + 1, reference: "\(self.report)#\(index + 1)", name: entry.name,
            sessionID: entry.sessionID, domain: entry.domain, keyID: entry.keyID,
            actions: counts[index], traceBytes: entry.traceBytes,
            journalBytes: entry.journalBytes)
        }
        print(
          try ReportJSON.text(
            ReportListReport(
              file: self.report, createdAt: report.createdAt, app: report.app, note: note.text,
              noteKeyID: report.noteKeyID, complete: report.isComplete, entries: entries,
              omitted: report.omitted.map {
                ReportListReport.Omitted(name: $0.name, reason: $0.reason)
              })))
        return
      }
      print(
        ("\(self.report): made \(formatTime(report.createdAt)), \(report.entries.count) sessions, \(report.bytes.count) bytes"
          + (report.isComplete ? "" : " (cut short: some sessions are incomplete)")).oneLine())
      for (name, value) in report.app.sorted(by: { $0.key < $1.key }) {
        print("app   \(name): \(value)".oneLine())
      }
      print(("note  " + note.description).oneLine())
      for (index, entry) in report.entries.enumerated() {
        let actions =
          counts[index].map {
            "\($0) action\($0 == 1 ? "" : "s")"
              + (traces[index]?.isUnfinished == true ? " (unfinished)" : "")
          }
          ?? (traces[index] == nil
            ? "unreadable"
            : "unfinished, its actions not counted: its journal needs the private key")
        let encryption = entry.keyID.map { ", encrypted to key \($0)" } ?? ""
        print(
          "#\(index + 1)  \(entry.name)  \(entry.domain), \(actions), \(entry.traceBytes + entry.journalBytes) bytes\(encryption)"
            .oneLine())
      }
      for omission in report.omitted {
        print("left out  \(omission.name): \(omission.reason)".oneLine())
      }
    }
  }

  /// `retrace report extract`.
  struct Extract: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Write a report's traces (and journals, and note) into a directory.",
      discussion: """
        The traces are written as they are in the report (an encrypted one stays encrypted); \
        the note is written to note.txt, opened with --key when it is encrypted. Existing \
        files are never overwritten.
        """)

    @Argument(help: "The report file.")
    var report: String

    @Option(name: .shortAndLong, help: "The directory to write into (made if missing).")
    var output: String = "."

    @OptionGroup var keyOptions: KeyOptions

    mutating func run() async throws {
      let key = try keyOptions.load()
      let report = try Report.open(self.report)
      var files: [(name: String, bytes: [UInt8], mode: mode_t)] = []
      var names: Set<String> = []
      for index in report.entries.indices {
        let name = report.entries[index].name
        // The names come from the file, which anyone with the public key can make: only a
        // plain, visible, unique `*.trace` name, never a path or a dotfile.
        guard name.hasSuffix(".trace"), !name.hasPrefix("."), !name.contains("/"),
          !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
          names.insert(name).inserted
        else {
          throw TraceError(
            .corrupted, "entry \(index + 1) has an impossible or repeated name",
            path: self.report)
        }
        let (trace, journal) = report.trace(at: index)
        files.append((name, trace, 0o644))
        if let journal { files.append((name + ".journal", journal, 0o644)) }
      }
      if let note = try Report.note(of: report, key: key, path: self.report).text {
        // What the user wrote may be personal: readable by its owner only.
        files.append(("note.txt", Array((note + "\n").utf8), 0o600))
      }
      do {
        try FileManager.default.createDirectory(
          atPath: output, withIntermediateDirectories: true)
      } catch {
        throw TraceError(
          .io, "cannot create the directory: \(error.localizedDescription)", path: output)
      }
      for file in files where FileManager.default.fileExists(atPath: output + "/" + file.name) {
        throw TraceError(
          .io, "already exists; extract never overwrites", path: output + "/" + file.name)
      }
      for file in files {
        try OutputFile.createNew(output + "/" + file.name, file.bytes, mode: file.mode)
      }
      Terminal.writeError(
        ("wrote \(report.entries.count) sessions\(files.contains { $0.name == "note.txt" } ? " and the note" : "") to \(output)")
          .oneLine())
    }
  }

  /// `retrace report create`.
  struct Create: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Make a report of a session directory's last sessions, as an app does.")

    @Argument(help: "The session directory (an app's SessionDirectory).")
    var directory: String

    @Option(name: .shortAndLong, help: "The report file to write.", transform: outputName)
    var output: String

    @Option(name: .long, help: "How many sessions, the newest first.")
    var sessions: Int = 1

    @Option(name: .long, help: "The user's note.")
    var note: String?

    @Option(name: .long, help: "The most bytes the report may take.")
    var maxBytes: Int = 10 << 20

    @Option(
      name: .long,
      help: ArgumentHelp(
        "Take only traces encrypted to this public key, and encrypt the note to it.",
        valueName: "file"))
    var encryptTo: String?

    func validate() throws {
      guard sessions >= 1 else { throw ValidationError("--sessions must be at least 1.") }
      guard maxBytes >= 1 else { throw ValidationError("--max-bytes must be at least 1.") }
    }

    mutating func run() async throws {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
        isDirectory.boolValue
      else { throw TraceError(.notFound, "no such directory", path: directory) }
      let key = try encryptTo.map { path throws(TraceError) in
        try TracePublicKey(contentsOfFile: path)
      }
      let report = try SessionDirectory(path: directory).makeReport(
        BugReport.Options(lastSessions: sessions, note: note, maxBytes: maxBytes, encryptTo: key))
      try OutputFile.writeText(report.bytes, to: output)
      Terminal.writeError(
        "wrote \(report.entries.count) sessions (\(report.omitted.count) left out) to \(output)"
          .oneLine())
    }
  }

  /// Reads the report at `path`.
  static func open(_ path: String) throws(TraceError) -> BugReport {
    try SessionFile.openReport(path)
  }

  /// The note as `list` shows it, and its text when it can be read.
  static func note(of report: BugReport, key: TracePrivateKey?, path: String) throws(TraceError)
    -> (text: String?, description: String)
  {
    let text: String?
    do {
      text = try report.note(key: key)
    } catch {
      throw error.at(path: path)
    }
    if let text { return (text, text) }
    if let keyID = report.noteKeyID {
      return (nil, "(encrypted to key \(keyID): give its private key with --key to read it)")
    }
    return (nil, "(none)")
  }
}
