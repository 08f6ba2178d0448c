import Synchronization

/// States a ``TraceSession`` has already reconstructed, so that seeking again near one (a
/// debugger stepping and jumping around a session) replays from there instead of decoding
/// a snapshot again: the decoded snapshots with the decoded actions of their chunks (a
/// snapshot's chunk holds the whole encoded state, tens of megabytes in a large trace, so
/// reading its actions again cost about as much as decoding the snapshot), most recently
/// used last, and the last state answered.
///
/// States are values: a cached state shares its storage with the copies handed out, and a
/// replay that continues from it copies only what it changes.
@usableFromInline
final class StateCache<State: Sendable, Action: Sendable>: Sendable {
  private struct Entries {
    var snapshots: [(sequence: UInt64, snapshot: DecodedSnapshot<State, Action>)] = []
    var last: (sequence: UInt64, state: State)?
  }

  private let entries = Mutex(Entries())
  /// How many decoded snapshots are kept.
  let capacity: Int

  @usableFromInline
  init(capacity: Int) {
    self.capacity = max(capacity, 0)
  }

  /// The decoded snapshot at `sequence`, if it is cached.
  @usableFromInline
  func snapshot(at sequence: UInt64) -> DecodedSnapshot<State, Action>? {
    entries.withLock { entries in
      guard let index = entries.snapshots.firstIndex(where: { $0.sequence == sequence }) else {
        return nil
      }
      let entry = entries.snapshots.remove(at: index)
      entries.snapshots.append(entry)
      return entry.snapshot
    }
  }

  /// Keeps a decoded snapshot, dropping the least recently used one beyond the capacity.
  @usableFromInline
  func keepSnapshot(_ snapshot: DecodedSnapshot<State, Action>, at sequence: UInt64) {
    guard capacity > 0 else { return }
    entries.withLock { entries in
      entries.snapshots.removeAll { $0.sequence == sequence }
      entries.snapshots.append((sequence, snapshot))
      if entries.snapshots.count > capacity { entries.snapshots.removeFirst() }
    }
  }

  /// The last state answered, if it lies in `range`.
  @usableFromInline
  func last(in range: ClosedRange<UInt64>) -> (sequence: UInt64, state: State)? {
    entries.withLock { entries in
      guard let last = entries.last, range.contains(last.sequence) else { return nil }
      return last
    }
  }

  /// Remembers the last state answered.
  @usableFromInline
  func keepLast(_ state: State, at sequence: UInt64) {
    guard capacity > 0 else { return }
    entries.withLock { $0.last = (sequence, state) }
  }
}

/// A snapshot decoded with the actions of its chunk (``TraceSession/state(at:)``).
@usableFromInline
struct DecodedSnapshot<State: Sendable, Action: Sendable>: Sendable {
  /// The state at the snapshot.
  @usableFromInline var state: State
  /// The chunk's actions, in order, up to the target they were decoded for (all of them
  /// when it lay beyond the chunk) or the first that could not be read.
  @usableFromInline var actions: [TimedAction<Action>]
  /// Whether ``actions`` runs to the chunk's end or to ``error``, rather than stopping at an
  /// earlier target.
  @usableFromInline var complete: Bool
  /// Why the chunk's actions stop short of its end, if they do.
  @usableFromInline var error: TraceError?

  @usableFromInline
  init(state: State, actions: [TimedAction<Action>], complete: Bool, error: TraceError?) {
    self.state = state
    self.actions = actions
    self.complete = complete
    self.error = error
  }
}
