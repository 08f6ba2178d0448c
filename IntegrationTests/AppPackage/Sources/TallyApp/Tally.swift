import Retrace

/// A small domain of the tests' own, as an app's test target has.
public struct Tally: Equatable, Sendable {
  public var count = 0
  public init() {}
}

public enum TallyAction: Equatable, Sendable {
  case add(Int)
}

public struct TallyReducer: Reducer {
  public init() {}
  public func reduce(into state: inout Tally, action: TallyAction) -> Effect<TallyAction> {
    switch action {
    case .add(let amount): state.count += amount
    }
    return .none
  }
}
