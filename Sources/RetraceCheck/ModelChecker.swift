import Retrace

/// An explicit-state model checker for a `Domain`: it sends the domain's exploration
/// actions (`Domain.explorationActions`) in every state it reaches and checks the
/// domain's invariants in each, as TLC checks a TLA+ specification.
///
/// A breadth-first search (``check(invariants:depth:maxStates:jobs:progress:)``) visits
/// every state within a number of actions, telling states apart by a 64-bit fingerprint,
/// and returns a shortest action sequence that breaks an invariant. Random walks
/// (``randomWalks(runs:length:seed:invariants:progress:)``) cover spaces too large to
/// enumerate and shrink what they find. ``reach(_:depth:maxStates:jobs:progress:)`` finds
/// a shortest path to a state where a named predicate holds.
///
/// ```swift
/// @Test func registrationHoldsItsInvariants() async throws {
///   let result = try await ModelChecker(domain: registrationDomain).check(depth: 6)
///   result.expectPassed()
/// }
/// ```
///
/// Effects are not run: an effect's answer is an action, and the exploration actions list
/// it where the app could receive it, as a replay does.
public struct ModelChecker<D: Domain>: Sendable {
  /// The domain searched.
  public let domain: D
  /// How states are told apart.
  public let fingerprint: StateFingerprint

  /// Creates a checker for `domain`.
  ///
  /// - Parameters:
  ///   - domain: A domain that declares exploration actions.
  ///   - fingerprint: How states are told apart: by a hash of every field their encoding
  ///     writes (``StateFingerprint/structure``), or by their `Hashable` hash, faster, for
  ///     a state whose `hash(into:)` combines every field (``StateFingerprint/hashable``).
  ///     By default, `hashable` when the domain declares `statesHashEveryField` (and its
  ///     state is `Hashable`), `structure` otherwise.
  public init(domain: D, fingerprint: StateFingerprint? = nil) {
    self.domain = domain
    self.fingerprint =
      fingerprint
      ?? (domain.statesHashEveryField && D.State.self is any Hashable.Type
        ? .hashable : .structure)
  }

  /// The greatest `maxStates`: states are numbered with 32 bits.
  public static var maximumStates: Int { Int(UInt32.max - 1) }

  /// The longest random walk: a walk keeps its actions (to shrink them), about 20 bytes
  /// each.
  public static var maximumLength: Int { 10_000_000 }

  /// How many successor states wait to be deduplicated at most, whatever the alphabets'
  /// sizes (beyond one state's): the number of states expanded at once shrinks as their
  /// alphabets grow, and a batch whose alphabets grew is cut short. Internal, so that tests
  /// can make it small.
  var candidateBudget = 1 << 18

  /// Searches every action sequence breadth-first, up to `depth` actions, and checks
  /// invariants in every distinct state reached.
  ///
  /// - Parameters:
  ///   - invariants: The names of the invariants to check; `nil` (the default) for all of
  ///     the domain's.
  ///   - depth: The most actions in a sequence; `nil` (the default) to search until no new
  ///     state is found or `maxStates` is reached.
  ///   - maxStates: The most distinct states to keep; memory grows with it (11 to 21 bytes
  ///     a state for the fingerprints, plus the states of the level being explored).
  ///   - jobs: The number of tasks that compute successors at once.
  ///   - progress: Called a few times a second.
  /// - Returns: ``CheckResult/Outcome/violated`` with a shortest counterexample,
  ///   ``CheckResult/Outcome/passed`` when the bound was searched completely, or
  ///   ``CheckResult/Outcome/incomplete`` when `maxStates` stopped it first.
  /// - Throws: ``ModelCheckError``.
  public func check(
    invariants: [String]? = nil, depth: Int? = nil, maxStates: Int = 1_000_000, jobs: Int = 1,
    progress: (@Sendable (CheckProgress) -> Void)? = nil
  ) async throws -> CheckResult<D> {
    let goals = try invariantGoals(invariants)
    return try await breadthFirst(
      goal: .violation(of: goals.map(\.name)), goals: goals, depth: depth,
      maxStates: maxStates, jobs: jobs, progress: progress)
  }

