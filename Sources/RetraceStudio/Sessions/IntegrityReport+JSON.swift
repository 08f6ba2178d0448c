import RetraceDebugger
import RetraceLog

extension IntegrityReport {
  /// The report as the Studio's answers give it: as the commands' `--json` reports do
  /// (`IntegrityJSON`, written by `ReportJSON`); `file` only when the problem is in another
  /// file than the session's (its journal).
  var json: JSONValue {
    // Strings and integers always encode.
    (try? ReportJSON.text(IntegrityJSON(self))).map { .raw($0) } ?? .null
  }
}
