import ArgumentParser
import Foundation
@preconcurrency import Rainbow
import RetraceDebugger
import RetraceLog

/// `retrace merge-results`: combines the `--json` outputs of `replay` run on the shards of a
/// corpus into one summary and one exit code.
struct MergeResults: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge-results",
    abstract: "Combine the --json results of sharded replays into one summary and exit code.",
    discussion: """
      Each FILE is what `replay ... --json` printed for several traces (one object per \
      trace, and the counts), typically one shard of a corpus (`replay --shard K/N`). The \
      merge lists every trace that did not verify (a divergence with the recorded hash that \
      did not match and the actions among which it happened, as `replay` says it), then \
      the summary, and exits as one unsharded run would have: 0 when \
      every trace verified, 1 when any diverged, was unverified or damaged, 3 when the rest \
      verified but some trace could not be read. A file that cannot be read, a trace found \
      in two files, or a missing shard (the files say which shards they are) is an error \
      (exit 3): the merge never answers for traces it did not see.
      """)

  @Argument(
    help: ArgumentHelp(
      "The results of each shard, as `replay --json` wrote them.", valueName: "file"))
  var files: [String]

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions

  func validate() throws {
    guard !files.isEmpty else { throw ValidationError("Give at least one results file.") }
  }

  func run() throws {
    Terminal.configureColor(colorOptions)
    let results = try files.map(ReplayResults.read)
    let merged = try ReplayResults.merge(results)
    if output.json {
      print(try ReportJSON.text(merged.report))
    } else {
      // Names padded to one width, as one unsharded run pads them.
      let width = merged.traces.map(\.file.count).max() ?? 0
      for trace in merged.traces where trace.status != "verified" && trace.status != "replayed" {
        print(trace.line(width: width))
      }
      print(merged.summary)
    }
    if merged.negative > 0 { throw ExitCode(RetraceExitCode.negative.rawValue) }
    if merged.unreadable > 0 { throw ExitCode(RetraceExitCode.file.rawValue) }
  }
}

/// What `replay --json` printed for several traces: a result per trace, and which shard of
/// a corpus they were, if any.
struct ReplayResults {
  var file: String
  var traces: [ReplayReport]
  /// Whether the results are of `replay --verify`, which counts "verified" rather than
  /// "replayed".
  var verified: Bool
  var shard: Shard?

  /// Reads the results in `path`.
  ///
  /// - Throws: `TraceError` naming the file and what is wrong with it.
  /// The top-level `version` of a report, whatever else it holds.
  private struct VersionOnly: Decodable {
    var version: Int?
  }

  /// Why results of version `newer` are not read.
  private static func newer(_ newer: Int) -> String {
    "they are of version \(newer), and this \(CommandContext.name) reads up to version \(ReplayManyReport.currentVersion)"
  }

