import Foundation
import Retrace

/// What a model checker's search found, and how much of the state space it searched.
///
/// ```swift
/// let result = try await ModelChecker(domain: registrationDomain).check(depth: 6)
/// print(result)   // the counterexample's actions, one per line
/// // In a test, with RetraceTesting: result.expectPassed()
/// ```
public struct CheckResult<D: Domain>: Sendable, CustomStringConvertible {
  /// How the search went.
  public enum Search: Sendable, Equatable {
    /// Breadth-first, every action sequence up to `depth` actions (unlimited when `nil`)
    /// until `maxStates` distinct states.
    case breadthFirst(depth: Int?, maxStates: Int)
    /// `runs` random walks of up to `length` actions; run `r` draws from the seed
    /// `seed + r`.
    case random(runs: Int, length: Int, seed: UInt64)
  }

  /// The answer.
  public enum Outcome: String, Sendable, Equatable {
    /// No invariant failed in any state searched, and the search covered its bound: every
    /// state within the depth (or the whole reachable space), or every random walk.
    case passed
    /// An invariant failed: ``CheckResult/finding`` is the counterexample.
    case violated
    /// The search for a predicate found a state where it holds: ``CheckResult/finding``
    /// is the path to it.
    case reached
    /// The predicate holds in no state within the bound, which was searched completely.
    case unreachable
    /// The search stopped at `maxStates` before it covered its depth: no violation (or no
    /// state where the predicate holds) among the states searched, which proves nothing
    /// about the states left.
    case incomplete
  }

  /// The domain's name.
  public var domain: String
  /// How the search went.
  public var search: Search
  /// What was searched for.
  public enum Goal: Sendable, Equatable {
    /// A state where one of these invariants fails.
    case violation(of: [String])
    /// A state where this predicate holds.
    case state(where: String)
  }

  /// What was searched for.
  public var goal: Goal
  /// The answer.
  public var outcome: Outcome
  /// The counterexample (``Outcome/violated``) or the path to the predicate
  /// (``Outcome/reached``); `nil` otherwise.
  public var finding: Finding?
  /// The distinct states found (by fingerprint); `nil` for random walks, which do not
  /// count them.
  public var distinctStates: Int?
  /// The successor states computed: one for each action applied, duplicates included (for
  /// random walks, the walks' actions and those the shrinking sent).
  public var generatedStates: Int
  /// The most actions any state searched is from the initial state: the depth of the
  /// breadth-first search's last level, or the longest random walk.
  public var diameter: Int
  /// Breadth-first: every state reachable in at most this many actions was checked; `nil`
  /// for random walks.
  public var completeDepth: Int?
  /// Breadth-first: whether the search ran out of states to explore, so that it searched
  /// every reachable state (within the domain's state constraint).
  public var exhausted: Bool
  /// How states were told apart: `structure` (a hash of the state's encoding), `state-hash`
  /// (its `StateHash`) or `hashable` (its `Hashable` hash).
  public var fingerprint: String
  /// The probability that two distinct states searched share a fingerprint, so that one
  /// of them (and what only it leads to) was never explored: n²/2⁶⁵ for n distinct states,
  /// as TLC estimates it. 0 for random walks, which do not deduplicate.
  public var collisionProbability: Double
  /// The bytes the fingerprint table took, and the paths back to the initial state when a
  /// state was found (recorded by a second search).
  public var bookkeepingBytes: Int
  /// How long the search took.
  public var duration: Duration
  /// Whether the domain's state constraint kept some states from being explored further.
  public var constrained = false

  /// A counterexample or a path to a predicate.
  public struct Finding: Sendable {
    /// The invariant that failed, or the predicate that holds.
    public var name: String
    /// The actions from the initial state: a shortest sequence for a breadth-first search,
    /// a 1-minimal one (removing any one action makes the invariant hold) for a random
    /// walk.
    public var actions: [D.Action]
    /// The state after the actions.
    public var state: D.State
    /// Random walks: the run that found it (0-based) and its length before shrinking.
    public var walk: (run: Int, length: Int)?
  }

  /// The successor states computed per second.
  public var statesPerSecond: Double {
    let seconds = duration.inSeconds
    return seconds > 0 ? Double(generatedStates) / seconds : 0
  }

  /// "1 action", "6 actions".
  private func actions(_ count: Int) -> String {
    "\(groupedDigits(count)) action\(count == 1 ? "" : "s")"
  }

