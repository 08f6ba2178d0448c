import Retrace

/// What `retrace check` may send in a counter state: every action, in every state
/// (increment, decrement and reset are always on screen).
///
/// The count is unbounded, so ``constraint`` stops exploring beyond ±3: 9 states (-4 to 4),
/// searched completely in 21 steps. The `non-negative` invariant fails after one
/// `decrement`, as ``CounterAction/decrement`` documents.
public enum CounterExploration {
  /// The actions that may be sent in `state`: increment, decrement and reset.
  @Sendable public static func actions(in state: CounterState) -> [CounterAction] {
    CounterAction.allCases
  }

  /// Which states are explored further: counts from -3 to 3.
  @Sendable public static func constraint(_ state: CounterState) -> Bool {
    abs(state.count) <= 3
  }
}

/// Named conditions `retrace check --reach` can search for in a counter state.
public let counterPredicates: [StatePredicate<CounterState>] = [
  StatePredicate("count-three", "The count is 3.") { $0.count == 3 },
  StatePredicate("below-zero", "The count is below zero.") { $0.count < 0 },
]