  /// Searches breadth-first for a state where the predicate called `name` holds
  /// (`Domain.predicates`), and returns a shortest path to it.
  ///
  /// - Parameters:
  ///   - name: The name of one of the domain's predicates.
  ///   - depth: The most actions in a sequence; `nil` for no limit.
  ///   - maxStates: The most distinct states to keep.
  ///   - jobs: The number of tasks that compute successors at once.
  ///   - progress: Called a few times a second.
  /// - Returns: ``CheckResult/Outcome/reached`` with the path,
  ///   ``CheckResult/Outcome/unreachable`` when the bound was searched completely, or
  ///   ``CheckResult/Outcome/incomplete``.
  /// - Throws: ``ModelCheckError``.
  public func reach(
    _ name: String, depth: Int? = nil, maxStates: Int = 1_000_000, jobs: Int = 1,
    progress: (@Sendable (CheckProgress) -> Void)? = nil
  ) async throws -> CheckResult<D> {
    guard let predicate = domain.predicate(named: name) else {
      let known = domain.predicates.map(\.name)
      throw ModelCheckError(
        .unknownName,
        "domain \(domain.name) has no predicate \(name) (it has: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"
      )
    }
    let holds = predicate.holds
    return try await breadthFirst(
      goal: .state(where: name), goals: [Goal(name: name, isHit: holds)], depth: depth,
      maxStates: maxStates, jobs: jobs, progress: progress)
  }

  /// Walks the state space at random: each walk starts in the initial state and sends a
  /// uniformly chosen exploration action, up to `length` times, checking invariants after
  /// each. The first violation is shrunk (delta debugging) to a 1-minimal sequence.
  ///
  /// Run `r` draws from `SeededRandom` seeded with `seed + r`, so
  /// `randomWalks(runs: 1, length: L, seed: S + r)` repeats it.
  ///
  /// - Parameters:
  ///   - runs: The number of walks.
  ///   - length: The most actions in a walk; a walk ends early in a state with no
  ///     exploration action.
  ///   - seed: The seed of the first walk.
  ///   - invariants: The invariants to check; `nil` for all.
  ///   - progress: Called a few times a second.
  /// - Returns: ``CheckResult/Outcome/violated`` or ``CheckResult/Outcome/passed``.
  /// - Throws: ``ModelCheckError``.
  public func randomWalks(
    runs: Int, length: Int, seed: UInt64, invariants: [String]? = nil,
    progress: (@Sendable (CheckProgress) -> Void)? = nil
  ) throws -> CheckResult<D> {
    let goals = try invariantGoals(invariants)
    guard runs >= 0, (0...Self.maximumLength).contains(length) else {
      throw ModelCheckError(
        .badBound,
        "the runs (--runs) must not be negative, and the length (--length) must be from 0 to \(Self.maximumLength)"
      )
    }
    guard runs > 0, length > 0 else {
      throw ModelCheckError(
        .nothingToCheck, "\(runs) walks of up to \(length) actions send no action: nothing to check"
      )
    }
    let alphabet = try explorationActions()
    let clock = ContinuousClock()
    let start = clock.now
    var lastReport = start
    var generated = 0
    var longest = 0
    func result(_ outcome: CheckResult<D>.Outcome, _ finding: CheckResult<D>.Finding?)
      -> CheckResult<D>
    {
      CheckResult(
        domain: domain.name, search: .random(runs: runs, length: length, seed: seed),
        goal: .violation(of: goals.map(\.name)), outcome: outcome, finding: finding,
        distinctStates: nil, generatedStates: generated, diameter: longest,
        completeDepth: nil, exhausted: false, fingerprint: "none", collisionProbability: 0,
        bookkeepingBytes: 0, duration: clock.now - start)
    }
    if let hit = goals.firstIndex(where: { $0.isHit(domain.initialState) }) {
      return result(
        .violated,
        .init(name: goals[hit].name, actions: [], state: domain.initialState, walk: nil))
    }
    for run in 0..<runs {
      var random = SeededRandom(seed: seed &+ UInt64(run))
      var state = domain.initialState
      var actions: [D.Action] = []
      for step in 0..<length {
        let choices = alphabet(state)
        if choices.isEmpty { break }
        if step & 0xFFFF == 0xFFFF, let progress, clock.now - lastReport > .milliseconds(200) {
          lastReport = clock.now
          progress(
            CheckProgress(
              generatedStates: generated, distinctStates: run, queued: runs - run,
              depth: actions.count, elapsed: clock.now - start))
        }
        let action = choices[Int(random.next() % UInt64(choices.count))]
        _ = domain.reduce(into: &state, action: action)
        actions.append(action)
        generated += 1
        longest = max(longest, actions.count)
        if let hit = goals.first(where: { $0.isHit(state) }) {
          let shrunk = try shrink(actions, goal: hit, alphabet: alphabet)
          generated += shrunk.sent
          return result(
            .violated,
            .init(
              name: hit.name, actions: shrunk.actions, state: shrunk.state,
              walk: (run: run, length: actions.count)))
        }
      }
      // Every walk starts in the same state: when the first can take no step, none can.
      if generated == 0 {
        throw ModelCheckError(
          .nothingToCheck,
          "the initial state of domain \(domain.name) has no exploration actions: no walk can take a step, so nothing was checked"
        )
      }
      if let progress, clock.now - lastReport > .milliseconds(200) {
        lastReport = clock.now
        progress(
          CheckProgress(
            generatedStates: generated, distinctStates: run + 1, queued: runs - run - 1,
            depth: actions.count, elapsed: clock.now - start))
      }
    }
    return result(.passed, nil)
  }

