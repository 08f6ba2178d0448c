import Foundation
import Retrace
import RetraceExamples
import RetraceTesting
import Synchronization
import Testing

@testable import RetraceCheck

/// Registration with the planted bug fixed: every edit returns to editing and abandons a
/// registration in flight.
let fixedRegistrationDomain = DomainDefinition(
  name: "registration-fixed", summary: "Registration, fixed.",
  initialState: RegistrationState(),
  reducer: Reduce<RegistrationState, RegistrationAction> { state, action in
    if case .edit = action { state.status = .editing }
    return RegistrationReducer(registrar: { _ in "" }).reduce(into: &state, action: action)
  },
  sampleActions: RegistrationAction.samples, invariants: registrationInvariants,
  explorationActions: RegistrationExploration.actions, predicates: registrationPredicates)

/// A counter whose state is only `Equatable`, bounded to 0...limit by its constraint, with a
/// rule that breaks at `limit`.
struct PlainCount: Codable, Equatable, Sendable {
  var value = 0
}

func countingDomain(
  limit: Int, constraint: Bool = true,
  actions: @escaping @Sendable (PlainCount) -> [Int] = { _ in [1, -1] }
) -> DomainDefinition<PlainCount, Int> {
  var bound: (@Sendable (PlainCount) -> Bool)?
  if constraint { bound = { state in abs(state.value) <= limit } }
  return DomainDefinition(
    name: "count", summary: "A count.", initialState: PlainCount(),
    reducer: Reduce<PlainCount, Int> { state, step in
      state.value += step
      return .none
    },
    actionCases: ["step"],
    invariants: [Invariant("below-limit", "The count stays below the limit.") { $0.value < limit }],
    explorationActions: actions,
    stateConstraint: bound,
    predicates: [StatePredicate("minus-three", "The count is -3.") { $0.value == -3 }])
}

/// A state with a `Set`: its elements come in each instance's own order.
struct Toggles: Codable, Equatable, Sendable {
  var on: Set<Int> = []
}

@Suite struct ModelCheckerTests {
  @Test func aBatchWhoseAlphabetsGrowIsCutShortWithTheSameAnswer() async throws {
    // A binary tree of 1,023 nodes, then 300 actions from each of its 512 leaves, all to one
    // state: the leaves' successors would outgrow any small budget in one batch.
    struct Node: Codable, Equatable, Sendable {
      var depth = 0
      var bits = 0
    }
    let domain = DomainDefinition(
      name: "tree", summary: "", initialState: Node(),
      reducer: Reduce<Node, Int> { node, action in
        if node.depth < 9 {
          node = Node(depth: node.depth + 1, bits: node.bits << 1 | action)
        } else {
          node = Node(depth: 10, bits: 0)
        }
        return .none
      }, actionCases: ["step"],
      invariants: [Invariant("any", "") { _ in true }],
      explorationActions: { node in
        node.depth < 9 ? [0, 1] : node.depth == 9 ? Array(0..<300) : []
      })
    var expected: CheckResult<DomainDefinition<Node, Int>>?
    for budget in [1 << 18, 1_000, 7] {
      for jobs in [1, 2] {
        var checker = ModelChecker(domain: domain)
        checker.candidateBudget = budget
        let result = try await checker.check(jobs: jobs)
        #expect(result.outcome == .passed)
        #expect(result.distinctStates == 1 << 10)  // 1,023 tree nodes and the one state after
        #expect(result.generatedStates == 2 * ((1 << 9) - 1) + 300 * (1 << 9))
        if let expected {
          #expect(result.diameter == expected.diameter)
        }
        expected = result
      }
    }
  }

  @Test func aStateWithASetIsSearchedAndItsViolationReported() async throws {
    // Eight switches, each toggled: 256 states; the invariant fails once six are on.
    let toggle = Reduce<Toggles, Int> { state, index in
      if state.on.remove(index) == nil { state.on.insert(index) }
      return .none
    }
    func domain(_ invariant: Invariant<Toggles>) -> DomainDefinition<Toggles, Int> {
      DomainDefinition(
        name: "toggles", summary: "", initialState: Toggles(), reducer: toggle,
        actionCases: ["toggle"], invariants: [invariant],
        explorationActions: { _ in Array(0..<8) })
    }
    let failing = domain(Invariant("fewer-than-six", "") { $0.on.count < 6 })
    for fingerprint in [StateFingerprint.structure, .stateHash] {
      let result = try await ModelChecker(domain: failing, fingerprint: fingerprint).check()
      #expect(result.outcome == .violated)
      #expect(result.finding?.actions.count == 6)
    }
    let passing = domain(Invariant("any", "") { _ in true })
    let whole = try await ModelChecker(domain: passing).check()
    #expect(whole.outcome == .passed)
    #expect(whole.distinctStates == 256)
  }

