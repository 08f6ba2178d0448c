import RetraceLog

extension IntegrityReport {
  /// The report as the Studio's answers give it, with the keys of the commands' reports
  /// (`IntegrityJSON`); `file` only when the problem is in another file than the session's
  /// (its journal). An object of fields rather than encoded text: a live session that has
  /// diverged rewrites its `status`, `problem` and `sequence`.
  var json: JSONValue {
    .object(
      [
        ("status", .string(status.rawValue)),
        ("intactActions", .int(Int64(intactActions))),
        ("recoveredActions", .int(Int64(recoveredActions))),
        ("problem", .optional(problem) { .string($0) }),
      ] + (file.map { [("file", .string($0))] } ?? []) + [
        ("line", .optional(line) { .int(Int64($0)) }),
        ("offset", .optional(offset) { .int(Int64($0)) }),
        ("sequence", .optional(sequence) { .uint($0) }),
      ])
  }
}
