import CustomDump

/// What changed between two states, field by field, in swift-custom-dump's format: `-`
/// lines for the old values, `+` lines for the new ones; `nil` when they are equal.
///
/// ```swift
/// print(stateDiff(CounterState(count: 1), CounterState(count: 2))!)
/// ```
///
/// ```
/// - CounterState(count: 1)
/// + CounterState(count: 2)
/// ```
///
/// - Parameters:
///   - old: The state before.
///   - new: The state after.
/// - Returns: The diff, or `nil` when nothing changed.
public func stateDiff<State>(_ old: State, _ new: State) -> String? {
  diff(old, new)
}

/// A state written out in full, in swift-custom-dump's format.
///
/// ```swift
/// print(stateDump(CounterState(count: 2)))
/// ```
///
/// ```
/// CounterState(count: 2)
/// ```
///
/// - Parameter state: The state to write out.
/// - Returns: The dump.
public func stateDump<State>(_ state: State) -> String {
  String(customDumping: state)
}