  // MARK: - Breadth-first search

  /// A condition searched for: an invariant's failure, or a predicate.
  struct Goal: Sendable {
    let name: String
    let isHit: @Sendable (D.State) -> Bool
  }

  /// A successor state not yet known to be new.
  struct Candidate: Sendable {
    var fingerprint: UInt64
    var state: D.State
    /// The number of the state it was reached from.
    var parent: UInt32
    /// The index of the action in the parent's exploration actions.
    var action: UInt32
  }

  /// The states of a level, explored a batch at a time so that the successors waiting to
  /// be deduplicated stay few.
  static var batchSize: Int { 16_384 }

  /// The breadth-first search.
  ///
  /// It keeps only fingerprints: when it finds a state where a goal is hit, it searches
  /// again, the same way, recording for each state the state it was first reached from and
  /// the action (`recording`), to give the path. The search is deterministic, so the second
  /// finds the same state at the same number; if it does not (an alphabet or a reducer that
  /// answers differently), the search throws rather than answer.
  private func breadthFirst(
    goal: CheckResult<D>.Goal, goals: [Goal], depth: Int?, maxStates: Int, jobs: Int,
    progress: (@Sendable (CheckProgress) -> Void)?,
    recording: (id: UInt32, before: Duration)? = nil
  ) async throws -> CheckResult<D> {
    guard depth.map({ $0 >= 0 }) ?? true else {
      throw ModelCheckError(.badBound, "the depth (depth, --depth) must not be negative")
    }
    guard (1...Self.maximumStates).contains(maxStates) else {
      throw ModelCheckError(
        .badBound,
        "the most states (maxStates, --max-states) must be from 1 to \(Self.maximumStates), not \(maxStates)"
      )
    }
    guard jobs >= 1 else {
      throw ModelCheckError(.badBound, "the number of jobs (--jobs) must be at least 1")
    }
    let alphabet = try explorationActions()
    let constraint = domain.stateConstraint
    guard let fingerprint = self.fingerprint.function(for: D.State.self) else {
      throw ModelCheckError(
        .badBound,
        "the state of domain \(domain.name) is not Hashable: fingerprint it by its state hash")
    }
    let clock = ContinuousClock()
    let start = clock.now
    var lastReport = start

    var seen = FingerprintSet(capacity: min(maxStates, 1 << 10))
    // When recording, for each state by number: the state it was first reached from, and
    // the action.
    var parents: [UInt32] = recording == nil ? [] : [UInt32.max]
    var via: [UInt32] = recording == nil ? [] : [0]
    var distinct = 1
    // Small at first: the first batch tells how many actions a state has.
    var batchSize = 64
    // Whether the search stopped with part of a level added.
    var partial = false
    var generated = 0
    var level = 0
    var stopped = false
    var frontier = [domain.initialState]
    var frontierIDs: [UInt32] = [0]
    _ = seen.insert(try fingerprintOf(domain.initialState, fingerprint))
    var found: (id: UInt32, goal: Int)?
    if let hit = goals.firstIndex(where: { $0.isHit(domain.initialState) }) {
      found = (0, hit)
    }

    search: while found == nil, !frontier.isEmpty, depth.map({ level < $0 }) ?? true {
      var next: [D.State] = []
      var nextIDs: [UInt32] = []
      var batchStart = 0
      while batchStart < frontier.count {
        let batchEnd = min(batchStart + batchSize, frontier.count)
        let (candidates, count, expanded) = try await expand(
          frontier[batchStart..<batchEnd], ids: frontierIDs[batchStart..<batchEnd],
          seen: seen, alphabet: alphabet, constraint: constraint, fingerprint: fingerprint,
          jobs: jobs)
        generated += count
        // As many states at once as give about `candidateBudget` successors.
        let perState = max(1, count / expanded)
        batchSize = max(1, min(Self.batchSize, candidateBudget / perState))
        for candidate in candidates {
          if distinct == maxStates {
            if seen.contains(candidate.fingerprint) { continue }
            stopped = true
            break
          }
          guard seen.insert(candidate.fingerprint) else { continue }
          let id = UInt32(distinct)
          distinct += 1
          if recording != nil {
            parents.append(candidate.parent)
            via.append(candidate.action)
          }
          if let hit = goals.firstIndex(where: { $0.isHit(candidate.state) }) {
            found = (id, hit)
            break
          }
          next.append(candidate.state)
          nextIDs.append(id)
        }
        batchStart += expanded
        if let progress, clock.now - lastReport > .milliseconds(200) {
          lastReport = clock.now
          progress(
            CheckProgress(
              generatedStates: generated, distinctStates: distinct,
              queued: frontier.count - batchStart + next.count, depth: level + 1,
              elapsed: clock.now - start))
        }
        if found != nil || stopped { break }
      }
      if !next.isEmpty || found != nil { level += 1 }
      partial = stopped && !next.isEmpty
      frontier = next
      frontierIDs = nextIDs
      if stopped { break search }
    }

    if found == nil && generated == 0 {
      throw ModelCheckError(
        .nothingToCheck,
        depth == 0
          ? "a depth of 0 sends no action: nothing to check beyond the initial state"
          : "no action was sent from the initial state of domain \(domain.name) (its exploration actions are empty, or the state constraint leaves it out): nothing to check beyond it"
      )
    }
    if let recording, found?.id != recording.id {
      throw notReproducible(
        because: "searching again to record the path did not find the same state")
    }
    if let found, found.id != 0, recording == nil {
      return try await breadthFirst(
        goal: goal, goals: goals, depth: depth, maxStates: maxStates, jobs: jobs,
        progress: progress, recording: (found.id, clock.now - start))
    }
    var finding: CheckResult<D>.Finding?
    if let found {
      finding = try reconstruct(found.id, goal: goals[found.goal], parents: parents, via: via)
    }
    let outcome: CheckResult<D>.Outcome
    let exhausted = found == nil && !stopped && frontier.isEmpty
    switch (goal, finding != nil, stopped) {
    case (.violation, true, _): outcome = .violated
    case (.state, true, _): outcome = .reached
    case (_, false, true): outcome = .incomplete
    case (.violation, false, false): outcome = .passed
    case (.state, false, false): outcome = .unreachable
    }
    let completeDepth = partial || found != nil ? max(level - 1, 0) : level
    var result = CheckResult(
      domain: domain.name, search: .breadthFirst(depth: depth, maxStates: maxStates),
      goal: goal, outcome: outcome, finding: finding, distinctStates: distinct,
      generatedStates: generated, diameter: level,
      completeDepth: exhausted ? level : (depth.map { min($0, completeDepth) } ?? completeDepth),
      exhausted: exhausted, fingerprint: self.fingerprint.rawValue,
      collisionProbability: Double(distinct) * Double(distinct) / 0x1p65,
      bookkeepingBytes: seen.bytes + (parents.capacity + via.capacity)
        * MemoryLayout<UInt32>.stride,
      duration: clock.now - start + (recording?.before ?? .zero))
    result.constrained = constraint != nil
    return result
  }

