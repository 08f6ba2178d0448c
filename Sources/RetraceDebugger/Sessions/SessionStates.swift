import Retrace
import RetraceLog
import Synchronization

/// The states and actions of one session, answered from the fastest place that holds them:
/// what a tool that moves around a session (the Studio's slider and steps, a live session's
/// recording) asks for, again and again, near where it asked last.
///
/// A state comes, in order of preference:
/// - from the state last kept (``keep(_:at:)``), when it is the one asked for: a tool that
///   shows a state and then searches it, or steps forward from it (``take(at:)``), replays
///   nothing;
/// - from the engine (the whole session in memory, ``ReplayEngine``) and its
///   ``SpacedStates``, once a caller has made them: at most one spacing of replay;
/// - from the anchor, the state at the last multiple of ``anchorSpacing`` sought to, when it
///   lies at most two spacings before: a step back replays a few thousand actions;
/// - from the file (``SessionSource/state(at:)``: a trace's nearest snapshot), which then
///   becomes the anchor.
///
/// A session with time-travel jumps is answered by the engine or the file, which follow the
/// jumps; the anchor and the spaced states replay actions alone.
///
/// The engine and the spaced states are made by the caller, in the background, when it
/// chooses (they hold the whole session): ``init(_:engine:spacedStates:)`` takes how to
/// look them up, without waiting.
///
/// ```swift
/// let states = SessionStates(source)
/// let state = try states.state(at: 1_200)
/// let action = try states.action(at: 1_201)
/// ```
package final class SessionStates<D: Domain>: Sendable {
  /// The session as read from its file.
  package let source: any SessionSource<D>
  /// The engine, when the whole session is in memory; `nil` until then.
  private let engine: @Sendable () -> ReplayEngine<D>?
  /// The spaced states, when they are made; asking may start making them.
  private let spacedStates: @Sendable () -> SpacedStates<D>?
  /// What to do with a state no longer kept (releasing a large state takes time).
  private let release: @Sendable (D.State) -> Void
  /// The state at the last multiple of ``anchorSpacing`` sought to.
  private let anchor = Mutex<(sequence: UInt64, state: D.State)?>(nil)
  /// A run of actions read ahead of the last one asked for.
  private let readAhead = Mutex<[TimedAction<D.Action>]>([])
  /// The state a caller kept last, with its sequence number.
  private let kept = Mutex<(sequence: UInt64, state: D.State)?>(nil)

  /// How far apart anchors are: a step back replays at most twice this many actions.
  package static var anchorSpacing: UInt64 { 2_048 }
  /// How many actions ``action(at:)`` reads ahead when it reads from the file.
  package static var readAheadCount: UInt64 { 512 }

  /// The states of `source`, with the engine and spaced states `engine` and `spacedStates`
  /// return once they are made.
  ///
  /// - Parameters:
  ///   - source: The session as read from its file.
  ///   - engine: The engine over the whole session, if it is in memory yet. Called on every
  ///     answer: it must return at once.
  ///   - spacedStates: The spaced states of the engine's session, if they are made yet;
  ///     called only once the engine is there. It must return at once.
  ///   - release: Takes a state that is no longer kept (by default, dropped here).
  package init(
    _ source: any SessionSource<D>,
    engine: @escaping @Sendable () -> ReplayEngine<D>? = { nil },
    spacedStates: @escaping @Sendable () -> SpacedStates<D>? = { nil },
    release: @escaping @Sendable (D.State) -> Void = { _ in }
  ) {
    self.source = source
    self.engine = engine
    self.spacedStates = spacedStates
    self.release = release
  }

  /// The engine, when the whole session is in memory.
  package var loadedEngine: ReplayEngine<D>? { engine() }

  /// Keeps `state`, the state after action `sequence`, in place of the one kept before
  /// (which goes to `release`): the state a tool shows, which it may search next or step
  /// forward from.
  package func keep(_ state: D.State, at sequence: UInt64) {
    let old = kept.withLock { kept in
      defer { kept = (sequence, state) }
      return kept
    }
    if let old { release(old.state) }
  }

  /// The state kept after action `sequence`, no longer kept: a step forward changes it in
  /// place rather than a copy. `nil` when the state kept is another (or none is).
  package func take(at sequence: UInt64) -> D.State? {
    kept.withLock { kept in
      guard let taken = kept, taken.sequence == sequence else { return nil }
      kept = nil
      return taken.state
    }
  }

  /// The state after action `sequence`, which must lie in the session
  /// (``SessionSource/checkInRange(_:)``).
  ///
  /// - Throws: `TraceError` naming the problem in the file, or (`io`) saying that the
  ///   actions up to `sequence` cannot be read.
  package func state(at sequence: UInt64) throws -> D.State {
    if let state = kept.withLock({ $0?.sequence == sequence ? $0?.state : nil }) { return state }
    let domain = source.domain
    if !source.jumpSequences.isEmpty {
      return try engine()?.state(at: sequence) ?? source.state(at: sequence)
    }
    let engine = self.engine()
    let loaded = engine.map(\.session).flatMap {
      $0.sequenceRange.contains(sequence) ? $0 : nil
    }
    if let loaded, let spaced = spacedStates() {
      var (reached, state) = spaced.nearest(atOrBefore: sequence)
      Self.replay(&state, from: &reached, through: sequence, in: loaded, domain: domain)
      return state
    }
    let spacing = Self.anchorSpacing
    var start = anchor.withLock { anchor -> (sequence: UInt64, state: D.State)? in
      guard let anchor, anchor.sequence <= sequence, sequence - anchor.sequence < 2 * spacing
      else { return nil }
      return anchor
    }
    if start == nil {
      let base = max(source.startSequence, sequence - sequence % spacing)
      let state: D.State
      if loaded != nil, let engine {
        state = try engine.state(at: base)
      } else {
        state = try source.state(at: base)
      }
      let old = anchor.withLock { anchor in
        defer { anchor = (base, state) }
        return anchor
      }
      if let old { release(old.state) }
      start = (base, state)
    }
    guard var (reached, state) = start else { return try source.state(at: sequence) }
    if let loaded {
      Self.replay(&state, from: &reached, through: sequence, in: loaded, domain: domain)
    } else if reached < sequence {
      try source.forEachAction(from: reached + 1, through: sequence) { action in
        _ = domain.reduce(into: &state, action: action.action)
        reached = action.sequence
        return true
      }
    }
    guard reached == sequence else {
      throw TraceError(
        .io, "the actions up to \(sequence) cannot be read", path: source.path, sequence: sequence)
    }
    return state
  }

  /// The state after action `sequence` replayed without the actions in `skipped` (Redux
  /// DevTools' Skip), and the skipped actions that lie in the replay: after the session's
  /// start, at or before `sequence`. The replay starts from the state before the first of
  /// them; `nil` when none lies there (the state is ``state(at:)``'s).
  ///
  /// A time-travel jump still sets the state it set, as in
  /// ``ReplayEngine/state(at:skipping:)``, which answers once the session is in memory.
  ///
  /// - Throws: `TraceError` as ``state(at:)``.
  package func state(at sequence: UInt64, skipping skipped: Set<UInt64>) throws
    -> (state: D.State, skipped: [UInt64])?
  {
    let left = skipped.filter { $0 > source.startSequence && $0 <= sequence }
    guard let first = left.min() else { return nil }
    if let engine = engine(), engine.session.sequenceRange.contains(sequence) {
      return (try engine.state(at: sequence, skipping: left), left.sorted())
    }
    let domain = source.domain
    // The states the jumps in the replay set, read before it: the file is read once at a time.
    var jumped: [UInt64: D.State] = [:]
    for jump in source.jumpSequences where jump >= first && jump <= sequence {
      jumped[jump] = try source.state(at: jump)
    }
    var state = try state(at: first - 1)
    try source.forEachAction(from: first, through: sequence) { action in
      if !left.contains(action.sequence) {
        _ = domain.reduce(into: &state, action: action.action)
      }
      if let jump = jumped[action.sequence] { state = jump }
      return true
    }
    return (state, left.sorted())
  }

  /// Action `sequence`: from the session in memory, from the run read ahead, or read with
  /// the ones after it (``readAheadCount`` in all).
  ///
  /// - Throws: `TraceError` naming the problem in the file, or (`io`) saying that the
  ///   action cannot be read.
  package func action(at sequence: UInt64) throws -> TimedAction<D.Action> {
    if let action = engine()?.session.action(at: sequence) { return action }
    let cached = readAhead.withLock { run -> TimedAction<D.Action>? in
      guard let first = run.first?.sequence, sequence >= first, sequence - first < run.count
      else { return nil }
      return run[Int(sequence - first)]
    }
    if let cached { return cached }
    var run: [TimedAction<D.Action>] = []
    try source.forEachAction(
      from: sequence, through: min(source.lastSequence, sequence + Self.readAheadCount - 1)
    ) {
      run.append($0)
      return true
    }
    guard let first = run.first, first.sequence == sequence else {
      throw TraceError(
        .io, "action \(sequence) cannot be read", path: source.path, sequence: sequence)
    }
    readAhead.withLock { $0 = run }
    return first
  }

  /// Applies the actions of `session` after `reached` through `through` to `state`, and
  /// moves `reached` there.
  private static func replay(
    _ state: inout D.State, from reached: inout UInt64, through: UInt64,
    in session: RecordedSession<D>, domain: D
  ) {
    guard through > reached else { return }
    for action in session.actions[session.index(of: reached + 1)...session.index(of: through)] {
      _ = domain.reduce(into: &state, action: action.action)
    }
    reached = through
  }
}
