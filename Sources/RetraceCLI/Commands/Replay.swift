import ArgumentParser
import Foundation
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace replay`: replays traces with the domain's reducer, and with `--verify` checks
/// that it still produces the recorded states.
struct Replay: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Replay traces with the domain's reducer; with --verify, check the recorded state hashes.",
    discussion: """
      With --verify, the trace is first checked as `verify` checks it, then every \
      recorded checkpoint and snapshot hash is compared with the hash of the replayed state. \
      "verified" means every hash matched and every action is covered by one; otherwise the \
      answer is "diverged" (the first mismatch, the window of actions where it happened, and \
      the state diff when a snapshot holds the recorded state), "unverified" (actions after \
      the last hash, such as a crashed session's tail, were not checked, or the session \
      holds no actions, so nothing was) or "damaged" (the \
      intact part was checked, nothing after the damage was), each with exit 1. A session \
      that never closed (it crashed) is called unfinished in every answer, with how many of \
      its actions came from its journal; "verified" then means every action it holds is \
      covered, not that it holds every action the app sent. With --as, \
      a divergence is then named exactly: the trace is replayed through both reducers side \
      by side over the window, when the domain its header names is registered too. Give \
      many traces, or directories (searched for .trace and .jsonl files), to verify a corpus \
      in parallel: one line per trace, a summary, exit 1 if any is not verified (3 if every \
      other one is verified but some could not be read). Beyond one machine, --shard K/N \
      replays the traces of shard K of N, so that N workers given the same paths replay each \
      trace exactly once; `merge-results` combines their --json outputs (docs/SCALE.md).
      """)

  @Argument(help: "The traces to replay, or directories that hold them.")
  var traces: [String] = []

  @Option(
    name: .customLong("from-list"),
    help: ArgumentHelp(
      "Also replay the traces (or directories) this file names, one per line; - reads stdin.",
      valueName: "file"))
  var fromList: String?

  @Option(
    name: .long, parsing: .unconditional,
    help: ArgumentHelp(
      "Replay only shard K (0 to N-1) of N: the traces whose path hashes to K.",
      discussion:
        "Each of N workers given the same paths replays its shard; together they replay each trace exactly once.",
      valueName: "K/N"),
    transform: Shard.parse)
  var shard: Shard?

  @Flag(
    name: .customLong("dry-run"),
    help: ArgumentHelp(
      "Print the paths this run would replay, one per line, and replay nothing.",
      discussion:
        "With --shard and --from-list, a worker learns which traces of a list to fetch: the paths need not exist yet."
    ))
  var dryRun = false

  @Option(
    name: .long, parsing: .unconditional,
    help: "Replay up to this sequence number (one trace, without --verify).",
    transform: sequenceNumber)
  var to: UInt64?

  @Flag(
    name: .long,
    help: "Compare every recorded checkpoint and snapshot hash with the replayed state.")
  var verify = false

  @Option(name: .long, help: "How many traces to replay at once (default: the number of cores).")
  var jobs: Int?

  @Option(
    name: .customLong("as"),
    help: ArgumentHelp(
      "Replay with this registered domain's reducer instead of the one the trace's header names.",
      discussion:
        "Its action and state types must read the trace, as a changed version of the domain's would.",
      valueName: "domain"))
  var replacement: String?

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  func validate() throws {
    guard !traces.isEmpty || fromList != nil else {
      throw ValidationError("Give at least one trace, or --from-list.")
    }
    if to != nil && verify {
      throw ValidationError("--to replays part of a trace; --verify checks all of it. Choose one.")
    }
    if to != nil && (traces.count > 1 || fromList != nil || shard != nil) {
      throw ValidationError("--to applies to one trace.")
    }
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, not \(jobs).") }
  }

  mutating func run() async throws {
    Terminal.configureColor(colorOptions)
    let key = try keyOptions.load()
    var arguments = traces
    if let fromList {
      let listed = try pathsListed(in: fromList)
      // An empty list is a fetch that failed rather than a corpus that passed.
      guard !listed.isEmpty else {
        throw TraceError(.notFound, "the list names no traces", path: fromList)
      }
      arguments += listed
    }
    var paths = try Self.expand(arguments)
    if let shard { paths = paths.filter(shard.contains) }
    if dryRun {
      for path in paths { print(path) }
      return
    }
    if paths.count == 1 && !isDirectoryArgument && fromList == nil && shard == nil {
      try await replaySingle(paths[0], key: key)
    } else {
      try await replayMany(paths, key: key)
    }
  }

  private var isDirectoryArgument: Bool {
    traces.contains { path in
      var isDirectory: ObjCBool = false
      return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        && isDirectory.boolValue
    }
  }

  // MARK: - One trace

  private func replaySingle(_ path: String, key: TracePrivateKey?) async throws {
    let outcome = try Self.replay(
      path, verify: verify, to: to, as: replacement, key: key, showProgress: true)
    if output.json {
      print(try ReportJSON.text(outcome.report))
    } else {
      print(outcome.humanReport)
    }
    if outcome.status.isNegative { throw ExitCode(RetraceExitCode.negative.rawValue) }
  }

  // MARK: - Many traces

  private func replayMany(_ paths: [String], key: TracePrivateKey?) async throws {
    let jobs = self.jobs ?? ProcessInfo.processInfo.activeProcessorCount
    let verify = self.verify
    let replacement = self.replacement
    let json = output.json
    let bar = ProgressBar(verify ? "verifying" : "replaying")
    var outcomes = [Int: Result<Outcome, any Error>]()
    var nextToPrint = 0
    var results: [Result<Outcome, any Error>] = []
    let width = paths.map(\.count).max() ?? 0
    let shard = self.shard

    func printReady() {
      while let result = outcomes.removeValue(forKey: nextToPrint) {
        results.append(result)
        if !json { print(Self.line(for: result, path: paths[nextToPrint], width: width)) }
        nextToPrint += 1
      }
    }

    await withTaskGroup(of: (Int, Result<Outcome, any Error>).self) { group in
      var started = 0
      func startNext() {
        guard started < paths.count else { return }
        let index = started
        let path = paths[index]
        group.addTask {
          do {
            return (
              index,
              .success(
                try Self.replay(
                  path, verify: verify, to: nil, as: replacement, key: key, showProgress: false)
              )
            )
          } catch {
            return (index, .failure(error))
          }
        }
        started += 1
      }
      for _ in 0..<min(jobs, paths.count) { startNext() }
      while let (index, result) = await group.next() {
        outcomes[index] = result
        bar.update(outcomes.count + results.count, paths.count)
        printReady()
        startNext()
      }
    }
    bar.finish()

    func count(_ status: Outcome.Status) -> Int {
      results.filter { if case .success(let o) = $0 { o.status == status } else { false } }.count
    }
    let diverged = count(.diverged)
    let unverified = count(.unverified)
    let damaged = count(.damaged)
    let failed = results.filter { if case .failure = $0 { true } else { false } }.count
    let passed = results.count - diverged - unverified - damaged - failed
    let negative = diverged + unverified + damaged
    if json {
      let reports = zip(paths, results).map { path, result in
        switch result {
        case .success(let outcome): outcome.report
        case .failure(let error): ReplayReport(file: path, status: "error", error: "\(error)")
        }
      }
      let report = ReplayManyReport(
        traces: reports,
        counts: ReplayCounts(
          verify: verify, passed: passed, diverged: diverged, unverified: unverified,
          damaged: damaged, errors: failed),
        part: shard.map { ReplayShard(index: $0.index, count: $0.count) })
      print(try ReportJSON.text(report))
    } else {
      var summary =
        (shard.map { "shard \($0.description): " } ?? "")
        + "\(results.count) trace\(results.count == 1 ? "" : "s"): \(passed) \(verify ? "verified" : "replayed"), \(diverged) diverged"
      if verify { summary += ", \(unverified) unverified, \(damaged) damaged" }
      summary += ", \(failed) unreadable"
      print(negative + failed == 0 ? summary.green : summary.red)
    }
    if negative > 0 { throw ExitCode(RetraceExitCode.negative.rawValue) }
    if failed > 0 { throw ExitCode(RetraceExitCode.file.rawValue) }
  }

  private static func line(for result: Result<Outcome, any Error>, path: String, width: Int)
    -> String
  {
    let name = path.oneLine().padding(toLength: width, withPad: " ", startingAt: 0)
    // The labels padded to one width, so that the names line up.
    func label(_ text: String) -> String { text.padding(toLength: 10, withPad: " ", startingAt: 0) }
    switch result {
    case .success(let outcome):
      switch outcome.status {
      case .diverged:
        let exact =
          outcome.lockstep.map {
            "first different after action \($0.sequence) (\($0.actionCase))"
          } ?? ""
        guard let divergence = outcome.divergence else {
          return label("DIVERGED").red
            + "  \(name)  every recorded hash reproduced, but side by side \(exact)"
        }
        return label("DIVERGED").red
          + "  \(name)  at \(divergence.kind.rawValue) \(divergence.sequence), among actions \(divergence.window)\(exact.isEmpty ? "" : ", " + exact)"
      case .unverified:
        return label("UNVERIFIED").red + "  \(name)  " + outcome.coverageText
          + outcome.unfinishedSuffix
      case .damaged:
        return label("DAMAGED").red + "  \(name)  "
          + (outcome.integrity?.summary ?? "damaged").oneLine() + outcome.unfinishedSuffix
      case .verified:
        return label("ok").green + "  \(name)  " + outcome.countsText + outcome.unfinishedSuffix
      case .replayed:
        return label("replayed").green + "  \(name)  " + outcome.countsText
          + outcome.unfinishedSuffix
      }
    case .failure(let error):
      return label("ERROR").red + "  \(name)  " + "\(error)".oneLine()
    }
  }

  /// Expands directories into the traces they hold, sorted by path; a path given twice is
  /// kept once.
  static func expand(_ arguments: [String]) throws(TraceError) -> [String] {
    var paths: [String] = []
    for argument in arguments {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory),
        isDirectory.boolValue
      else {
        paths.append(argument)
        continue
      }
      guard let enumerator = FileManager.default.enumerator(atPath: argument) else {
        throw TraceError(.io, "cannot list the directory", path: argument)
      }
      var found: [String] = []
      while let relative = enumerator.nextObject() as? String {
        if relative.hasSuffix(".trace") || relative.hasSuffix(".jsonl") {
          found.append((argument as NSString).appendingPathComponent(relative))
        }
      }
      if found.isEmpty {
        throw TraceError(.notFound, "no .trace or .jsonl files in the directory", path: argument)
      }
      paths += found.sorted()
    }
    // A path given twice (a list with a repeated line) is replayed once.
    var seen = Set<String>()
    return paths.filter { seen.insert($0).inserted }
  }

  // MARK: - Replaying one trace

  /// What replaying one trace found.
  struct Outcome: Sendable {
    /// The answer, as `status` in the JSON.
    enum Status: String, Sendable {
      /// Every recorded hash reproduced, every action covered by one, the trace intact.
      case verified
      /// A recorded hash was not reproduced.
      case diverged
      /// Every recorded hash reproduced, but some actions are covered by none, or there
      /// were no actions to check.
      case unverified
      /// The trace is damaged or truncated; only its intact part was checked.
      case damaged
      /// Replayed without --verify.
      case replayed

      /// Whether the answer is "no" (exit 1).
      var isNegative: Bool { self == .diverged || self == .unverified || self == .damaged }
    }

    var path: String
    var domain: String
    var actions: Int
    var replayedTo: UInt64
    var seconds: Double
    var checkpoints: Int
    var snapshots: Int
    var divergence: Divergence?
    var stateHash: UInt64?
    /// The time-travel jumps the replay followed: states set without an action.
    var jumps = 0
    /// The domain whose reducer replayed the trace, when `--as` named one.
    var replacement: String?
    /// The domain's display formats, for the diffs the report shows (never in `--json`).
    var displayFormats: [String: DisplayFormat] = [:]
    /// The last action covered by a reproduced hash (with --verify).
    var coveredThrough: UInt64?
    /// Actions after the last reproduced hash (with --verify).
    var uncoveredActions = 0
    /// The trace's integrity by every check (with --verify); `nil` for JSON Lines.
    var integrity: IntegrityReport?
    /// Whether the file holds hashes at all (JSON Lines do not).
    var holdsHashes = true
    /// The exact first difference, from replaying both reducers side by side (with --as).
    var lockstep: LockstepDivergence?
    /// The domain the lockstep compared with: the one the trace's header names.
    var lockstepAgainst: String?
    /// Whether every action's state was compared side by side with the recording's reducer
    /// (`--as`, with the domain the trace names registered too).
    var comparedSideBySide = false
    /// Whether the session never closed, and what came from its journal.
    var unfinished: SessionFile.Unfinished?

    var status: Status {
      if divergence != nil || lockstep != nil { return .diverged }
      guard coveredThrough != nil else { return .replayed }
      if let integrity, !integrity.isIntact { return .damaged }
      return uncoveredActions > 0 || nothingChecked ? .unverified : .verified
    }

    /// Whether verifying had no action to check: a session without actions is not
    /// verified, whatever hash of its starting state it holds.
    var nothingChecked: Bool { coveredThrough != nil && actions == 0 && divergence == nil }

    /// ` (unfinished session: N actions recovered from the journal)`, or nothing for a
    /// closed session: what a line about the trace ends with. A torn trace's "truncated"
    /// says it already, unless its journal gave actions too.
    var unfinishedSuffix: String {
      guard let unfinished, status != .damaged || unfinished.recoveredActions > 0 else {
        return ""
      }
      return " (\(unfinished.text))"
    }

    var hashes: Int { checkpoints + snapshots }

    var countsText: String {
      let counted =
        "\(actions) action\(actions == 1 ? "" : "s")"
        + (jumps > 0 ? " and \(jumps) time-travel jump\(jumps == 1 ? "" : "s")" : "")
      guard coveredThrough != nil else { return counted }
      return
        "\(counted) against \(hashes) hash\(hashes == 1 ? "" : "es") (\(checkpoints) checkpoint\(checkpoints == 1 ? "" : "s"), \(snapshots) snapshot\(snapshots == 1 ? "" : "s"))"
    }

    /// Which actions no hash covers, and why.
    var coverageText: String {
      if nothingChecked { return "it holds no actions: nothing was checked" }
      guard let coveredThrough, uncoveredActions > 0 else { return countsText }
      let first = coveredThrough + 1
      let last = coveredThrough + UInt64(uncoveredActions)
      let why =
        !holdsHashes
        ? "JSON Lines hold no state hashes"
        : integrity?.status == .unfinished
          ? "the session did not close, and no hash reached its journal after action \(coveredThrough)"
          : "the recording holds no hash after action \(coveredThrough)"
      let checked = actions - uncoveredActions
      if jumps > 0 {
        // Actions before a jump that no hash covers are not one run after coveredThrough.
        return
          "\(uncoveredActions) of \(actions) actions, the first after action \(coveredThrough), were replayed but covered by no hash (a time-travel jump came before a hash of them, or \(why)); "
          + "the \(checked) others verified against \(hashes) hash\(hashes == 1 ? "" : "es")"
      }
      let before =
        checked == 0
        ? "no action before them was checked"
          + (holdsHashes && hashes > 0 ? " (the starting state matched its hash)" : "")
        : "the \(checked) before them verified against \(hashes) hash\(hashes == 1 ? "" : "es")"
      return
        "actions \(first)...\(last) (\(uncoveredActions) of \(actions)) were replayed but covered by no hash (\(why)); "
        + before
    }

    /// The report of a divergence that only the side by side replay found: every recorded
    /// hash reproduced, and the states differed between two of them.
    private func sideBySideReport(unfinished: String) -> String {
      guard let lockstep, let against = lockstepAgainst else { return "" }
      var lines = [
        "DIVERGED".red.bold
          + "\(unfinished) \(path)\(replacement.map { " (replayed as \($0))" } ?? ""): every recorded hash (\(hashes)) reproduced, but replayed side by side with \(against) the states first differ after action \(lockstep.sequence) (\(lockstep.actionCase))"
      ]
      if let diff = lockstep.stateDiff {
        lines.append(
          "\(against) (-) and \(replacement ?? domain) (+) after action \(lockstep.sequence):")
        lines.append(Terminal.colorDiff(displayFormatted(diff, displayFormats)))
      }
      return lines.joined(separator: "\n")
    }

    /// How to name the exact action, when the divergence lies among several and no side by
    /// side replay named it.
    var narrowingHint: String? {
      guard let divergence, lockstep == nil, divergence.window.count > 1 else { return nil }
      return
        "to name the exact action among them: replay it side by side with the reducer that recorded it (--as NAME, with the recording's domain registered in the same \(CommandContext.name)), or bisect an invariant the wrong state breaks (\(CommandContext.name) bisect \(path) --invariant NAME)"
    }

    /// The trace's `--json` report.
    var report: ReplayReport {
      let details = ReplayReport.Details(
        domain: domain, actions: actions, replayedTo: replayedTo, seconds: seconds,
        checkpoints: checkpoints, snapshots: snapshots, hashes: hashes,
        // Only for a session with jumps, so that every other answer stays as it was.
        jumps: jumps > 0 ? jumps : nil,
        coveredThrough: coveredThrough, uncoveredActions: uncoveredActions,
        integrity: integrity.map(IntegrityJSON.init), unfinished: unfinished != nil,
        recoveredActions: unfinished?.recoveredActions ?? 0, nothingChecked: nothingChecked,
        stateHash: stateHash.map(hex),
        divergence: divergence.map { divergence in
          ReplayReport.Divergence(
            sequence: divergence.sequence, kind: divergence.kind.rawValue,
            recordedHash: hex(divergence.recordedHash),
            replayedHash: hex(divergence.replayedHash),
            windowStart: divergence.window.lowerBound, windowEnd: divergence.window.upperBound,
            stateDiff: divergence.stateDiff, hint: narrowingHint)
        },
        sideBySide: comparedSideBySide ? lockstepAgainst : nil,
        lockstep: lockstep.map { lockstep in
          ReplayReport.Lockstep(
            against: lockstepAgainst, sequence: lockstep.sequence,
            actionCase: lockstep.actionCase, hash: hex(lockstep.hash),
            otherHash: hex(lockstep.otherHash), stateDiff: lockstep.stateDiff)
        })
      return ReplayReport(file: path, status: status.rawValue, details: details)
    }

    var humanReport: String {
      let rate = seconds > 0 ? Double(actions) / seconds : 0
      let timing = String(format: "in %.1f ms (%.0f actions/s)", seconds * 1000, rate)
      // Said first, with the answer: a session that never closed is never shown as one that
      // did.
      let unfinished = unfinishedSuffix
      switch status {
      case .diverged:
        guard let divergence else { return sideBySideReport(unfinished: unfinished) }
        var lines = [
          "DIVERGED".red.bold
            + "\(unfinished) \(path)\(replacement.map { " (replayed as \($0))" } ?? ""): the \(divergence.kind.rawValue) at \(divergence.sequence) does not match: recorded hash \(hex(divergence.recordedHash)), replayed \(hex(divergence.replayedHash))",
          divergence.lastMatch.map {
            "the divergence shows among actions \(divergence.window.lowerBound)...\(divergence.window.upperBound)"
              + " (the last matching record is at \($0); hashes do not see a difference undone before a matching one)"
          }
            ?? "the state the session starts from (after \(divergence.sequence)) does not match its recorded hash: no action was replayed before the mismatch",
        ]
        if let hint = narrowingHint { lines.append(hint) }
        if let lockstep, let against = lockstepAgainst {
          lines.append(
            "replayed side by side with \(against): the states first differ after action \(lockstep.sequence) (\(lockstep.actionCase))"
          )
          if let diff = lockstep.stateDiff {
            lines.append(
              "\(against) (-) and \(replacement ?? domain) (+) after action \(lockstep.sequence):")
            lines.append(Terminal.colorDiff(displayFormatted(diff, displayFormats)))
          }
        }
        if let diff = divergence.stateDiff {
          lines.append("recorded state (-) and replayed state (+) at \(divergence.sequence):")
          lines.append(Terminal.colorDiff(displayFormatted(diff, displayFormats)))
        } else if lockstep == nil {
          lines.append("no snapshot at \(divergence.sequence) holds the recorded state, so no diff")
        }
        if let integrity, !integrity.isIntact {
          lines.append("the trace is also \(integrity.summary.oneLine())")
        }
        return lines.joined(separator: "\n")
      case .damaged:
        var line =
          "DAMAGED".red.bold + "\(unfinished) \(path): "
          + (integrity?.summary ?? "damaged").oneLine()
        line +=
          "; the intact part: " + (uncoveredActions > 0 ? coverageText : "\(countsText) reproduced")
        return line + ", " + timing + "; nothing after the damage was checked"
      case .unverified:
        return "UNVERIFIED".red.bold + "\(unfinished) \(path): " + coverageText + ", " + timing
      case .verified:
        let sideBySide =
          comparedSideBySide
          ? ", and every state equal side by side with \(lockstepAgainst ?? "the recording's reducer")"
          : ""
        return "verified".green.bold
          + "\(unfinished) \(path): \(countsText) reproduced\(sideBySide), "
          + timing
      case .replayed:
        return "replayed \(actions) \(domain) actions of \(path) to \(replayedTo) " + timing
          + (stateHash.map { "; state hash \(hex($0))" } ?? "")
          + (self.unfinished.map { "; \($0.text)" } ?? "")
      }
    }
  }

  static func replay(
    _ path: String, verify: Bool, to: UInt64?, as replacement: String?, key: TracePrivateKey?,
    showProgress: Bool
  ) throws -> Outcome {
    // Verifying reads what every check finds intact, and says what that was.
    let opened = try SessionFile.open(path, key: key)
    let file = verify ? opened.checked() : opened
    guard let replacement else {
      return try replay(
        file, domain: try file.domain(), verify: verify, to: to, showProgress: showProgress)
    }
    let base = try CommandContext.registry.domain(named: replacement)
    if let recorded = try? file.domain(), !Self.sameTypes(base, recorded) {
      throw DebuggerError(
        .wrongDomain,
        "domain '\(replacement)' cannot replay a trace of domain '\(file.domainName)': their state or action types differ",
        path: path)
    }
    // The replacement reads the trace under the name in its header.
    let domain = base.renamed(file.domainName)
    let partner = (try? file.domain()).map { (name: file.domainName, domain: $0) }
    var outcome = try replay(
      file, domain: domain, verify: verify, to: to, showProgress: showProgress,
      lockstepPartner: partner)
    outcome.replacement = replacement
    outcome.domain = replacement
    return outcome
  }

  private static func sameTypes<A: Domain, B: Domain>(_ a: A, _ b: B) -> Bool {
    A.State.self == B.State.self && A.Action.self == B.Action.self
  }

  private static func replay<D: Domain>(
    _ file: SessionFile, domain: D, verify: Bool, to: UInt64?, showProgress: Bool,
    lockstepPartner: (name: String, domain: any Domain)? = nil
  ) throws -> Outcome {
    let path = file.path
    let debugger = try file.debugger(as: domain)
    let bar = ProgressBar("replaying \(path)", enabled: showProgress && Terminal.stderrIsTerminal)
    defer { bar.finish() }
    let start = Date()
    if verify {
      let report = debugger.verify(progress: bar.callback)
      var outcome = Outcome(
        path: path, domain: domain.name, actions: report.actionsReplayed,
        replayedTo: debugger.session.startSequence + UInt64(report.actionsReplayed),
        seconds: Date().timeIntervalSince(start), checkpoints: report.checkpointsChecked,
        snapshots: report.snapshotsChecked, divergence: report.divergence, stateHash: nil)
      outcome.displayFormats = domain.displayFormats
      outcome.coveredThrough = report.coveredThrough
      outcome.jumps = report.jumpsFollowed
      outcome.uncoveredActions = report.uncoveredActions
      outcome.integrity = file.traceIntegrity
      outcome.holdsHashes = file.traceIntegrity != nil
      outcome.unfinished = file.unfinished
      if let divergence = report.divergence, let partner = lockstepPartner,
        let recorded = partner.domain as? any Domain<D.State, D.Action>
      {
        // Side by side from the start through the first hash that does not match: the
        // hashes before it matched, but a difference undone before one of them does not
        // show in hashes, and the first difference is what the answer names.
        outcome.lockstep = try debugger.lockstep(
          against: recorded, through: divergence.window.upperBound)
        outcome.lockstepAgainst = partner.name
      } else if report.divergence == nil, let partner = lockstepPartner,
        let recorded = partner.domain as? any Domain<D.State, D.Action>
      {
        // Hashes see the states at their points only: a change undone before the next one
        // (a state wrong after action 78, right again at 80) passes them. Side by side, every
        // state is compared.
        outcome.lockstep = try debugger.lockstep(against: recorded)
        outcome.lockstepAgainst = partner.name
        outcome.comparedSideBySide = true
      }
      return outcome
    }
    let end = to ?? debugger.session.endSequence
    let state: D.State
    do {
      state = try debugger.replay(to: end, progress: bar.callback)
    } catch {
      throw error.at(path: path)
    }
    var outcome = Outcome(
      path: path, domain: domain.name, actions: Int(end - debugger.session.startSequence),
      replayedTo: end,
      seconds: Date().timeIntervalSince(start), checkpoints: 0, snapshots: 0, divergence: nil,
      stateHash: debugger.stateHash(state))
    outcome.jumps = debugger.session.jumps.count { $0.sequence <= end }
    outcome.displayFormats = domain.displayFormats
    outcome.unfinished = file.unfinished
    return outcome
  }
}

/// A hash as `0x` and 16 hex digits.
func hex(_ value: UInt64) -> String {
  let digits = String(value, radix: 16)
  return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
}