  /// The successors of the first states of a batch that `seen` does not hold, in the order
  /// of the states and of their actions, computed by up to `jobs` tasks; how many
  /// successors there were; and how many states they are the successors of: all of them,
  /// unless the successors outgrew `candidateBudget` first (the alphabets grew), when the
  /// rest is left for the next batch.
  private func expand(
    _ states: ArraySlice<D.State>, ids: ArraySlice<UInt32>, seen: FingerprintSet,
    alphabet: @escaping @Sendable (D.State) -> [D.Action],
    constraint: (@Sendable (D.State) -> Bool)?,
    fingerprint: @escaping @Sendable (D.State) throws -> UInt64, jobs: Int
  ) async throws -> (candidates: [Candidate], generated: Int, expanded: Int) {
    let domain = self.domain
    // A task per 128 states at least: fewer are not worth a task.
    let parts = min(jobs, max(1, states.count / 128))
    // Each part stops at the whole budget: the batch was sized for about that many in all,
    // so only alphabets that grew within the batch reach it (and cut the batch short).
    let budget = max(1, candidateBudget)
    /// The successors of `range`'s states, and the end of the states expanded.
    @Sendable func successors(_ range: Range<Int>) throws -> ([Candidate], Int, Int) {
      var candidates: [Candidate] = []
      var generated = 0
      for index in range {
        if candidates.count >= budget { return (candidates, generated, index) }
        let state = states[index]
        if let constraint, !constraint(state) { continue }
        let actions = alphabet(state)
        // The first 128 states and one in 4,096 after them are asked again, and reduced
        // again: an alphabet or a reducer that depends on more than the state is caught
        // even when the search finds nothing.
        let sampled = ids[index] < 128 || ids[index] & 0xFFF == 0
        if sampled, try !Self.same(actions, alphabet(state)) {
          throw ModelCheckError(
            .notReproducible,
            "the exploration actions of domain \(domain.name) gave two different lists for the same state: they must depend on the state alone"
          )
        }
        for number in actions.indices {
          var successor = state
          _ = domain.reduce(into: &successor, action: actions[number])
          generated += 1
          let print = try fingerprintOf(successor, fingerprint)
          if sampled {
            var again = state
            _ = domain.reduce(into: &again, action: actions[number])
            guard try fingerprintOf(again, fingerprint) == print else {
              throw ModelCheckError(
                .notReproducible,
                "the reducer of domain \(domain.name) gave two different states for the same state and action (\(actionCaseName(of: actions[number]))): it must depend on the state and the action alone"
              )
            }
          }
          if seen.contains(print) { continue }
          candidates.append(
            Candidate(
              fingerprint: print, state: successor, parent: ids[index],
              action: UInt32(truncatingIfNeeded: number)))
        }
      }
      return (candidates, generated, range.upperBound)
    }
    if parts == 1 {
      let (candidates, generated, end) = try successors(states.indices)
      return (candidates, generated, end - states.startIndex)
    }
    let size = (states.count + parts - 1) / parts
    let ranges = (0..<parts).map { part in
      let lower = states.startIndex + part * size
      return lower..<min(lower + size, states.endIndex)
    }
    return try await withThrowingTaskGroup(of: (Int, [Candidate], Int, Int).self) { group in
      for (part, range) in ranges.enumerated() {
        group.addTask {
          let (candidates, generated, end) = try successors(range)
          return (part, candidates, generated, end)
        }
      }
      var results = [([Candidate], Int, Int)](repeating: ([], 0, 0), count: parts)
      for try await (part, candidates, generated, end) in group {
        results[part] = (candidates, generated, end)
      }
      // In the states' order, up to the first part that stopped early: what came after it
      // is left for the next batch (and computed again then), so that the order holds.
      var candidates: [Candidate] = []
      var generated = 0
      var end = states.startIndex
      for (part, (partCandidates, partGenerated, partEnd)) in results.enumerated() {
        candidates += partCandidates
        generated += partGenerated
        end = partEnd
        if partEnd < ranges[part].upperBound { break }
      }
      return (candidates, generated, end - states.startIndex)
    }
  }

