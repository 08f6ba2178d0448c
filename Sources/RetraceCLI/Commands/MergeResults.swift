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
      print(merged.json.text)
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
  /// One trace's result: the fields the merge reads, and the whole object to pass on.
  struct Trace {
    var file: String
    var status: String
    /// Where the trace diverged, as `replay` says it: the hash that did not match, the
    /// actions among which the divergence happened, and the exact action when `--as`
    /// found it.
    var divergence: String?
    var error: String?
    var object: JSONValue

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
          + "  \(name)  " + (divergence ?? "diverged")
      case "error":
        return label("ERROR").red + "  \(name)  " + (error ?? "unreadable").oneLine()
      default:
        return label(status.uppercased()).red + "  \(name)"
      }
    }
  }

  var file: String
  var traces: [Trace]
  /// Whether the results are of `replay --verify`, which counts "verified" rather than
  /// "replayed".
  var verified: Bool
  var shard: Shard?

  /// Reads the results in `path`.
  ///
  /// - Throws: `TraceError` naming the file and what is wrong with it.
  static func read(_ path: String) throws(TraceError) -> ReplayResults {
    let data = try SessionFile.readData(path)
    let root: JSONValue
    do {
      root = try JSONDecoder().decode(DecodedJSON.self, from: data).value
    } catch {
      // JSONSerialization says where the text stops being JSON.
      var reason: String?
      do { _ = try JSONSerialization.jsonObject(with: data) } catch let syntax {
        reason = (syntax as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
      }
      throw TraceError(
        .corrupted, "not valid JSON" + (reason.map { ": \($0)" } ?? ""), path: path, cause: error)
    }
    func invalid(_ problem: String) -> TraceError {
      TraceError(
        .corrupted, "not the --json results of `replay` on several traces: \(problem)", path: path)
    }
    guard case .object(let fields) = root else { throw invalid("not an object") }
    let field = { (name: String) in fields.first { $0.0 == name }?.1 }
    guard case .array(let items)? = field("traces") else { throw invalid("no \"traces\" array") }
    var traces: [Trace] = []
    for (index, item) in items.enumerated() {
      guard case .object(let traceFields) = item,
        case .string(let file)? = traceFields.first(where: { $0.0 == "file" })?.1,
        case .string(let status)? = traceFields.first(where: { $0.0 == "status" })?.1
      else { throw invalid("trace \(index + 1) has no \"file\" and \"status\"") }
      var trace = Trace(file: file, status: status, object: item)
      trace.divergence = divergenceText(traceFields)
      if case .string(let error)? = traceFields.first(where: { $0.0 == "error" })?.1 {
        trace.error = error
      }
      traces.append(trace)
    }
    var shard: Shard?
    if case .object(let shardFields)? = field("shard") {
      func number(_ name: String) -> Int? {
        switch shardFields.first(where: { $0.0 == name })?.1 {
        case .int(let value)?: Int(value)
        case .uint(let value)?: Int(exactly: value)
        default: nil
        }
      }
      guard let index = number("index"), let count = number("count"), count >= 1,
        (0..<count).contains(index)
      else { throw invalid("its \"shard\" is not an index and a count") }
      shard = Shard(index: index, count: count)
    }
    let verified = field("verified") != nil
    guard verified || field("replayed") != nil else {
      throw invalid("no \"verified\" or \"replayed\" count")
    }
    // The statuses `replay` writes: anything else (a newer tool's, a typo) is not counted as
    // passed.
    let statuses: Set<String> =
      verified
      ? ["verified", "diverged", "unverified", "damaged", "error"]
      : ["replayed", "diverged", "error"]
    if let unknown = traces.first(where: { !statuses.contains($0.status) }) {
      throw invalid("trace \(unknown.file) has status \"\(unknown.status)\"")
    }
    if let shard, let stray = traces.first(where: { !shard.contains($0.file) }) {
      throw invalid("trace \(stray.file) is not in shard \(shard.description)")
    }
    return ReplayResults(file: path, traces: traces, verified: verified, shard: shard)
  }

  /// A divergence as `replay`'s line for several traces says it, from its JSON: `at
  /// checkpoint 1100, among actions 1069...1100`, and `, first different after action 1069
  /// (addTransaction)` when `--as` named the action.
  private static func divergenceText(_ fields: [(String, JSONValue)]) -> String? {
    func field(_ object: [(String, JSONValue)], _ name: String) -> JSONValue? {
      object.first { $0.0 == name }?.1
    }
    func number(_ value: JSONValue?) -> String? {
      switch value {
      case .uint(let number)?: String(number)
      case .int(let number)?: String(number)
      default: nil
      }
    }
    guard case .object(let divergence)? = field(fields, "divergence"),
      case .string(let kind)? = field(divergence, "kind"),
      let sequence = number(field(divergence, "sequence")),
      let start = number(field(divergence, "windowStart")),
      let end = number(field(divergence, "windowEnd"))
    else { return nil }
    var text = "at \(kind) \(sequence), among actions \(start)...\(end)"
    if case .object(let lockstep)? = field(fields, "lockstep"),
      let action = number(field(lockstep, "sequence")),
      case .string(let actionCase)? = field(lockstep, "actionCase")
    {
      text += ", first different after action \(action) (\(actionCase))"
    }
    return text
  }

  /// Several results as one: every trace once, sorted by path.
  struct Merged {
    var traces: [Trace]
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
    var json: JSONValue {
      .object([
        ("traces", .array(traces.map(\.object))),
        (verified ? "verified" : "replayed", .int(Int64(passed))),
        ("diverged", .int(Int64(count("diverged")))),
        ("unverified", .int(Int64(count("unverified")))),
        ("damaged", .int(Int64(count("damaged")))),
        ("errors", .int(Int64(unreadable))),
        ("shards", .optional(shards) { .int(Int64($0)) }),
      ])
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
    var traces: [Trace] = []
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

/// Any JSON value, decoded: objects with their keys sorted (JSON does not order them).
private struct DecodedJSON: Decodable {
  let value: JSONValue

  init(from decoder: any Decoder) throws {
    if var array = try? decoder.unkeyedContainer() {
      var values: [JSONValue] = []
      while !array.isAtEnd { values.append(try array.decode(DecodedJSON.self).value) }
      value = .array(values)
      return
    }
    if let object = try? decoder.container(keyedBy: AnyKey.self) {
      value = .object(
        try object.allKeys.sorted { $0.stringValue < $1.stringValue }.map {
          ($0.stringValue, try object.decode(DecodedJSON.self, forKey: $0).value)
        })
      return
    }
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      value = .null
    } else if let bool = try? single.decode(Bool.self) {
      value = .bool(bool)
    } else if let int = try? single.decode(Int64.self) {
      value = .int(int)
    } else if let uint = try? single.decode(UInt64.self) {
      value = .uint(uint)
    } else if let double = try? single.decode(Double.self) {
      value = .double(double)
    } else {
      value = .string(try single.decode(String.self))
    }
  }

  private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }
}
