import ArgumentParser
import Foundation
@preconcurrency import Rainbow
import Retrace
import RetraceCheck
import RetraceDebugger
import RetraceLog

/// `retrace check`: model-check a domain before any user finds the bug.
struct Check: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Model-check a domain: search its action sequences for an invariant's failure.",
    discussion: """
      Breadth-first from the initial state over the domain's exploration actions, states \
      told apart by a 64-bit fingerprint, every invariant checked in every state reached. \
      A violation prints a shortest action sequence that reaches it (written as a trace \
      with --output, as a Swift Testing test with --emit-test); exit 1. Exit 0 when the \
      bound was searched completely with no violation: every state within --depth actions, \
      or every reachable state. Exit 1 too when --max-states stopped the search first, \
      since the states left were not checked. --random walks the space at random instead, \
      for spaces too large to enumerate, and shrinks what it finds. --reach NAME searches \
      for a state where the domain's predicate NAME holds: exit 0 with a shortest path to \
      it, exit 1 when no state within the bound has it. See docs/CHECKING.md.
      """)

  @Argument(help: "The domain to check (see the `domains` command).")
  var domain: String

  @Option(
    name: .long,
    help: "An invariant to check (repeatable; default: all of the domain's invariants).")
  var invariant: [String] = []

  @Option(
    name: .long, parsing: .unconditional,
    help: "The most actions in a sequence (default: no limit).")
  var depth: Int?

  @Option(
    name: .long, parsing: .unconditional,
    help:
      "The most distinct states to keep (default 1,000,000, at most 4,294,967,294); memory grows with it."
  )
  var maxStates: Int?

  @Option(
    name: .long, parsing: .unconditional,
    help: "The number of tasks that compute successor states at once (default 1).")
  var jobs: Int?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "How states are told apart: structure (every encoded field, hashed as the state encodes), state-hash (the same fields, by the trace's state hash; slower) or hashable (faster; only for a state whose hash(into:) combines every field). Default: hashable for a domain that declares statesHashEveryField, else structure.",
      valueName: "kind"))
  var fingerprint: StateFingerprint?

  @Flag(name: .long, help: "Walk the state space at random instead of searching it all.")
  var random = false

  @Option(
    name: .long, parsing: .unconditional, help: "With --random: the number of walks (default 100).")
  var runs: Int?

  @Option(
    name: .long, parsing: .unconditional,
    help: "With --random: the most actions in a walk (default 100, at most 10,000,000).")
  var length: Int?

  @Option(
    name: .long, parsing: .unconditional,
    help: "With --random: the seed of the first walk (walk r uses seed + r; default 1).")
  var seed: UInt64?

  @Option(
    name: .long,
    help: "Search for a state where this predicate of the domain holds, not for violations.")
  var reach: String?

  @Option(
    name: .shortAndLong,
    help: "Write the counterexample (or the path --reach found) to this trace.",
    transform: outputName)
  var output: String?

  @Flag(
    name: .long,
    help: "Print a Swift Testing test that replays the counterexample (the summary goes to stderr)."
  )
  var emitTest = false

  @Option(
    name: .long,
    help: "With --emit-test: the Swift expression for the domain value (default: <domain>Domain).")
  var domainExpression: String?

  @OptionGroup var json: JSONOptions
  @OptionGroup var formatOptions: TraceFormatOptions
  @OptionGroup var colorOptions: ColorOptions

  func validate() throws {
    if let depth, depth < 0 { throw ValidationError("--depth must be 0 or more, not \(depth).") }
    let maximum = ModelChecker<AnyCheckedDomain>.maximumStates
    if let maxStates, !(1...maximum).contains(maxStates) {
      throw ValidationError("--max-states must be from 1 to \(maximum), not \(maxStates).")
    }
    if let jobs, !(1...256).contains(jobs) {
      throw ValidationError("--jobs must be from 1 to 256, not \(jobs).")
    }
    if let runs, runs < 0 { throw ValidationError("--runs must be 0 or more, not \(runs).") }
    let longest = ModelChecker<AnyCheckedDomain>.maximumLength
    if let length, !(0...longest).contains(length) {
      throw ValidationError("--length must be from 0 to \(longest), not \(length).")
    }
    if random {
      if reach != nil || depth != nil || maxStates != nil || jobs != nil || fingerprint != nil {
        throw ValidationError(
          "--random walks at random: not with --reach, --depth, --max-states, --jobs or --fingerprint."
        )
      }
    } else if runs != nil || length != nil || seed != nil {
      throw ValidationError("--runs, --length and --seed go with --random.")
    }
    if reach != nil && !invariant.isEmpty {
      throw ValidationError("--reach searches for a predicate: not with --invariant.")
    }
    if emitTest && json.json {
      throw ValidationError("--emit-test prints a test: not with --json.")
    }
    if domainExpression != nil && !emitTest {
      throw ValidationError("--domain-expression goes with --emit-test.")
    }
    try DomainExpression.validate(domainExpression)
    if let output, output.hasSuffix(".jsonl") {
      throw ValidationError("--output writes a trace, not JSON Lines.")
    }
  }

  mutating func run() async throws {
    Terminal.configureColor(colorOptions)
    let domain = try CommandContext.registry.domain(named: domain)
    try await check(domain)
  }

  private func check<D: Domain>(_ domain: D) async throws {
    let checker = ModelChecker(domain: domain, fingerprint: fingerprint)
    let maxStates = self.maxStates ?? 1_000_000
    let jobs = self.jobs ?? 1
    let line = ProgressLine()
    let progress = Self.progress(line, domain: domain.name, random: random)
    let result: CheckResult<D>
    do {
      if random {
        result = try checker.randomWalks(
          runs: runs ?? 100, length: length ?? 100, seed: seed ?? 1,
          invariants: invariant.isEmpty ? nil : invariant, progress: progress)
      } else if let reach {
        result = try await checker.reach(
          reach, depth: depth, maxStates: maxStates, jobs: jobs, progress: progress)
      } else {
        result = try await checker.check(
          invariants: invariant.isEmpty ? nil : invariant, depth: depth, maxStates: maxStates,
          jobs: jobs, progress: progress)
      }
    } catch let error as ModelCheckError {
      line.finish()
      switch error.code {
      case .unknownName:
        throw DebuggerError(.unknownInvariant, error.message)
      case .noExplorationActions:
        throw DebuggerError(.unknownDomain, error.message)
      case .badBound:
        throw DebuggerError(.unsupported, error.message)
      case .nothingToCheck, .notReproducible, .fingerprint:
        // Nothing was proven: a negative answer, as a check with nothing to check is.
        Terminal.writeError("\(CommandContext.name): \(error.message)".oneLine())
        throw ExitCode(RetraceExitCode.negative.rawValue)
      }
    }
    line.finish()

    var wrote: String?
    if let output, let finding = result.finding {
      let session = RecordedSession(
        domain: domain, actions: finding.actions,
        sessionID: "\(domain.name)-check-\(finding.name)")
      try SessionFile.write(
        session, domain: domain, to: output, formatVersion: formatOptions.traceFormat)
      wrote = output
    }
    if json.json {
      print(try ReportJSON.text(CheckReport(result, jobs: random ? nil : jobs, output: wrote)))
    } else {
      let text = Self.text(result, jobs: jobs, wrote: wrote, output: output)
      if emitTest {
        // The summary goes to stderr, and stdout gets the test or nothing: it is redirected
        // into a Swift file.
        Terminal.writeError(text)
        guard let finding = result.finding else { return try exit(for: result) }
        print(
          Self.swiftTest(domain, finding, result, domainExpression: domainExpression),
          terminator: "")
      } else {
        let colored =
          switch result.outcome {
          case .passed, .reached: text.green
          case .violated, .incomplete, .unreachable: text.red
          }
        print(colored)
      }
    }
    try exit(for: result)
  }

  /// Returns for a pass or a reached predicate; throws exit 1 otherwise.
  private func exit<D: Domain>(for result: CheckResult<D>) throws {
    switch result.outcome {
    case .passed, .reached: return
    case .violated, .incomplete, .unreachable:
      throw ExitCode(RetraceExitCode.negative.rawValue)
    }
  }

  /// What the progress line shows, a few times a second; `nil` when stderr is not a
  /// terminal.
  static func progress(_ line: ProgressLine, domain: String, random: Bool) -> (
    @Sendable (CheckProgress) -> Void
  )? {
    guard line.isEnabled else { return nil }
    return { progress in
      // The whole elapsed time, fractions included (whole seconds alone made the first
      // second's rate a thousand times too high).
      let seconds = max(progress.elapsed.inSeconds, 1e-3)
      let rate = groupedDigits(Int(Double(progress.generatedStates) / seconds))
      let text: String
      if random {
        text =
          "checking \(domain): \(rate) actions/s, walk \(progress.distinctStates), \(progress.queued) to go"
      } else {
        let distinct = groupedDigits(progress.distinctStates)
        let queued = groupedDigits(progress.queued)
        text =
          "checking \(domain): \(rate) states/s, \(distinct) distinct, queue \(queued), depth \(progress.depth)"
      }
      line.draw(text)
    }
  }

  /// The answer, the actions found (if any) and the search's figures.
  static func text<D: Domain>(
    _ result: CheckResult<D>, jobs: Int, wrote: String?, output: String?
  ) -> String {
    var lines = [result.description.oneLineEach()]
    var figures: [String] = []
    if case .breadthFirst = result.search {
      figures.append(
        "\(groupedDigits(Int(result.statesPerSecond))) states/s with \(jobs) job\(jobs == 1 ? "" : "s")"
      )
      figures.append("fingerprints: \(result.fingerprint)")
      figures.append(
        "collision probability \(String(format: "%.1g", result.collisionProbability))")
    } else {
      figures.append("\(groupedDigits(Int(result.statesPerSecond))) actions/s")
    }
    lines.append("(" + figures.joined(separator: "; ") + ")")
    if let wrote {
      lines.append("wrote \(wrote)")
    } else if let output, result.finding == nil {
      lines.append("(nothing to write to \(output))")
    }
    return lines.joined(separator: "\n")
  }

  /// The Swift Testing test that replays the finding.
  static func swiftTest<D: Domain>(
    _ domain: D, _ finding: CheckResult<D>.Finding, _ result: CheckResult<D>,
    domainExpression: String?
  ) -> String {
    let count = finding.actions.count
    let how =
      if let walk = finding.walk {
        "a 1-minimal sequence (shrunk from random walk \(walk.run), seed \(result.seedText))"
      } else { "a shortest sequence" }
    let (expectation, what): (SwiftTestSource.Expectation, String) =
      switch result.outcome {
      case .reached:
        (.predicateHolds(finding.name), "reaches a state where `\(finding.name.oneLine())` holds")
      default:
        (.invariantFails(finding.name), "breaks the invariant `\(finding.name.oneLine())`")
      }
    return SwiftTestSource.test(
      D.self, domainName: domain.name, actions: finding.actions, expectation: expectation,
      comment: [
        "// Generated by `\(CommandContext.name) check`: \(how) of \(count) action\(count == 1 ? "" : "s") of",
        "// domain \(domain.name.oneLine()) that \(what).",
      ],
      domainExpression: domainExpression, imports: nil)
  }
}

