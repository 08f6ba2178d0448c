import Foundation
import RetraceLog

extension SessionFile {
  /// Reads the bug report at `path`.
  ///
  /// - Throws: `TraceError`: `notFound`, `io`, or what is wrong in the report.
  package static func openReport(_ path: String) throws(TraceError) -> BugReport {
    try BugReport(bytes: Array(try readData(path)), path: path)
  }

  /// `REPORT#N`: the report's path and the number, when `path` names a session inside a
  /// report (no file has that name, and one has the name before `#`).
  static func reportReference(_ path: String) -> (report: String, number: Int)? {
    guard let hash = path.lastIndex(of: "#"), let number = Int(path[path.index(after: hash)...]),
      !FileManager.default.fileExists(atPath: path)
    else { return nil }
    let report = String(path[..<hash])
    return FileManager.default.fileExists(atPath: report) ? (report, number) : nil
  }

  /// The session `number` (from 1) of the report at `report`, as a trace read from memory.
  static func openInReport(_ report: String, number: Int, as path: String, key: TracePrivateKey?)
    throws(TraceError) -> SessionFile
  {
    let opened = try openReport(report)
    guard number >= 1, number <= opened.entries.count else {
      throw TraceError(
        .outOfRange,
        "the report holds \(opened.entries.count) sessions; #\(number) is not one of them",
        path: report)
    }
    let (trace, journal) = opened.trace(at: number - 1)
    return SessionFile(
      path: path,
      content: .trace(try TraceReader(bytes: trace, journal: journal, path: path, key: key)))
  }
}
