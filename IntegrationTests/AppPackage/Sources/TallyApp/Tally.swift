import Retrace

/// The app's state: a tally that goes up by any amount and can be cleared.
public struct Tally: Codable, Equatable, Sendable {
  public var count = 0
  public var history: [Int] = []
  public init() {}
}

/// Everything a user can do to a tally.
public enum TallyAction: Codable, Equatable, Sendable {
  case add(Int)
  case clear
}

/// Applies the actions.
public struct TallyReducer: Reducer, Sendable {
  public init() {}
  public func reduce(into state: inout Tally, action: TallyAction) -> Effect<TallyAction> {
    switch action {
    case .add(let amount):
      state.count += amount
      state.history.append(amount)
    case .clear:
      state.count = 0
      state.history = []
    }
    return .none
  }
}

/// The tally as a domain: what the recorder writes into a trace's header and what the
/// app's debugger replays traces with.
public let tallyDomain = DomainDefinition(
  name: "tally",
  summary: "A tally that goes up by any amount and can be cleared.",
  initialState: Tally(),
  reducer: TallyReducer(),
  sampleActions: [.add(1), .clear],
  invariants: [
    Invariant("count-matches-history", "The count is the sum of the history.") {
      $0.count == $0.history.reduce(0, +)
    }
  ])
