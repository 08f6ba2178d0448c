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

/// A state written out in swift-custom-dump's format, but no deeper than keeps the output to
/// about `maxNodes` values: what the CLI prints for states too large to read (or to dump
/// quickly) in full.
///
/// It counts the state's values level by level (fields, elements) and stops descending at
/// the first level that would take the total past `maxNodes`; deeper values print as `…`.
///
/// ```swift
/// let (text, depth) = stateDump(bankingState, maxNodes: 20_000)
/// print(text)
/// ```
///
/// ```
/// BankingState(
///   accounts: [
///     [0]: Account(
///       name: "Daily Expenses",
///       iban: "NL56INGB6997787562",
///       kind: .checking,
///       transactions: […],
///       balance: 4412
///     ),
///   …
/// ```
///
/// - Parameters:
///   - state: The state to write out.
///   - maxNodes: About how many values to write at most.
/// - Returns: The dump, and the depth it stopped at (`nil` when the whole state fits).
public func stateDump<State>(_ state: State, maxNodes: Int) -> (text: String, depth: Int?) {
  var level: [Any] = [state]
  var total = 0
  var depth = 0
  var limit: Int?
  levels: while !level.isEmpty {
    total += level.count
    var next: [Any] = []
    for value in level {
      for child in Mirror(reflecting: value).children {
        next.append(child.value)
        if total + next.count > maxNodes {
          limit = depth
          break levels
        }
      }
    }
    level = next
    depth += 1
  }
  var text = ""
  customDump(state, to: &text, maxDepth: limit ?? .max)
  return (text, limit)
}