  /// The actions from the initial state to state `id`, replayed to check that they reach a
  /// state where the goal is hit.
  private func reconstruct(
    _ id: UInt32, goal: Goal, parents: [UInt32], via: [UInt32]
  ) throws -> CheckResult<D>.Finding {
    var steps: [Int] = []
    var current = Int(id)
    while current != 0 {
      steps.append(Int(via[current]))
      current = Int(parents[current])
    }
    let alphabet = try explorationActions()
    var state = domain.initialState
    var actions: [D.Action] = []
    for step in steps.reversed() {
      let choices = alphabet(state)
      guard step < choices.count else { throw notReproducible(actions.count) }
      _ = domain.reduce(into: &state, action: choices[step])
      actions.append(choices[step])
    }
    guard goal.isHit(state) else { throw notReproducible(actions.count) }
    return .init(name: goal.name, actions: actions, state: state, walk: nil)
  }

  private func notReproducible(_ count: Int) -> ModelCheckError {
    notReproducible(
      because: "replaying the \(count) actions the search recorded did not reach the state it found"
    )
  }

  private func notReproducible(because what: String) -> ModelCheckError {
    ModelCheckError(
      .notReproducible,
      "\(what): the domain's exploration actions or its reducer gave a different answer the second time (they must depend on the state alone), or two states shared a fingerprint"
    )
  }

