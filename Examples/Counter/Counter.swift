import Retrace

/// The counter example's state.
public struct CounterState: Codable, Hashable, Sendable {
  /// The current count.
  public var count: Int

  /// Creates a counter state.
  ///
  /// - Parameter count: The starting count.
  public init(count: Int = 0) {
    self.count = count
  }
}

/// The counter example's actions: `{"increment":{}}`, `{"decrement":{}}`, `{"reset":{}}`.
public enum CounterAction: Codable, Equatable, Sendable, CaseIterable {
  /// Adds one.
  case increment
  /// Subtracts one (the count may go below zero, which breaks the `non-negative` invariant).
  case decrement
  /// Sets the count back to zero.
  case reset
}

/// The counter example's reducer.
public struct CounterReducer: Reducer, Sendable {
  /// Creates the reducer.
  public init() {}

  /// Applies a counter action.
  @inlinable
  public func reduce(into state: inout CounterState, action: CounterAction) -> Effect<CounterAction>
  {
    switch action {
    // At the ends of Int, reachable only from a hostile snapshot, the count stays put
    // rather than trapping.
    case .increment:
      let (next, overflow) = state.count.addingReportingOverflow(1)
      if !overflow { state.count = next }
    case .decrement:
      let (next, overflow) = state.count.subtractingReportingOverflow(1)
      if !overflow { state.count = next }
    case .reset: state.count = 0
    }
    return .none
  }
}

/// The `counter` domain: a count that goes up and down, after the seed's counter app.
public let counterDomain = DomainDefinition(
  name: "counter",
  summary: "A count that goes up and down, and can be reset.",
  initialState: CounterState(),
  reducer: CounterReducer(),
  actionCases: ["increment", "decrement", "reset"],
  invariants: [
    Invariant("non-negative", "The count is never below zero.") { $0.count >= 0 }
  ],
  workload: Workload { state, _, random in
    // A person tapping: mostly up, sometimes down (rarely below zero), now and then reset.
    let roll = Int.random(in: 0..<100, using: &random)
    switch roll {
    case 0..<3: return .reset
    case 3..<38: return state.count > 0 || roll < 5 ? .decrement : .increment
    default: return .increment
    }
  },
  explorationActions: CounterExploration.actions,
  stateConstraint: CounterExploration.constraint,
  predicates: counterPredicates,
  statesHashEveryField: true
)
