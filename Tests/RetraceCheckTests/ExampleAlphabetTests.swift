import Foundation
import Retrace
import RetraceCheck
import RetraceExamples
import Testing

/// The invariants of the example domains that fail by design: the bugs the examples plant
/// to be found, which every other invariant must not be mistaken for.
let plantedBugs: [String: Set<String>] = [
  "counter": ["non-negative"],
  "banking": ["non-negative-balance"],
  "registration": ["registered-only-when-valid"],
]

/// The names of the example domains, for parameterized tests.
let exampleDomainNames = Examples.domains.map(\.name)

/// Visits every distinct state within `depth` exploration actions of the initial state,
/// breadth-first, with its exploration actions (none for a state the constraint rejects).
/// States are told apart by their JSON, which is slow but needs only `Encodable`.
func visitExplorationSpace<D: Domain>(
  _ domain: D, depth: Int, visit: (D.State, [D.Action]) throws -> Void
) throws {
  guard let alphabet = domain.explorationActions else { return }
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  var seen: Set<Data> = [try encoder.encode(domain.initialState)]
  var level = [domain.initialState]
  for distance in 0...depth {
    var next: [D.State] = []
    for state in level {
      let expanded = domain.stateConstraint?(state) ?? true
      let actions = expanded ? alphabet(state) : []
      try visit(state, actions)
      guard distance < depth else { continue }
      for action in actions {
        var successor = state
        _ = domain.reduce(into: &successor, action: action)
        if seen.insert(try encoder.encode(successor)).inserted { next.append(successor) }
      }
    }
    level = next
  }
}

/// How deep the alphabet test looks for every action case: 3, but registration's answers
/// come only once a valid form is registered (four edits and Register).
func coverageDepth(of domain: String) -> Int {
  domain == "registration" ? 5 : 3
}

/// The JSON of an action list, to compare lists of actions that are not `Equatable`.
func encoded<Action: Encodable>(_ actions: [Action]) throws -> Data {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  return try encoder.encode(actions)
}

@Suite struct ExampleAlphabetTests {
  @Test(arguments: exampleDomainNames)
  func everyExampleDeclaresAnAlphabetThatCoversItsActions(name: String) throws {
    let domain = try #require(Examples.domain(named: name))
    try covers(domain)
  }

  private func covers<D: Domain>(_ domain: D) throws {
    #expect(domain.explorationActions != nil)
    var seen = Set<String>()
    var largest = 0
    try visitExplorationSpace(domain, depth: coverageDepth(of: domain.name)) { state, actions in
      largest = max(largest, actions.count)
      for action in actions { seen.insert(actionCaseName(of: action)) }
      // The same state gives the same list, in the same order.
      guard domain.stateConstraint?(state) ?? true else { return }
      let again = domain.explorationActions?(state) ?? []
      let first = try encoded(actions)
      let second = try encoded(again)
      let same = first == second
      #expect(same, "\(domain.name): \(String(decoding: first, as: UTF8.self))")
    }
    let unsent = domain.actionCases.filter { !seen.contains($0) }
    #expect(unsent.isEmpty, "\(domain.name) never sends \(unsent)")
    #expect((1...25).contains(largest), "\(largest) actions in one state")
  }

  @Test(arguments: exampleDomainNames)
  func everyInvariantButThePlantedBugsHoldsWithinFourActions(name: String) async throws {
    let domain = try #require(Examples.domain(named: name))
    try await holds(domain, depth: 4)
  }

  private func holds<D: Domain>(_ domain: D, depth: Int) async throws {
    let planted = plantedBugs[domain.name] ?? []
    let names = domain.invariants.map(\.name).filter { !planted.contains($0) }
    // A domain with no invariant has nothing to check.
    guard !domain.invariants.isEmpty else { return }
    let checker = ModelChecker(domain: domain, fingerprint: .hashable)
    let all = try await checker.check(depth: 3)
    #expect(all.outcome != .incomplete)
    if let finding = all.finding {
      #expect(planted.contains(finding.name), "\(domain.name): \(finding.name) fails")
    }
    guard !names.isEmpty else { return }
    let result = try await checker.check(invariants: names, depth: depth)
    #expect(result.outcome == .passed, "\(domain.name): \(result.description)")
    #expect(result.fingerprint == "hashable")
  }

  /// Each example declares `statesHashEveryField`, so the checker tells its states apart
  /// by `Hashable` by default: the claim holds if that finds the states the encoding does.
  @Test(arguments: exampleDomainNames)
  func theHashableFingerprintFindsWhatTheEncodingFinds(name: String) async throws {
    let domain = try #require(Examples.domain(named: name))
    try await sameStates(domain)
  }

  private func sameStates<D: Domain>(_ domain: D) async throws {
    #expect(domain.statesHashEveryField)
    guard domain.explorationActions != nil, !domain.invariants.isEmpty else { return }
    let byDefault = try await ModelChecker(domain: domain).check(depth: 3)
    let byEncoding = try await ModelChecker(domain: domain, fingerprint: .structure).check(
      depth: 3)
    #expect(byDefault.fingerprint == (D.State.self is any Hashable.Type ? "hashable" : "structure"))
    #expect(byDefault.distinctStates == byEncoding.distinctStates, "\(domain.name)")
    #expect(byDefault.generatedStates == byEncoding.generatedStates, "\(domain.name)")
  }

  @Test func bankingsOverdraftIsFoundWithAShortestCounterexample() async throws {
    let result = try await ModelChecker(domain: bankingDomain, fingerprint: .hashable).check()
    #expect(result.outcome == .violated)
    let finding = try #require(result.finding)
    #expect(finding.name == "non-negative-balance")
    // An account and three rents: 2,000.00 - 3 × 950.00 is below zero, and nothing
    // shorter is.
    #expect(finding.actions.count == 4)
    var state = bankingDomain.initialState
    for action in finding.actions { _ = bankingDomain.reduce(into: &state, action: action) }
    #expect(state == finding.state)
    let invariant = try #require(bankingDomain.invariant(named: "non-negative-balance"))
    #expect(!invariant.holds(state))
  }

  @Test func bankingsOtherInvariantsHoldInItsWholeConstrainedSpace() async throws {
    let names = bankingDomain.invariants.map(\.name).filter { $0 != "non-negative-balance" }
    let result = try await ModelChecker(domain: bankingDomain, fingerprint: .hashable).check(
      invariants: names, jobs: 2)
    #expect(result.outcome == .passed)
    #expect(result.exhausted)
  }

  @Test(arguments: exampleDomainNames.filter { $0 != "registration" })
  func everyPredicateIsReachable(name: String) async throws {
    let domain = try #require(Examples.domain(named: name))
    try await reaches(domain)
  }

  private func reaches<D: Domain>(_ domain: D) async throws {
    let checker = ModelChecker(domain: domain, fingerprint: .hashable)
    for predicate in domain.predicates {
      let result = try await checker.reach(predicate.name, depth: 8)
      #expect(result.outcome == .reached, "\(domain.name): \(predicate.name)")
    }
  }
}