  /// What the search covered, in words: "every state within 6 actions (1,234 distinct
  /// states, diameter 6)".
  public var coverage: String {
    switch search {
    case .random(let runs, let length, let seed):
      return
        "\(groupedDigits(runs)) random walk\(runs == 1 ? "" : "s") of up to \(groupedDigits(length)) actions (seed \(seed), \(groupedDigits(generatedStates)) actions applied)"
    case .breadthFirst(let depth, let maxStates):
      let counts =
        "\(groupedDigits(distinctStates ?? 0)) distinct states, diameter \(diameter)"
      if exhausted {
        return
          "every reachable state\(constrained ? " within the domain's state constraint" : "") (\(counts))"
      }
      if outcome == .incomplete || (depth != nil && completeDepth ?? 0 < depth!) {
        return
          "every state within \(actions(completeDepth ?? 0)), and part of the next level, until the most states (maxStates, --max-states) \(groupedDigits(maxStates)) (\(counts))"
      }
      return "every state within \(actions(completeDepth ?? 0)) (\(counts))"
    }
  }

  /// The answer in one paragraph, with the counterexample's actions one per line.
  public var description: String {
    var text: String
    switch outcome {
    case .passed:
      text = "no invariant fails (\(goalNames.joined(separator: ", "))) in \(coverage)"
    case .incomplete:
      let none =
        if case .state(let name) = goal { "\(name) holds in none of them" } else {
          "no invariant fails (\(goalNames.joined(separator: ", "))) in them"
        }
      text = "searched \(coverage): \(none), and the rest was not searched"
    case .unreachable:
      text = "\(goalNames.first ?? "") holds in no state: searched \(coverage)"
    case .violated, .reached:
      guard let finding else { return "" }
      let count = finding.actions.count
      let verb = outcome == .violated ? "fails" : "holds"
      if count == 0 {
        return "\(finding.name) \(verb) in the initial state, before any action"
      }
      text =
        "\(finding.name) \(verb) after \(count) action\(count == 1 ? "" : "s")"
        + (walk(of: finding) ?? " (a shortest sequence)") + ":"
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      for (index, action) in finding.actions.enumerated() {
        let json = (try? encoder.encode(action)).map { String(decoding: $0, as: UTF8.self) }
        text += "\n  \(index + 1)  " + (json ?? String(describing: action))
      }
    }
    return text
  }

  /// The invariants checked, or the predicate searched for.
  public var goalNames: [String] {
    switch goal {
    case .violation(let names): names
    case .state(let name): [name]
    }
  }

  private func walk(of finding: Finding) -> String? {
    guard let walk = finding.walk else { return nil }
    return " (shrunk from \(walk.length) in random walk \(walk.run))"
  }

}

/// Progress of a running search, reported a few times a second.
public struct CheckProgress: Sendable {
  /// The successor states computed so far.
  public var generatedStates: Int
  /// The distinct states found so far (random walks: the walks finished).
  public var distinctStates: Int
  /// The states waiting to be explored.
  public var queued: Int
  /// The level being explored (random walks: the walk's length so far).
  public var depth: Int
  /// The time since the search began.
  public var elapsed: Duration
}

/// Why a model checker could not search.
public struct ModelCheckError: Error, Sendable, CustomStringConvertible {
  /// The kind of problem.
  public enum Code: Sendable, Equatable {
    /// The domain declares no exploration actions.
    case noExplorationActions
    /// No invariant or predicate has the name given.
    case unknownName
    /// A bound is out of range (a negative depth, no room for a state).
    case badBound
    /// Replaying the path the search recorded did not reach the state it found: the
    /// exploration actions or the reducer do not give the same answer twice, or two states
    /// shared a fingerprint.
    case notReproducible
    /// A state could not be fingerprinted (its encoding failed).
    case fingerprint
    /// Nothing would be checked: the domain declares no invariants, or no random walk can
    /// take a step. No pass is given for that.
    case nothingToCheck
  }

  /// The kind of problem.
  public var code: Code
  /// What went wrong, in one line.
  public var message: String

  /// Creates an error.
  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// The message.
  public var description: String { message }
}

/// `1234567` as `1,234,567`.
package func groupedDigits(_ value: Int) -> String {
  let digits = String(value.magnitude)
  var result = ""
  for (index, digit) in digits.enumerated() {
    if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
    result.append(digit)
  }
  return (value < 0 ? "-" : "") + result
}

extension Duration {
  /// The duration in seconds, fractions included.
  package var inSeconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
