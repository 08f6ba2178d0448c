import Foundation
import Retrace
import RetraceExamples
import RetraceTestSupport
import Testing

/// Replaying a corpus in shards (`replay --shard K/N`) and merging the shards' results
/// (`merge-results`), against one unsharded run of the same corpus.
@Suite struct ScaleTests {
  /// A corpus of 40 traces: 30 that verify (counter and banking), 4 recorded by a changed
  /// banking reducer (they diverge at their first overdraft), 4 truncated and 2 that are not
  /// traces at all.
  static func makeCorpus(in workspace: Workspace) throws {
    let directory = workspace.directory.appendingPathComponent("corpus")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for seed in 1...20 {
      let session = Fixtures.session(counterDomain, count: 200, seed: UInt64(seed))
      _ = try Fixtures.write(
        session, domain: counterDomain, named: "counter-\(seed).trace", in: directory)
    }
    for seed in 1...10 {
      let session = Fixtures.session(bankingDomain, count: 200, seed: UInt64(seed))
      _ = try Fixtures.write(
        session, domain: bankingDomain, named: "banking-\(seed).trace", in: directory)
    }
    // Seed 33 overdraws an account at 1069 (traces/README.md).
    let overdraft = Fixtures.session(bankingDomain, count: 1_200, seed: 33)
    for index in 1...4 {
      _ = try Fixtures.write(
        overdraft, domain: Fixtures.changedBanking, named: "changed-\(index).trace",
        in: directory)
    }
    for index in 1...4 {
      let whole = try Data(contentsOf: directory.appendingPathComponent("banking-\(index).trace"))
      try whole.prefix(whole.count * 2 / 3).write(
        to: directory.appendingPathComponent("torn-\(index).trace"))
    }
    try workspace.write("not a trace\n", to: "corpus/junk-1.trace")
    try workspace.write("", to: "corpus/junk-2.trace")
  }

  /// Each trace's status in `replay --json` output on several traces, by file.
  static func statuses(_ json: [String: Any]) throws -> [String: String] {
    let traces = try #require(json["traces"] as? [[String: Any]])
    var statuses: [String: String] = [:]
    for trace in traces {
      let file = try #require(trace["file"] as? String)
      #expect(statuses[file] == nil, "\(file) twice")
      statuses[file] = trace["status"] as? String
    }
    return statuses
  }

  static let counts = ["verified", "diverged", "unverified", "damaged", "errors"]