/// A domain type to name the checker's bounds with: they are the same for every domain.
private typealias AnyCheckedDomain = DomainDefinition<Int, Int>

extension CheckResult {
  /// The first walk's seed, for the emitted test's comment.
  fileprivate var seedText: String {
    if case .random(_, _, let seed) = search { "\(seed)" } else { "" }
  }
}

extension String {
  /// Each line of the text made one line (control characters escaped), joined again.
  fileprivate func oneLineEach() -> String {
    split(separator: "\n", omittingEmptySubsequences: false).map { String($0).oneLine() }
      .joined(separator: "\n")
  }
}

/// What `check --json` says.
struct CheckReport: Encodable {
  var version = 1
  var domain: String
  /// `breadth-first` or `random`.
  var search: String
  /// `passed`, `violated`, `reached`, `unreachable` or `incomplete`.
  var result: String
  var invariants: [String]?
  var predicate: String?
  var depth: Int?
  var maxStates: Int?
  var runs: Int?
  var length: Int?
  var seed: UInt64?
  var jobs: Int?
  var distinctStates: Int?
  var generatedStates: Int
  var diameter: Int
  var completeDepth: Int?
  var exhausted: Bool
  var fingerprint: String
  var collisionProbability: Double
  var bookkeepingBytes: Int
  var statesPerSecond: Double
  var seconds: Double
  var counterexample: Counterexample?
  var output: String?