  @Test func findsThePlantedRegistrationBugWithItsShortestCounterexample() async throws {
    let result = try await ModelChecker(domain: registrationDomain).check()
    #expect(result.outcome == .violated)
    let finding = try #require(result.finding)
    #expect(finding.name == "registered-only-when-valid")
    // Four edits to make the form valid, Register, its success and an edit that breaks a
    // rule: nothing shorter reaches the bug.
    #expect(finding.actions.count == 7)
    #expect(finding.state.registeredUserID != nil)
    #expect(!finding.state.form.brokenRules.isEmpty)
    // The actions replay to the state reported.
    var state = registrationDomain.initialState
    for action in finding.actions { _ = registrationDomain.reduce(into: &state, action: action) }
    #expect(state == finding.state)
    #expect(result.description.contains("registered-only-when-valid fails after 7 actions"))
  }

  @Test func theAnswerIsTheSameWithAnyNumberOfJobs() async throws {
    // The example states hash every field (synthesized), so the fast fingerprint is right
    // here; the whole-space searches of the suite use it to keep the suite light.
    let one = try await ModelChecker(domain: registrationDomain, fingerprint: .hashable)
      .check(jobs: 1)
    for jobs in [2, 4] {
      let many = try await ModelChecker(domain: registrationDomain, fingerprint: .hashable)
        .check(jobs: jobs)
      #expect(many.finding?.actions == one.finding?.actions)
      #expect(many.distinctStates == one.distinctStates)
      #expect(many.generatedStates == one.generatedStates)
    }
    let fixedOne = try await ModelChecker(domain: fixedRegistrationDomain, fingerprint: .hashable)
      .check(jobs: 1)
    let fixedMany = try await ModelChecker(
      domain: fixedRegistrationDomain, fingerprint: .hashable
    ).check(jobs: 3)
    #expect(fixedMany.distinctStates == fixedOne.distinctStates)
    #expect(fixedMany.diameter == fixedOne.diameter)
  }

