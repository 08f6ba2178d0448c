/// Two reducers run one after the other on the same state; see ``Reducer/combined(with:)``.
public struct CombinedReducer<First: Reducer, Second: Reducer>: Reducer
where First.State == Second.State, First.Action == Second.Action {
  @usableFromInline let first: First
  @usableFromInline let second: Second

  @inlinable
  init(first: First, second: Second) {
    self.first = first
    self.second = second
  }

  /// Runs the first reducer, then the second, and merges their effects.
  @inlinable
  public func reduce(into state: inout First.State, action: First.Action) -> Effect<First.Action> {
    let a = first.reduce(into: &state, action: action)
    let b = second.reduce(into: &state, action: action)
    return a.merge(with: b)
  }
}

extension CombinedReducer: Sendable where First: Sendable, Second: Sendable {}

extension Reducer {
  /// Returns a reducer that runs this reducer and then `other` on the same state and action.
  ///
  /// ```swift
  /// let app = accounts.combined(with: analytics)
  /// ```
  ///
  /// - Parameter other: The reducer to run second; it sees the state this one produced.
  /// - Returns: A reducer whose effect merges both effects.
  @inlinable
  public func combined<Other: Reducer>(with other: Other) -> CombinedReducer<Self, Other>
  where Other.State == State, Other.Action == Action {
    CombinedReducer(first: self, second: other)
  }
}
