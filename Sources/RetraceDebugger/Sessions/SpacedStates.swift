import Retrace
import RetraceLog

/// States of a session kept in memory every ``spacing`` actions, so that the state at any
/// point is at most ``spacing`` actions of replay away.
///
/// A trace's snapshots make seeking in the file fast, but a recorder spaces them by the
/// state's size (a banking state after 900,000 actions is tens of megabytes), so late in a
/// long session they lie hundreds of thousands of actions apart, and a session loaded whole
/// keeps only its first snapshot decoded: the engine replays from the start, about 100 ms
/// for a million banking actions. These states are made by one replay of the session,
/// in the background, once it is in memory.
///
/// These are not a trace's checkpoints (recorded state hashes): they are states, kept in
/// memory, spaced evenly.
///
/// Their memory is bounded: each state's size is estimated by the caller (the Studio counts
/// the size of its JSON), and when the states together would pass ``byteBudget``, the
/// spacing doubles and every other one is dropped. The spacing starts at ``minimumSpacing``.
///
/// ```swift
/// let spaced = SpacedStates(engine, estimate: { _ in 1_000 })
/// let (sequence, state) = spaced.nearest(atOrBefore: 750_000)
/// ```
package struct SpacedStates<D: Domain>: Sendable {
  /// The estimated bytes the states may hold together: 512 MiB of JSON, which a state
  /// holds in memory in about a third of that (a banking transaction is 32 bytes in memory
  /// and about 100 in JSON).
  package static var byteBudget: Int { 512 << 20 }
  /// The closest the states are: 4,096 actions, a replay of well under a millisecond.
  package static var minimumSpacing: UInt64 { 4_096 }

  /// How many actions apart the states are.
  package let spacing: UInt64
  /// The states at `startSequence` and at every multiple of ``spacing`` after it, in order.
  package let states: [(sequence: UInt64, state: D.State)]
  /// The states' estimated size together, in bytes.
  package let estimatedBytes: Int

  /// Replays `debugger`'s session once and keeps its states every `spacing` actions, or a
  /// power of two times that, within `budget` bytes as `estimate` counts them.
  package init(
    _ debugger: ReplayEngine<D>, budget: Int = Self.byteBudget,
    spacing: UInt64 = Self.minimumSpacing,
    estimate: (D.State) -> Int
  ) {
    precondition(spacing > 0, "spaced states need a spacing of at least 1")
    let session = debugger.session
    let domain = debugger.domain
    var spacing = spacing
    var kept: [(sequence: UInt64, state: D.State, bytes: Int)] = [
      (session.startSequence, session.initialState, estimate(session.initialState))
    ]
    var total = kept[0].bytes
    var state = session.initialState
    var sequence = session.startSequence
    for action in session.actions {
      _ = domain.reduce(into: &state, action: action.action)
      sequence = action.sequence
      guard (sequence - session.startSequence) % spacing == 0 else { continue }
      let bytes = estimate(state)
      kept.append((sequence, state, bytes))
      total += bytes
      // Over the budget: keep every other state, as often as needed (the first, the
      // session's start, always stays).
      while total > budget, kept.count > 1 {
        spacing *= 2
        kept.removeAll { ($0.sequence - session.startSequence) % spacing != 0 }
        total = kept.reduce(0) { $0 + $1.bytes }
      }
    }
    self.spacing = spacing
    self.states = kept.map { ($0.sequence, $0.state) }
    self.estimatedBytes = total
  }

  /// The latest state at or before `sequence` (the session's start at least).
  package func nearest(atOrBefore sequence: UInt64) -> (sequence: UInt64, state: D.State) {
    var low = 0
    var high = states.count
    while low < high {
      let middle = (low + high) / 2
      if states[middle].sequence <= sequence { low = middle + 1 } else { high = middle }
    }
    return states[max(0, low - 1)]
  }
}
