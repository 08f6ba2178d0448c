import Foundation
import RetraceLog
import Testing

@testable import RetraceCLI

/// The reports `replay` writes and `merge-results` reads are one type each, encoded and
/// decoded the same way.
@Suite struct ReportCodingTests {
  static func golden(_ name: String) throws -> Data {
    try Data(contentsOf: GoldenOutputTests.directory.appendingPathComponent(name))
  }

  /// Decoded and encoded again, `replay`'s and `merge-results`'s golden outputs come back
  /// byte for byte.
  @Test func replayResultsDecodeToWhatTheyEncode() throws {
    let many = try Self.golden("replay-many.json")
    let report = try ReportJSON.decode(ReplayManyReport.self, from: many)
    #expect(report.traces.map(\.status) == ["verified", "verified", "error"])
    #expect(report.counts.verify && report.counts.passed == 2 && report.counts.errors == 1)
    #expect(try ReportJSON.text(report) + "\n" == String(decoding: many, as: UTF8.self))

    let one = try Self.golden("replay-verify.json")
    let trace = try ReportJSON.decode(ReplayReport.self, from: one)
    #expect(trace.details?.hashes == 20)
    #expect(try ReportJSON.text(trace) + "\n" == String(decoding: one, as: UTF8.self))

    let merged = try Self.golden("merge-results.json")
    let mergedReport = try ReportJSON.decode(MergeResultsReport.self, from: merged)
    #expect(mergedReport.traces == report.traces.sorted { $0.file < $1.file })
    #expect(try ReportJSON.text(mergedReport) + "\n" == String(decoding: merged, as: UTF8.self))
  }

  /// Results written before reports carried a version read as version 1; a newer version is
  /// refused, not half understood.
  @Test func mergeReadsUnversionedResultsAndRefusesNewerOnes() throws {
    let workspace = try GoldenOutputTests.workspace()
    let many = try workspace.read("many.json")
    try workspace.write(many.replacingOccurrences(of: #","version":1"#, with: ""), to: "old.json")
    let old = try workspace.run("merge-results old.json --json")
    #expect(old.exitCode == 3, "\(old)")
    #expect(try old.json()["version"] as? Int == 1)
    #expect(try old.json()["errors"] as? Int == 1)

    // The last key of the whole object, which ends the output.
    try workspace.write(
      many.replacingOccurrences(of: "\"version\":1}\n", with: "\"version\":2}\n"),
      to: "newer.json")
    let newer = try workspace.run("merge-results newer.json")
    #expect(newer.exitCode == 3)
    #expect(
      newer.stderr
        == "retrace: newer.json: not the --json results of `replay` on several traces: they are of version 2, and this retrace reads up to version 1\n"
    )

    // A newer version may have another shape: its version is what is said, not the shape.
    try workspace.write(#"{"version":3,"results":[]}"#, to: "reshaped.json")
    let reshaped = try workspace.run("merge-results reshaped.json")
    #expect(reshaped.exitCode == 3)
    #expect(
      reshaped.stderr
        == "retrace: reshaped.json: not the --json results of `replay` on several traces: they are of version 3, and this retrace reads up to version 1\n"
    )
  }

  /// Results of another shape are refused in one line that says where, as jq names it.
  @Test func mergeSaysWhereResultsOfAnotherShapeGoWrong() throws {
    let workspace = try Workspace()
    let cases = [
      #"{"traces":[{"file":"a.trace"}],"verified":1}"#: #"at .traces[0]: no "status""#,
      #"{"traces":[]}"#: #"at the top: no "verified" or "replayed" count"#,
      #"{"traces":5,"verified":1}"#: "at .traces: not an array",
    ]
    for (text, problem) in cases {
      try workspace.write(text, to: "odd.json")
      let result = try workspace.run("merge-results odd.json")
      #expect(result.exitCode == 3)
      #expect(
        result.stderr
          == "retrace: odd.json: not the --json results of `replay` on several traces: \(problem)\n"
      )
    }
  }
}