  struct Counterexample: Encodable {
    /// The invariant that fails, or the predicate that holds.
    var name: String
    var actions: [JSONFragment]
    var walk: Int?
    var walkLength: Int?
  }

  init<D: Domain>(_ result: CheckResult<D>, jobs: Int?, output: String?) throws {
    domain = result.domain
    switch result.search {
    case .breadthFirst(let depth, let maxStates):
      search = "breadth-first"
      self.depth = depth
      self.maxStates = maxStates
    case .random(let runs, let length, let seed):
      search = "random"
      self.runs = runs
      self.length = length
      self.seed = seed
    }
    switch result.goal {
    case .violation(let names): invariants = names
    case .state(let name): predicate = name
    }
    self.result = result.outcome.rawValue
    self.jobs = jobs
    distinctStates = result.distinctStates
    generatedStates = result.generatedStates
    diameter = result.diameter
    completeDepth = result.completeDepth
    exhausted = result.exhausted
    fingerprint = result.fingerprint
    collisionProbability = result.collisionProbability
    bookkeepingBytes = result.bookkeepingBytes
    statesPerSecond = result.statesPerSecond.rounded()
    seconds = result.duration.inSeconds
    let writer = JSONLines.ActionWriter<D.Action>()
    counterexample = try result.finding.map { finding in
      Counterexample(
        name: finding.name,
        actions: try finding.actions.map { try JSONFragment(json: try writer.json(for: $0)) },
        walk: finding.walk?.run, walkLength: finding.walk?.length)
    }
    self.output = output
  }

}

extension StateFingerprint: ExpressibleByArgument {}