  @Test func fourShardsReplayEachTraceOnceAndMergeToTheUnshardedAnswer() throws {
    let workspace = try Workspace()
    try Self.makeCorpus(in: workspace)

    let whole = try workspace.run("replay corpus --verify --json")
    #expect(whole.exitCode == 1, "\(whole)")
    let wholeJSON = try whole.json()
    let wholeStatuses = try Self.statuses(wholeJSON)
    #expect(wholeStatuses.count == 40)
    #expect(wholeJSON["verified"] as? Int == 30)
    #expect(wholeJSON["diverged"] as? Int == 4)
    #expect(wholeJSON["damaged"] as? Int == 4)
    #expect(wholeJSON["errors"] as? Int == 2)

    var seen: [String: Int] = [:]
    for shard in 0..<4 {
      let result = try workspace.run("replay corpus --verify --json --shard \(shard)/4")
      try workspace.write(result.stdout, to: "shard-\(shard).json")
      let json = try result.json()
      let shardJSON = try #require(json["shard"] as? [String: Any])
      #expect(shardJSON["index"] as? Int == shard && shardJSON["count"] as? Int == 4)
      for (file, status) in try Self.statuses(json) {
        seen[file, default: 0] += 1
        #expect(status == wholeStatuses[file], "\(file)")
      }
    }
    // Exactly once each, and no shard took everything.
    #expect(seen.count == 40 && seen.values.allSatisfy { $0 == 1 })

    let merged = try workspace.run(
      "merge-results shard-3.json shard-1.json shard-0.json shard-2.json --json")
    #expect(merged.exitCode == whole.exitCode, "\(merged)")
    let mergedJSON = try merged.json()
    #expect(try Self.statuses(mergedJSON) == wholeStatuses)
    for key in Self.counts {
      #expect(mergedJSON[key] as? Int == wholeJSON[key] as? Int, "\(key)")
    }
    #expect(mergedJSON["shards"] as? Int == 4)

    // The text lists each divergence with its first diverging sequence number, then the
    // summary the unsharded run prints.
    let text = try workspace.run(
      "merge-results shard-0.json shard-1.json shard-2.json shard-3.json")
    let lines = text.stdout.split(separator: "\n").map(String.init)
    let wholeText = try workspace.run("replay corpus --verify")
    #expect(lines.last == wholeText.stdout.split(separator: "\n").last.map(String.init))
    // The divergences as the unsharded run says them.
    let divergences = lines.filter { $0.hasPrefix("DIVERGED") }
    #expect(divergences.count == 4)
    #expect(
      divergences
        == wholeText.stdout.split(separator: "\n").map(String.init).filter {
          $0.hasPrefix("DIVERGED")
        })
    #expect(divergences.allSatisfy { $0.contains(", among actions ") })
  }

  static func traces(_ json: [String: Any]) throws -> [[String: Any]] {
    try #require(json["traces"] as? [[String: Any]])
  }

  @Test func aShardIsTheSameWhateverTheOrderOrTheWayThePathsAreGiven() throws {
    let workspace = try Workspace()
    try Self.makeCorpus(in: workspace)
    let byDirectory = try Self.statuses(
      try workspace.run("replay corpus --verify --json --shard 1/3").json())
    let listed = try FileManager.default.contentsOfDirectory(atPath: workspace.path("corpus"))
      .map { "corpus/\($0)" }
    try workspace.write(listed.reversed().joined(separator: "\n") + "\n", to: "list.txt")
    let byList = try Self.statuses(
      try workspace.run("replay --from-list list.txt --verify --json --shard 1/3").json())
    #expect(byList == byDirectory)
    #expect(!byList.isEmpty)
    let fromStdin = try Self.statuses(
      try workspace.run(
        "replay --from-list - --verify --json --shard 1/3", input: listed.joined(separator: "\n")
      ).json())
    #expect(fromStdin == byDirectory)
  }

  @Test func aDryRunNamesTheShardsTracesWithoutReadingThem() throws {
    let workspace = try Workspace()
    // Keys of an object store: nothing is fetched yet.
    let keys = (1...200).map { "2026-11-25/session-\($0).trace" }
    try workspace.write(keys.joined(separator: "\n") + "\n", to: "keys.txt")
    var all: [String] = []
    for shard in 0..<5 {
      let result = try workspace.run("replay --from-list keys.txt --shard \(shard)/5 --dry-run")
      #expect(result.exitCode == 0, "\(result)")
      #expect(result.stderr.isEmpty)
      let paths = result.stdout.split(separator: "\n").map(String.init)
      #expect(!paths.isEmpty && paths.count < 100, "shard \(shard): \(paths.count) of 200")
      all += paths
    }
    #expect(all.sorted() == keys.sorted())
  }

  @Test func aShardWithNoTracesAnswersForNone() throws {
    let workspace = try Workspace()
    try workspace.write("", to: "empty.txt")
    let session = Fixtures.session(counterDomain, count: 50)
    _ = try Fixtures.write(
      session, domain: counterDomain, named: "one.trace", in: workspace.directory)
    // With one trace and 8 shards, 7 shards are empty: each says so and exits 0.
    var total = 0
    for shard in 0..<8 {
      let result = try workspace.run("replay one.trace --verify --shard \(shard)/8")
      #expect(result.exitCode == 0, "\(result)")
      total += result.stdout.contains("shard \(shard)/8: 1 trace: 1 verified") ? 1 : 0
    }
    #expect(total == 1)
    // As the manifests run it: the whole list, every shard's JSON, merged.
    try workspace.write("one.trace\n", to: "list.txt")
    var files: [String] = []
    for shard in 0..<8 {
      let result = try workspace.run(
        "replay --from-list list.txt --verify --json --shard \(shard)/8")
      #expect(result.exitCode == 0, "\(result)")
      try workspace.write(result.stdout, to: "r\(shard).json")
      files.append("r\(shard).json")
    }
    let merged = try workspace.run("merge-results " + files.joined(separator: " ") + " --json")
    #expect(merged.exitCode == 0, "\(merged)")
    #expect(try merged.json()["verified"] as? Int == 1)
    // An empty list is a fetch that failed, not a corpus that passed.
    let empty = try workspace.run("replay --from-list empty.txt --verify")
    #expect(empty.exitCode == 3)
    #expect(empty.stderr == "retrace: empty.txt: the list names no traces\n")
  }

  @Test func mergeRefusesMissingOverlappingAndBrokenResults() throws {
    let workspace = try Workspace()
    try Self.makeCorpus(in: workspace)
    for shard in 0..<3 {
      let result = try workspace.run("replay corpus --verify --json --shard \(shard)/3")
      try workspace.write(result.stdout, to: "shard-\(shard).json")
    }
    let missing = try workspace.run("merge-results shard-0.json shard-2.json")
    #expect(missing.exitCode == 3)
    #expect(missing.stdout.isEmpty)
    #expect(
      missing.stderr
        == "retrace: shard 1/3 is missing: its traces were not merged, so nothing can be said of them\n"
    )
    let twice = try workspace.run(
      "merge-results shard-0.json shard-1.json shard-2.json shard-1.json")
    #expect(twice.exitCode == 3)
    #expect(twice.stderr == "retrace: shard-1.json: shard 1/3 is also in shard-1.json\n")

    let unsharded = try workspace.run(
      "replay corpus/counter-1.trace corpus/counter-2.trace --verify --json")
    try workspace.write(unsharded.stdout, to: "plain.json")
    let overlap = try workspace.run("merge-results plain.json plain.json")
    #expect(overlap.exitCode == 3)
    #expect(
      overlap.stderr
        == "retrace: plain.json: trace corpus/counter-1.trace is also in plain.json: the shards overlap\n"
    )

    // A status `replay` never writes is not counted as passed; nor is a trace of another
    // shard.
    try workspace.write(
      #"{"traces":[{"file":"corpus/counter-1.trace","status":"fine"}],"verified":1}"#,
      to: "odd.json")
    let odd = try workspace.run("merge-results odd.json")
    #expect(odd.exitCode == 3)
    #expect(odd.stderr.contains(#"has status "fine""#))
    let shard0 = try String(contentsOfFile: workspace.path("shard-0.json"), encoding: .utf8)
    try workspace.write(
      shard0.replacingOccurrences(of: #""index":0"#, with: #""index":1"#), to: "moved.json")
    let moved = try workspace.run("merge-results moved.json shard-2.json shard-0.json")
    #expect(moved.exitCode == 3)
    #expect(moved.stderr.contains("is not in shard 1/3"), "\(moved)")

    try workspace.write("{\"traces\": [", to: "cut.json")
    let cut = try workspace.run("merge-results cut.json")
    #expect(cut.exitCode == 3)
    #expect(cut.stderr.hasPrefix("retrace: cut.json: not valid JSON"))
    #expect(cut.stderr.split(separator: "\n").count == 1)

    let bad = try workspace.run("replay corpus --shard 3/3")
    #expect(bad.exitCode == 2)
    #expect(bad.stderr.contains("K runs from 0 to N-1"))
    #expect(bad.stderr.split(separator: "\n").count == 1)
  }
}
