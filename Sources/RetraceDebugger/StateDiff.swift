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
/// Small states are diffed by swift-custom-dump's `diff` itself. In a large state, only the
/// path to what changed is walked: equal fields and elements are compared with `==` and
/// written as one line, and a large collection skips its common prefix and suffix
/// (`… (93361 unchanged)`), so an account that gained one of its 120,000 transactions costs
/// a comparison per transaction, not a reflection of each. The elements between are matched
/// as swift-custom-dump matches them when there are at most 1,000 of them, by position
/// when there are more.
///
/// The text is swift-custom-dump's, except: past 1,000 elements between the common ends, an
/// element inserted in the middle shows as the elements after it changing; a removal and an
/// insertion that the Myers diff pairs at different positions are both dumped, not diffed
/// against each other; and objects are numbered (`#1 Box`) within each part that
/// swift-custom-dump writes, not across the whole diff.
///
/// - Parameters:
///   - old: The state before.
///   - new: The state after.
/// - Returns: The diff, or `nil` when nothing changed.
public func stateDiff<State>(_ old: State, _ new: State) -> String? {
  stateDiff(old, new, maxNodes: .max)?.text
}

/// About how many values `retrace state`, `retrace diff` and the debugger show of a large
/// state or change (``stateDump(_:maxNodes:)``, ``stateDiff(_:_:maxNodes:)``): enough to read,
/// few enough to print at once.
public let readableNodeCount = 20_000

/// What changed between two states, as ``stateDiff(_:_:)`` writes it, but no longer than
/// about `maxNodes` values: what the CLI and the debugger show for states too large to read
/// (or to diff quickly) in full.
///
/// Past the budget, the remaining changes of a collection are summarized as
/// `… (N more changes)`, an element that only one side has is dumped only as deep as the
/// budget allows (`…` marks the rest), as in ``stateDump(_:maxNodes:)``, and so are both sides
/// of a change that swift-custom-dump would write whole and that the budget cannot hold (in a
/// dictionary or an enum's payload larger than what is left of it).
///
/// ```swift
/// if let (text, isComplete) = stateDiff(before, after, maxNodes: 2_000) {
///   print(text)
///   if !isComplete { print("(the rest left out)") }
/// }
/// ```
///
/// - Parameters:
///   - old: The state before.
///   - new: The state after.
///   - maxNodes: About how many values to write at most.
/// - Returns: The diff and whether it is all there, or `nil` when nothing changed.
public func stateDiff<State>(_ old: State, _ new: State, maxNodes: Int) -> (
  text: String, isComplete: Bool
)? {
  var writer = StateDiffWriter(maxNodes: maxNodes)
  writer.write(old, new)
  guard writer.foundDifference else { return nil }
  var text = writer.text
  if text.hasSuffix("\n") { text.removeLast() }
  return (text, writer.isComplete)
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
  let (depth, _) = dumpDepth(of: state, maxNodes: maxNodes)
  var text = ""
  customDump(state, to: &text, maxDepth: depth ?? .max)
  return (text, depth)
}