  /// A 1-minimal subsequence of `actions` after which `goal` is hit, by delta debugging,
  /// and the state it reaches: a candidate counts only if each of its actions is one the
  /// alphabet offers in the state it is sent in, as in a walk.
  /// The walk's actions shrunk to a 1-minimal sequence that still hits `goal`, the state
  /// it ends in, and how many actions the shrinking sent.
  private func shrink(
    _ actions: [D.Action], goal: Goal, alphabet: @Sendable (D.State) -> [D.Action]
  ) throws -> (actions: [D.Action], state: D.State, sent: Int) {
    // Actions are compared by their encodings' hashes: `Action` need not be `Equatable`.
    let keys = try actions.map(Self.key)
    var sent = 0
    var failure: (any Error)?
    func replay(_ indices: [Int]) -> (hit: Bool, state: D.State) {
      var state = domain.initialState
      for index in indices {
        do {
          guard try alphabet(state).contains(where: { try Self.key($0) == keys[index] }) else {
            return (false, state)
          }
        } catch {
          failure = error
          return (false, state)
        }
        _ = domain.reduce(into: &state, action: actions[index])
        sent += 1
        if goal.isHit(state) { return (true, state) }
      }
      return (false, state)
    }
    let kept = deltaDebug(Array(actions.indices), fails: { replay($0).hit })
    let (hit, state) = replay(kept)
    if let failure { throw failure }
    guard hit else { throw notReproducible(kept.count) }
    return (kept.map { actions[$0] }, state, sent)
  }

  /// Whether two lists of actions are the same, by their encodings: `Action` need not be
  /// `Equatable`.
  static func same(_ first: [D.Action], _ second: [D.Action]) throws -> Bool {
    guard first.count == second.count else { return false }
    for (left, right) in zip(first, second) where try key(left) != key(right) {
      return false
    }
    return true
  }

  /// What an action is compared by: the hash of its encoding.
  static func key(_ action: D.Action) throws -> UInt64 {
    do {
      return try StructureHash.of(action)
    } catch {
      throw ModelCheckError(
        .fingerprint,
        "an exploration action (\(actionCaseName(of: action))) could not be encoded, so it cannot be compared: \(error)"
      )
    }
  }

  private func explorationActions() throws -> @Sendable (D.State) -> [D.Action] {
    guard let alphabet = domain.explorationActions else {
      throw ModelCheckError(
        .noExplorationActions,
        "domain \(domain.name) declares no exploration actions: pass explorationActions: to its DomainDefinition"
      )
    }
    return alphabet
  }

  /// The goals of the invariants called `names` (all of the domain's when `nil`); none is
  /// nothing to check.
  private func invariantGoals(_ names: [String]?) throws -> [Goal] {
    let invariants: [Invariant<D.State>]
    if let names {
      invariants = try names.map { name in
        guard let invariant = domain.invariant(named: name) else {
          let known = domain.invariants.map(\.name)
          throw ModelCheckError(
            .unknownName,
            "domain \(domain.name) has no invariant \(name) (it has: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"
          )
        }
        return invariant
      }
    } else {
      invariants = domain.invariants
    }
    guard !invariants.isEmpty else {
      throw ModelCheckError(
        .nothingToCheck, "domain \(domain.name) declares no invariants: nothing to check")
    }
    return invariants.map { invariant in
      let holds = invariant.holds
      return Goal(name: invariant.name, isHit: { !holds($0) })
    }
  }
}

/// A state's fingerprint, with an encoding failure as a ``ModelCheckError``.
private func fingerprintOf<State>(
  _ state: State, _ fingerprint: @Sendable (State) throws -> UInt64
) throws -> UInt64 {
  do {
    return try fingerprint(state)
  } catch {
    throw ModelCheckError(.fingerprint, "a state could not be fingerprinted: \(error)")
  }
}