  static func read(_ path: String) throws(TraceError) -> ReplayResults {
    let data = try SessionFile.readData(path)
    func invalid(_ problem: String) -> TraceError {
      TraceError(
        .corrupted, "not the --json results of `replay` on several traces: \(problem)", path: path)
    }
    let report: ReplayManyReport
    do {
      report = try ReportJSON.decode(ReplayManyReport.self, from: data)
    } catch {
      // JSONSerialization says where the text stops being JSON.
      do { _ = try JSONSerialization.jsonObject(with: data) } catch let syntax {
        let reason = (syntax as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        throw TraceError(
          .corrupted, "not valid JSON" + (reason.map { ": \($0)" } ?? ""), path: path,
          cause: error)
      }
      // Results of a newer version may have another shape: the version says why.
      if let newer = try? ReportJSON.decode(VersionOnly.self, from: data).version,
        newer > ReplayManyReport.currentVersion
      {
        throw invalid(Self.newer(newer))
      }
      throw invalid(Self.describe(error))
    }
    if let newer = ([report.version] + report.traces.map(\.version)).first(where: {
      $0 > ReplayManyReport.currentVersion
    }) {
      throw invalid(Self.newer(newer))
    }
    var shard: Shard?
    if let named = report.part {
      guard named.count >= 1, (0..<named.count).contains(named.index) else {
        throw invalid("its \"shard\" is not an index and a count")
      }
      shard = Shard(index: named.index, count: named.count)
    }
    let verified = report.counts.verify
    // The statuses `replay` writes: anything else (a newer tool's, a typo) is not counted as
    // passed.
    let statuses: Set<String> =
      verified
      ? ["verified", "diverged", "unverified", "damaged", "error"]
      : ["replayed", "diverged", "error"]
    if let unknown = report.traces.first(where: { !statuses.contains($0.status) }) {
      throw invalid("trace \(unknown.file) has status \"\(unknown.status)\"")
    }
    if let shard, let stray = report.traces.first(where: { !shard.contains($0.file) }) {
      throw invalid("trace \(stray.file) is not in shard \(shard.description)")
    }
    return ReplayResults(file: path, traces: report.traces, verified: verified, shard: shard)
  }

  /// What a decoding error says is wrong, in one line: where in the JSON (as jq names it),
  /// and what.
  private static func describe(_ error: any Error) -> String {
    func path(_ codingPath: [any CodingKey]) -> String {
      let path = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
        .joined()
      return path.isEmpty ? "at the top" : "at \(path)"
    }
    func kind(_ type: Any.Type) -> String {
      switch "\(type)" {
      case let name where name.hasPrefix("Array"): "an array"
      case let name where name.hasPrefix("Dictionary") || name.hasPrefix("KeyedDecoding"):
        "an object"
      case "String": "a string"
      case "Bool": "true or false"
      default: "a number"
      }
    }
    switch error as? DecodingError {
    case .keyNotFound(let key, let context)?:
      let missing =
        context.codingPath.isEmpty && key.stringValue == "verified"
        ? #""verified" or "replayed" count"# : #""\#(key.stringValue)""#
      return "\(path(context.codingPath)): no \(missing)"
    case .typeMismatch(let type, let context)?, .valueNotFound(let type, let context)?:
      return "\(path(context.codingPath)): not \(kind(type))"
    case .dataCorrupted(let context)?:
      return "\(path(context.codingPath)): \(context.debugDescription)"
    default:
      return "\(error)"
    }
  }

  /// Several results as one: every trace once, sorted by path.
  struct Merged {
    var traces: [ReplayReport]
    var verified: Bool
    var shards: Int?

    func count(_ status: String) -> Int { traces.filter { $0.status == status }.count }
    var negative: Int { count("diverged") + count("unverified") + count("damaged") }
    var unreadable: Int { count("error") }
    var passed: Int { traces.count - negative - unreadable }

    /// The summary line, as one unsharded `replay` prints it.
    var summary: String {
      var text =
        "\(traces.count) trace\(traces.count == 1 ? "" : "s"): \(passed) \(verified ? "verified" : "replayed"), \(count("diverged")) diverged"
      if verified { text += ", \(count("unverified")) unverified, \(count("damaged")) damaged" }
      text += ", \(unreadable) unreadable"
      return negative + unreadable == 0 ? text.green : text.red
    }

    /// The merged results, in the shape of `replay --json` on several traces.
    var report: MergeResultsReport {
      MergeResultsReport(
        traces: traces, counts: ReplayCounts(verify: verified, traces: traces),
        part: shards.map(MergedShards.init(count:)))
    }
  }

  /// Merges `results`.
  ///
  /// - Throws: `TraceError` when a trace is in two files, when some files were made
  ///   with `--verify` and some without, or when the files name their shards and one is
  ///   missing, given twice, or of another count.
  static func merge(_ results: [ReplayResults]) throws(TraceError) -> Merged {
    let verified = results[0].verified
    if let other = results.first(where: { $0.verified != verified }) {
      throw TraceError(
        .corrupted,
        "these results are of `replay\(other.verified ? " --verify" : "")`, those of \(results[0].file) are not",
        path: other.file)
    }
    let shards = try checkShards(results)
    var seen: [String: String] = [:]
    var traces: [ReplayReport] = []
    for result in results {
      for trace in result.traces {
        if let first = seen[trace.file] {
          throw TraceError(
            .corrupted, "trace \(trace.file) is also in \(first): the shards overlap",
            path: result.file)
        }
        seen[trace.file] = result.file
        traces.append(trace)
      }
    }
    traces.sort { $0.file < $1.file }
    return Merged(traces: traces, verified: verified, shards: shards)
  }

  /// The number of shards when every file names its shard, after checking that each of them
  /// is there once; `nil` when none does.
  private static func checkShards(_ results: [ReplayResults]) throws(TraceError) -> Int? {
    let named = results.filter { $0.shard != nil }
    guard !named.isEmpty else { return nil }
    if let unnamed = results.first(where: { $0.shard == nil }) {
      throw TraceError(
        .corrupted, "these results name no shard, but \(named[0].file)'s do", path: unnamed.file)
    }
    let count = named[0].shard!.count
    var files: [Int: String] = [:]
    for result in results {
      let shard = result.shard!
      guard shard.count == count else {
        throw TraceError(
          .corrupted,
          "shard \(shard.description) is not one of \(count), as \(named[0].file)'s is",
          path: result.file)
      }
      if let other = files[shard.index] {
        throw TraceError(
          .corrupted, "shard \(shard.description) is also in \(other)", path: result.file)
      }
      files[shard.index] = result.file
    }
    // Fewer files than shards: the first shard without one.
    if files.count < count, let missing = (0..<count).first(where: { files[$0] == nil }) {
      throw TraceError(
        .notFound,
        "shard \(missing)/\(count) is missing: its traces were not merged, so nothing can be said of them"
      )
    }
    return count
  }
}

extension ReplayReport {
  /// The line `merge-results` prints for a trace that did not verify, its path padded to
  /// `width`.
  func line(width: Int) -> String {
    func label(_ text: String) -> String {
      text.padding(toLength: 10, withPad: " ", startingAt: 0)
    }
    let name = file.oneLine().padding(toLength: width, withPad: " ", startingAt: 0)
    switch status {
    case "diverged":
      return label("DIVERGED").red
        + "  \(name)  " + (divergenceText ?? "diverged")
    case "error":
      return label("ERROR").red + "  \(name)  " + (error ?? "unreadable").oneLine()
    default:
      return label(status.uppercased()).red + "  \(name)"
    }
  }

  /// A divergence as `replay`'s line for several traces says it: `at checkpoint 1100, among
  /// actions 1069...1100`, and `, first different after action 1069 (addTransaction)` when
  /// `--as` named the action.
  var divergenceText: String? {
    guard let divergence = details?.divergence else { return nil }
    var text =
      "at \(divergence.kind) \(divergence.sequence), among actions \(divergence.windowStart)...\(divergence.windowEnd)"
    if let lockstep = details?.lockstep {
      text += ", first different after action \(lockstep.sequence) (\(lockstep.actionCase))"
    }
    return text
  }
}
