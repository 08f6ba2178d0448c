import DequeModule

/// An in-memory, bounded history of actions with undo, redo and jumps: time travel for a
/// running app or a debugger.
///
/// The history keeps the actions it was given and a snapshot of the state every
/// ``snapshotInterval`` actions, so that moving to any position replays at most
/// `snapshotInterval - 1` actions from the nearest snapshot. It never runs effects.
///
/// ```swift
/// var history = History(initialState: CounterState(), reducer: CounterReducer(),
///                       snapshotInterval: 100, capacity: 10_000)
/// history.append(.increment)
/// history.append(.increment)
/// history.undo()
/// history.state.count  // 1
/// history.redo()
/// history.state.count  // 2
/// ```
///
/// ## Positions
///
/// Position `p` is the state after the `p`-th action ever appended (position 0 is the
/// initial state). When more than ``capacity`` actions are held, the oldest are dropped a
/// snapshot interval at a time, and ``startPosition`` moves forward: positions stay stable,
/// but the ones before `startPosition` can no longer be reached.
///
/// ## Memory
///
/// At most `capacity + snapshotInterval` actions and `capacity / snapshotInterval + 2`
/// snapshots are held. Snapshots share unchanged storage with each other through
/// copy-on-write, so a snapshot usually costs far less than a full copy of the state.
public struct History<State, Action> {
  private let reduce: (inout State, Action) -> Void
  /// Actions from `startPosition`; `actions[i]` leads from position `startPosition + i` to the next.
  private var actions = Deque<Action>()
  /// Snapshots at positions that are multiples of `snapshotInterval`, from `startPosition`.
  private var snapshots = Deque<State>()

  /// The number of actions between two snapshots; also the most reducer calls a move costs.
  public let snapshotInterval: Int
  /// The most actions held before the oldest are dropped.
  public let capacity: Int
  /// The oldest reachable position.
  public private(set) var startPosition = 0
  /// The current position.
  public private(set) var position = 0
  /// The state at the current position.
  public private(set) var state: State

  /// Creates an empty history.
  ///
  /// - Parameters:
  ///   - initialState: The state at position 0.
  ///   - reducer: The reducer that applies actions (their effects are ignored).
  ///   - snapshotInterval: Actions between snapshots (at least 1).
  ///   - capacity: The most actions to hold (at least `snapshotInterval`).
  public init<R: Reducer>(
    initialState: State,
    reducer: R,
    snapshotInterval: Int = 100,
    capacity: Int = 10_000
  ) where R.State == State, R.Action == Action {
    precondition(snapshotInterval >= 1, "snapshotInterval must be at least 1")
    precondition(capacity >= snapshotInterval, "capacity must be at least snapshotInterval")
    self.reduce = { _ = reducer.reduce(into: &$0, action: $1) }
    self.snapshotInterval = snapshotInterval
    self.capacity = capacity
    self.state = initialState
    self.snapshots.append(initialState)
  }

  /// The position after the last action held.
  public var endPosition: Int { startPosition + actions.count }

  /// Whether ``undo()`` can move back.
  public var canUndo: Bool { position > startPosition }

  /// Whether ``redo()`` can move forward.
  public var canRedo: Bool { position < endPosition }

  /// The action that leads from `position - 1` to `position`, if it is held.
  ///
  /// - Parameter position: A position in `startPosition + 1 ... endPosition`.
  public func action(at position: Int) -> Action? {
    let index = position - 1 - startPosition
    return actions.indices.contains(index) ? actions[index] : nil
  }

  /// Applies `action` at the current position.
  ///
  /// If the current position is before the end (after an undo), the actions after it are
  /// discarded first, as in any editor's undo stack.
  ///
  /// - Parameter action: The action to apply.
  public mutating func append(_ action: Action) {
    if position < endPosition {
      actions.removeLast(endPosition - position)
      let keptSnapshots = (position - startPosition) / snapshotInterval + 1
      snapshots.removeLast(snapshots.count - keptSnapshots)
    }
    reduce(&state, action)
    actions.append(action)
    position += 1
    if (position - startPosition) % snapshotInterval == 0 {
      snapshots.append(state)
    }
    if actions.count > capacity + snapshotInterval - 1 {
      actions.removeFirst(snapshotInterval)
      snapshots.removeFirst()
      startPosition += snapshotInterval
    }
  }

  /// Moves one action back. Returns `false` when already at ``startPosition``.
  @discardableResult
  public mutating func undo() -> Bool {
    guard canUndo else { return false }
    jump(to: position - 1)
    return true
  }

  /// Moves one action forward. Returns `false` when already at ``endPosition``.
  @discardableResult
  public mutating func redo() -> Bool {
    guard canRedo else { return false }
    jump(to: position + 1)
    return true
  }

  /// Moves back to the oldest reachable position.
  public mutating func rewind() {
    jump(to: startPosition)
  }

  /// Moves to `target`, replaying at most `snapshotInterval - 1` actions.
  ///
  /// - Parameter target: A position in `startPosition ... endPosition`.
  public mutating func jump(to target: Int) {
    precondition(
      (startPosition...endPosition).contains(target),
      "position \(target) is outside \(startPosition)...\(endPosition)")
    let snapshotIndex = (target - startPosition) / snapshotInterval
    let snapshotPosition = startPosition + snapshotIndex * snapshotInterval
    // Replay forward from the current state when that is at least as close as the snapshot.
    if !(position >= snapshotPosition && position <= target) {
      state = snapshots[snapshotIndex]
      position = snapshotPosition
    }
    while position < target {
      reduce(&state, actions[position - startPosition])
      position += 1
    }
  }
}