  @Test func aFixedDomainPassesOnceItsWholeSpaceIsSearched() async throws {
    let result = try await ModelChecker(domain: fixedRegistrationDomain).check()
    #expect(result.outcome == .passed)
    #expect(result.exhausted)
    #expect(result.finding == nil)
    #expect(result.completeDepth == result.diameter)
    #expect((result.distinctStates ?? 0) > 1_000)
    #expect(result.generatedStates > result.distinctStates ?? 0)
    #expect(result.fingerprint == "structure")
    // Every fingerprint tells the same states apart for a synthesized `Hashable`.
    for fingerprint in [StateFingerprint.stateHash, .hashable] {
      let other = try await ModelChecker(domain: fixedRegistrationDomain, fingerprint: fingerprint)
        .check()
      #expect(other.fingerprint == fingerprint.rawValue)
      #expect(other.distinctStates == result.distinctStates)
      #expect(other.diameter == result.diameter)
    }
    #expect(
      result.description.hasPrefix(
        "no invariant fails (registered-only-when-valid) in every reachable state"))
    // Fewer than the space: the depth bound is what was searched.
    let shallow = try await ModelChecker(domain: fixedRegistrationDomain).check(depth: 3)
    #expect(shallow.outcome == .passed)
    #expect(!shallow.exhausted)
    #expect(shallow.completeDepth == 3)
    #expect(shallow.diameter == 3)
    #expect(shallow.description.contains("every state within 3 actions"))
  }

  @Test func aBoundTooSmallToFindTheBugPassesOnlyWithinIt() async throws {
    let result = try await ModelChecker(domain: registrationDomain).check(depth: 6)
    #expect(result.outcome == .passed)
    #expect(result.completeDepth == 6)
    // Depth 0 sends no action: nothing to check, no pass.
    await #expect { try await ModelChecker(domain: registrationDomain).check(depth: 0) } throws: {
      ($0 as? ModelCheckError)?.code == .nothingToCheck
    }
  }

  @Test func maxStatesStopsTheSearchAndTheAnswerSaysItIsIncomplete() async throws {
    let result = try await ModelChecker(domain: registrationDomain).check(maxStates: 200)
    #expect(result.outcome == .incomplete)
    #expect(result.distinctStates == 200)
    #expect(!result.exhausted)
    #expect((result.completeDepth ?? 99) < result.diameter)
    #expect(result.description.contains("the rest was not searched"))
    let one = try await ModelChecker(domain: fixedRegistrationDomain).check(maxStates: 1)
    #expect(one.outcome == .incomplete)
    #expect(one.completeDepth == 0)
  }

  @Test func reachFindsAShortestPathOrSaysNoStateHasIt() async throws {
    let checker = ModelChecker(domain: registrationDomain)
    let registered = try await checker.reach("registered")
    #expect(registered.outcome == .reached)
    #expect(registered.finding?.actions.count == 6)
    #expect(registered.finding?.state.registeredUserID == "U-ada")

    let bounded = try await ModelChecker(domain: countingDomain(limit: 5)).reach("minus-three")
    #expect(bounded.outcome == .reached)
    #expect(bounded.finding?.actions == [-1, -1, -1])
    let tooShallow = try await ModelChecker(domain: countingDomain(limit: 5))
      .reach("minus-three", depth: 2)
    #expect(tooShallow.outcome == .unreachable)
    #expect(tooShallow.completeDepth == 2)
    let onlyUp = try await ModelChecker(
      domain: countingDomain(limit: 5, actions: { _ in [1] })
    ).reach("minus-three")
    #expect(onlyUp.outcome == .unreachable)
    #expect(onlyUp.exhausted)
  }

  @Test func aStateOutsideTheConstraintIsCheckedButNotExpanded() async throws {
    // The constraint keeps the count within -5...5; the states at ±6 are reached and checked.
    let domain = countingDomain(limit: 100)
    let bounded = DomainDefinition(
      name: "count", summary: "", initialState: PlainCount(),
      reducer: Reduce<PlainCount, Int> { state, step in
        state.value += step
        return .none
      }, actionCases: ["step"],
      invariants: [Invariant("small", "") { abs($0.value) <= 6 }],
      explorationActions: domain.explorationActions, stateConstraint: { abs($0.value) <= 5 })
    let result = try await ModelChecker(domain: bounded).check()
    #expect(result.outcome == .passed)
    #expect(result.exhausted)
    #expect(result.distinctStates == 13)
    #expect(result.diameter == 6)
  }

  @Test func aDomainWhoseStatesHashEveryFieldIsFingerprintedByHashable() async throws {
    #expect(ModelChecker(domain: registrationDomain).fingerprint == .hashable)
    #expect(
      ModelChecker(domain: registrationDomain, fingerprint: .structure).fingerprint == .structure)
    // Not declared: the encoding, whatever the state's conformances.
    #expect(ModelChecker(domain: fixedRegistrationDomain).fingerprint == .structure)
  }

  @Test func aStateThatIsNotHashableIsFingerprintedByItsEncoding() async throws {
    let result = try await ModelChecker(domain: countingDomain(limit: 4)).check()
    #expect(result.fingerprint == "structure")
    #expect(result.outcome == .violated)
    #expect(result.finding?.actions == [1, 1, 1, 1])
  }

  @Test func randomWalksFindTheBugAndShrinkIt() throws {
    let checker = ModelChecker(domain: registrationDomain)
    let result = try checker.randomWalks(runs: 200, length: 40, seed: 7)
    #expect(result.outcome == .violated)
    let finding = try #require(result.finding)
    let walk = try #require(finding.walk)
    #expect(walk.length >= finding.actions.count)
    // 1-minimal: without any one of its actions, the invariant holds throughout.
    let holds = try #require(registrationDomain.invariant(named: finding.name)).holds
    for skip in finding.actions.indices {
      var state = registrationDomain.initialState
      var alwaysHolds = true
      for (index, action) in finding.actions.enumerated() where index != skip {
        _ = registrationDomain.reduce(into: &state, action: action)
        if !holds(state) { alwaysHolds = false }
      }
      #expect(alwaysHolds, "still fails without action \(skip + 1)")
    }
    // The same seed, the same answer; the walk alone, from its own seed, finds it again.
    let again = try checker.randomWalks(runs: 200, length: 40, seed: 7)
    #expect(again.finding?.actions == finding.actions)
    let alone = try checker.randomWalks(runs: 1, length: 40, seed: 7 + UInt64(walk.run))
    #expect(alone.finding?.actions == finding.actions)
    #expect(alone.finding?.walk?.run == 0)
  }

  @Test func randomWalksOfAFixedDomainPass() throws {
    let result = try ModelChecker(domain: fixedRegistrationDomain).randomWalks(
      runs: 50, length: 30, seed: 1)
    #expect(result.outcome == .passed)
    #expect(result.generatedStates == 50 * 30)
    #expect(result.distinctStates == nil)
    #expect(result.description.contains("50 random walks of up to 30 actions"))
  }

  @Test func badRequestsAreRefusedWithAReason() async throws {
    let silent = DomainDefinition(
      name: "silent", summary: "A counter that declares no exploration actions.",
      initialState: CounterState(), reducer: CounterReducer(),
      actionCases: ["increment", "decrement", "reset"], invariants: counterDomain.invariants)
    await #expect { try await ModelChecker(domain: silent).check() } throws: {
      ($0 as? ModelCheckError)?.code == .noExplorationActions
    }
    let checker = ModelChecker(domain: registrationDomain)
    await #expect { try await checker.check(invariants: ["nope"]) } throws: {
      let error = $0 as? ModelCheckError
      return error?.code == .unknownName
        && error?.message.contains("registered-only-when-valid") == true
    }
    await #expect { try await checker.reach("nope") } throws: {
      ($0 as? ModelCheckError)?.code == .unknownName
    }
    for (depth, maxStates, jobs) in [(-1, 10, 1), (1, 0, 1), (1, 10, 0)] {
      await #expect {
        try await checker.check(depth: depth, maxStates: maxStates, jobs: jobs)
      } throws: { ($0 as? ModelCheckError)?.code == .badBound }
    }
    #expect(throws: ModelCheckError.self) {
      try checker.randomWalks(runs: -1, length: 1, seed: 0)
    }
  }

  @Test func aHashThatLeavesOutAFieldCannotHideAState() async throws {
    // `Hashable` may hash fewer fields than `==` compares; the default fingerprint is the
    // state's encoding, so the states that differ in `n` alone stay apart.
    let domain = DomainDefinition(
      name: "partial", summary: "", initialState: PartlyHashed(),
      reducer: Reduce<PartlyHashed, Int> { state, step in
        state.n += step
        return .none
      }, actionCases: ["step"],
      invariants: [Invariant("below-three", "") { $0.n < 3 }],
      explorationActions: { _ in [1] })
    let result = try await ModelChecker(domain: domain).check()
    #expect(result.outcome == .violated)
    #expect(result.finding?.actions == [1, 1, 1])
    // With the `Hashable` fingerprint, which the documentation says needs every field, the
    // states collapse: that is why it is not the default.
    let hashed = try await ModelChecker(domain: domain, fingerprint: .hashable).check()
    #expect(hashed.distinctStates == 1)
  }

  @Test func nothingToCheckIsNoPass() async throws {
    let none = DomainDefinition(
      name: "none", summary: "", initialState: PlainCount(),
      reducer: Reduce<PlainCount, Int> { _, _ in .none }, actionCases: ["step"],
      explorationActions: { _ in [1] })
    await #expect { try await ModelChecker(domain: none).check() } throws: {
      ($0 as? ModelCheckError)?.code == .nothingToCheck
    }
    let checker = ModelChecker(domain: countingDomain(limit: 3))
    for (runs, length) in [(0, 10), (10, 0)] {
      #expect {
        try checker.randomWalks(runs: runs, length: length, seed: 1)
      } throws: { ($0 as? ModelCheckError)?.code == .nothingToCheck }
    }
    // An empty alphabet: the search sends nothing.
    await #expect {
      try await ModelChecker(domain: countingDomain(limit: 3, actions: { _ in [] })).check()
    } throws: { ($0 as? ModelCheckError)?.code == .nothingToCheck }
    // No walk can take a step: the first says so, the other walks are not walked.
    let stuck = ModelChecker(domain: countingDomain(limit: 3, actions: { _ in [] }))
    #expect {
      try stuck.randomWalks(runs: .max, length: 10, seed: 1)
    } throws: { ($0 as? ModelCheckError)?.code == .nothingToCheck }
  }

  @Test func aSearchStoppedAtALevelsFirstNewStateCountsThatLevelAsNotStarted() async throws {
    // Levels of 1, 2, 2, … states: 5 states are every state within 2 actions.
    let result = try await ModelChecker(domain: countingDomain(limit: 100)).check(maxStates: 5)
    #expect(result.outcome == .incomplete)
    #expect(result.completeDepth == 2)
    let six = try await ModelChecker(domain: countingDomain(limit: 100)).check(maxStates: 6)
    #expect(six.completeDepth == 2)
  }

  @Test func aShrunkWalkSendsOnlyWhatTheAlphabetOffers() throws {
    let checker = ModelChecker(domain: registrationDomain)
    for seed in stride(from: UInt64(1_000), through: 30_000, by: 1_000) {
      let result = try checker.randomWalks(runs: 20, length: 60, seed: seed)
      guard let finding = result.finding else { continue }
      var state = registrationDomain.initialState
      for action in finding.actions {
        let offered = RegistrationExploration.actions(in: state)
        #expect(offered.contains(action), "seed \(seed): \(action) is not offered")
        _ = registrationDomain.reduce(into: &state, action: action)
      }
    }
  }

  @Test func anAlphabetThatChangesItsAnswerIsCaughtNotBelieved() async throws {
    // The exploration actions depend on something besides the state: the path the search
    // recorded does not replay to a failing state, and the checker says so.
    let calls = Calls()
    let domain = countingDomain(
      limit: 3, constraint: true,
      actions: { _ in calls.next() <= 5 ? [1, -1] : [-1, 1] })
    await #expect { try await ModelChecker(domain: domain).check() } throws: {
      ($0 as? ModelCheckError)?.code == .notReproducible
    }
  }

  @Test func anAlphabetThatChangesIsCaughtEvenWhenNothingFails() async throws {
    // Its order flips on every call; the invariant never fails.
    let calls = Calls()
    let domain = countingDomain(
      limit: 1_000, constraint: true,
      actions: { _ in calls.next().isMultiple(of: 2) ? [1, -1] : [-1, 1] })
    await #expect { try await ModelChecker(domain: domain).check(depth: 3) } throws: {
      ($0 as? ModelCheckError)?.code == .notReproducible
    }
  }

  @Test func aReducerThatChangesItsAnswerIsCaughtEvenWhenNothingFails() async throws {
    // Every other call adds 2 instead of 1; the invariant never fails. A search that
    // believed it would pass.
    let calls = Calls()
    let domain = DomainDefinition(
      name: "flaky", summary: "", initialState: PlainCount(),
      reducer: Reduce<PlainCount, Int> { state, step in
        state.value += calls.next().isMultiple(of: 2) ? step : 2 * step
        return .none
      }, actionCases: ["step"],
      invariants: [Invariant("any", "") { _ in true }],
      explorationActions: { _ in [1] }, stateConstraint: { $0.value < 50 })
    await #expect { try await ModelChecker(domain: domain).check() } throws: { error in
      let error = error as? ModelCheckError
      return error?.code == .notReproducible
        && error?.description.contains("gave two different states") == true
    }
  }

  @Test func anActionThatCannotBeEncodedIsSaidSo() async throws {
    // Actions are compared by their encodings; one that cannot be encoded is an error
    // naming it, not "two different lists", and a walk's violation is not left unshrunk.
    let domain = DomainDefinition(
      name: "mute", summary: "", initialState: PlainCount(),
      reducer: Reduce<PlainCount, Mute> { state, _ in
        state.value += 1
        return .none
      }, actionCases: ["mute"],
      invariants: [Invariant("below-three", "") { $0.value < 3 }],
      explorationActions: { _ in [Mute()] })
    await #expect { try await ModelChecker(domain: domain).check() } throws: { error in
      (error as? ModelCheckError)?.description.contains("could not be encoded") == true
    }
    #expect { try ModelChecker(domain: domain).randomWalks(runs: 3, length: 10, seed: 1) } throws: {
      error in
      (error as? ModelCheckError)?.description.contains("could not be encoded") == true
    }
  }

  @Test func expectPassedRecordsTheCounterexampleAsAnIssue() async throws {
    let result = try await ModelChecker(domain: registrationDomain).check()
    withKnownIssue {
      result.expectPassed()
    } matching: { issue in
      issue.description.contains("registered-only-when-valid fails after 7 actions")
        && issue.description.contains(#"{"registrationSucceeded":{"userID":"U-ada"}}"#)
        // The state it fails in, as `customDump` writes it.
        && issue.description.contains("The state after the last action:\nRegistrationState(")
        && issue.description.contains(#"userID: "U-ada""#)
    }
    let passed = try await ModelChecker(domain: fixedRegistrationDomain).check()
    passed.expectPassed()
  }
}

/// A state whose `Hashable` conformance hashes `id` alone: allowed, since equal values still
/// hash alike.
struct PartlyHashed: Codable, Hashable, Sendable {
  var id = 0
  var n = 0
  func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// An action whose encoding always fails.
struct Mute: Codable, Sendable {
  struct Refused: Error {}
  init() {}
  init(from decoder: any Decoder) throws {}
  func encode(to encoder: any Encoder) throws { throw Refused() }
}

/// A counter shared by the calls of a closure.
final class Calls: Sendable {
  private let count = Mutex(0)
  func next() -> Int {
    count.withLock {
      $0 += 1
      return $0
    }
  }
}
