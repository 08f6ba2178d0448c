import ArgumentParser
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace diff`: what changed between two points of a trace, or where two traces part.
struct Diff: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show what changed between two points of a trace, or where two traces differ.",
    discussion: """
      With one trace: the state diff from --from to --to, field by field (exit 0). With two \
      traces of one domain: the first sequence number where their actions or states differ, \
      with the state diff there; exit 0 when identical, 1 when they differ.
      """)

  @Argument(help: "One trace, or two traces to compare.")
  var traces: [String]

  @Option(
    name: .long, parsing: .unconditional,
    help: "With one trace: the earlier sequence number (default: the start).",
    transform: sequenceNumber)
  var from: UInt64?

  @Option(
    name: .long, parsing: .unconditional,
    help: "With one trace: the later sequence number (default: the end).", transform: sequenceNumber
  )
  var to: UInt64?

  @Flag(
    name: .long,
    help:
      "With one trace: print all of a large change; by default it is shown in part, as keeps it readable."
  )
  var full = false

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  func validate() throws {
    guard (1...2).contains(traces.count) else {
      throw ValidationError("Give one trace (with --from and --to) or two traces to compare.")
    }
    if traces.count == 2 && (from != nil || to != nil) {
      throw ValidationError(
        "--from and --to apply to one trace; two traces are compared from the start.")
    }
    if traces.count == 2 && full {
      throw ValidationError(
        "--full applies to one trace; the diff where two traces part is always whole.")
    }
  }

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    // Two points of one trace need only the chunks from their snapshots on. Two traces are
    // read whole, checked first: "identical" is known only of sessions read to their ends.
    var file = try SessionFile.open(traces[0], usingIndex: traces.count == 1, key: key)
    let domain = try file.domain()
    if traces.count == 1 {
      try diffPoints(domain, file)
    } else {
      file = file.checked()
      let otherFile = try SessionFile.open(traces[1], key: key).checked()
      let other = try otherFile.domain()
      guard other.name == domain.name else {
        throw DebuggerError(
          .wrongDomain,
          "\(traces[0]) is a \(domain.name) trace and \(traces[1]) a \(other.name) trace; diff compares traces of one domain"
        )
      }
      try diffTraces(domain, file, otherFile)
    }
  }

  private func diffPoints<D: Domain>(_ domain: D, _ file: SessionFile) throws {
    let (from, to, old, new) = try file.states(as: domain, from: self.from, to: self.to)
    // JSON, like `state --json`, is always the whole diff.
    let diff = stateDiff(old, new, maxNodes: full || output.json ? .max : readableNodeCount)
    // The jumps that set the state after an action in (from, to]: their changes are in the
    // diff, and no action made them.
    var jumps: [UInt64] = []
    if case .trace(let reader) = file.content {
      jumps = reader.jumpSequences.filter { $0 > from && $0 <= to }
    }
    let unfinished = file.unfinished.map { " (\($0.text))" } ?? ""
    if output.json {
      let found = try Self.changes(from: old, to: new)
      print(
        try ReportJSON.text(
          PointsDiffReport(
            from: from, to: to, changed: diff != nil, diff: diff?.text,
            changes: found.changes, changesComplete: found.complete, jumpsAfter: jumps,
            unfinished: file.unfinished != nil,
            recoveredActions: file.unfinished?.recoveredActions ?? 0)))
    } else if let diff {
      print("state from \(from) to \(to)\(unfinished):".bold)
      print(Terminal.colorDiff(displayFormatted(diff.text, domain.displayFormats)))
      if !jumps.isEmpty {
        print(Self.jumpNote(jumps))
      }
      if !diff.isComplete {
        Terminal.writeError(
          "\(CommandContext.name): the change is large: shown in part (… marks the rest); --full prints all of it, --json too"
        )
      }
    } else {
      print("no change from \(from) to \(to)\(unfinished)")
      if !jumps.isEmpty { print(Self.jumpNote(jumps)) }
    }
  }

  /// The changes from `old` to `new`, in the shape of their JSON, as the Studio marks them
  /// (``StateChanges``), at most ``changeLimit``, and whether they are all of them: not when
  /// the limit cut them or a long array's items between its ends could not be compared.
  static func changes<State: Encodable & Equatable>(from old: State, to new: State) throws
    -> (changes: [JSONFragment], complete: Bool)
  {
    // Equal states have no change, wherever the diff could not have looked.
    if old == new { return ([], true) }
    let diff = try StateChanges(from: old, to: new, limit: changeLimit)
    return (try diff.changes.map { try JSONFragment(json: $0.json.text) }, diff.isComplete)
  }

  /// The most changes `--json` lists: a whole state's worth of items added between two far
  /// points of a long session would be larger than the answer is useful.
  static let changeLimit = 100_000

  /// What a diff across time-travel jumps says with it: the change is not the actions' alone.
  static func jumpNote(_ jumps: [UInt64]) -> String {
    let listed = jumps.prefix(5).map(String.init).joined(separator: ", ")
    let more = jumps.count > 5 ? " and \(jumps.count - 5) more" : ""
    return
      "(time-travel jumps after action\(jumps.count == 1 ? "" : "s") \(listed)\(more) set the state in this range: the change is not the actions' alone)"
  }

  private func diffTraces<D: Domain>(_ domain: D, _ file: SessionFile, _ otherFile: SessionFile)
    throws
  {
    let first = try file.debugger(as: domain)
    let second = try otherFile.load(as: domain)
    let writer = JSONLines.ActionWriter<D.Action>()
    func json(_ action: TimedAction<D.Action>?) throws -> JSONFragment? {
      guard let action, let text = try? writer.json(for: action.action) else { return nil }
      return try JSONFragment(json: text)
    }
    // A session that never closed ends where its recording stopped: where one "has ended"
    // may be only that.
    let unfinished = [(traces[0], file), (traces[1], otherFile)].compactMap { path, file in
      file.unfinished.map { (path, $0) }
    }
    // Damage in either: the actions after it were not compared, whatever the answer.
    let notWhole = [
      (traces[0], file, first.session.actions.count), (traces[1], otherFile, second.actions.count),
    ].compactMap { path, file, count in
      file.notWhole(intactActions: count).map { (path, $0) }
    }
    // Where a trace that could not be read whole ends, nothing is known to differ: the
    // actions after its damage were not read.
    let damaged = Set(notWhole.map(\.0))
    var difference = first.firstDifference(with: second)
    if let reason = difference?.reason,
      (reason == .onlyInFirst && damaged.contains(traces[1]))
        || (reason == .onlyInSecond && damaged.contains(traces[0]))
    {
      difference = nil
    }
    let starts = (first.session.startSequence, second.startSequence)
    if output.json {
      let found = try difference.map {
        try Self.changes(from: $0.states.first, to: $0.states.second)
      }
      print(
        try ReportJSON.text(
          TracesDiffReport(
            firstDifference: difference?.sequence, reason: difference?.reason.rawValue,
            statesAfter: difference.map { [$0.statesAfter.first, $0.statesAfter.second] },
            starts: [starts.0, starts.1],
            first: try json(difference?.first), second: try json(difference?.second),
            stateDiff: difference?.stateDiff,
            changes: found?.changes ?? [], changesComplete: found?.complete ?? true,
            unfinished: !unfinished.isEmpty,
            unfinishedTraces: unfinished.map { path, unfinished in
              TracesDiffReport.UnfinishedTrace(
                file: path, recoveredActions: unfinished.recoveredActions)
            }, readWhole: notWhole.isEmpty,
            damagedTraces: notWhole.map { path, integrity in
              TracesDiffReport.DamagedTrace(file: path, integrity: IntegrityJSON(integrity))
            })))
    } else if let difference {
      let what: String
      switch difference.reason {
      case .initialState:
        what =
          starts.0 == starts.1
          ? "they start from different states"
          : "they start at different points (\(traces[0]) after action \(starts.0), \(traces[1]) after action \(starts.1))"
      case .action: what = "their actions differ"
      case .onlyInFirst: what = "\(traces[1]) has ended"
      case .onlyInSecond: what = "\(traces[0]) has ended"
      case .jump: what = "a time-travel jump after it is in one only, or sets another state"
      }
      print("first difference at \(difference.sequence): \(what)".bold)
      if starts.0 != starts.1, difference.reason != .initialState {
        print(
          "(they start at different points, \(traces[0]) after action \(starts.0) and \(traces[1]) after action \(starts.1); their states after \(max(starts.0, starts.1)) are equal, and their actions are compared from there)"
            .oneLine())
      }
      for (path, action) in [(traces[0], difference.first), (traces[1], difference.second)] {
        let description = action.map {
          writer.text(for: $0.action) + ActionDisplayFormats(domain).note(for: $0.action)
        }
        print("  \(path): \(description ?? "(no action)")".oneLine())
      }
      let after = difference.statesAfter
      let point =
        after.first == after.second
        ? "after \(after.first)"
        : "after \(after.first) in \(traces[0]) and after \(after.second) in \(traces[1])"
      if let stateDiff = difference.stateDiff {
        print("state \(point), from \(traces[0]) to \(traces[1]):")
        print(Terminal.colorDiff(displayFormatted(stateDiff, domain.displayFormats)))
      } else {
        print("the states \(point) are equal")
      }
    } else if notWhole.isEmpty {
      print("identical: \(first.session.actions.count) actions")
    } else {
      print(
        "no difference in the \(min(first.session.actions.count, second.actions.count)) actions read, but the sessions could not be read whole, so the actions after the damage were not compared"
          .red)
    }
    if !output.json {
      for (path, integrity) in notWhole {
        print("(\(path.oneLine()) could not be read whole: \(integrity.summary.oneLine()))")
      }
      for (path, unfinished) in unfinished {
        print(
          "(\(path.oneLine()): \(unfinished.text): it never closed, so it ends where the recording stopped)"
        )
      }
    }
    if difference != nil || !notWhole.isEmpty {
      throw ExitCode(RetraceExitCode.negative.rawValue)
    }
  }
}
