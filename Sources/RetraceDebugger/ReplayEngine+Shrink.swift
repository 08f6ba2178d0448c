import Retrace

/// The result of ``ReplayEngine/shrink(invariant:progress:)``: a 1-minimal subsequence of a
/// session's actions that still breaks an invariant.
public struct ShrinkResult<D: Domain>: Sendable {
  /// The invariant's name.
  public var invariant: String
  /// The number of actions in the session that was shrunk.
  public var originalCount: Int
  /// The actions that still break the invariant, with their original sequence numbers and
  /// times, in their original order. Removing any one of them makes the invariant hold.
  public var actions: [TimedAction<D.Action>]
  /// The number of replays the search took.
  public var replays: Int
  /// The session the actions were taken from.
  public var source: RecordedSession<D>

  /// The shrunk actions as a session of their own, numbered from 1, with the source's
  /// facts and initial state and no checkpoints or snapshots.
  public var session: RecordedSession<D> {
    var info = source.info
    info.sessionID += "-shrunk"
    return RecordedSession(
      info: info, startSequence: 0, initialState: source.initialState,
      actions: actions.enumerated().map {
        TimedAction(
          sequence: UInt64($0.offset + 1), time: $0.element.time, action: $0.element.action)
      })
  }
}

extension ReplayEngine {
  /// Shrinks the session to a 1-minimal sequence of its actions that still breaks the
  /// invariant called `name`, by delta debugging (Zeller and Hildebrandt's *ddmin*).
  ///
  /// A candidate "still breaks the invariant" when replaying it from the session's initial
  /// state makes the invariant fail after some action. The search first cuts the session
  /// after its first violation (found exactly, as ``bisect(invariant:progress:)`` does), then
  /// removes ever smaller chunks for as long as the failure persists. The result is
  /// 1-minimal: removing any single action from it makes the invariant hold throughout.
  ///
  /// ```swift
  /// // 10,000 counter actions that never go below zero, but for one extra decrement.
  /// let result = try debugger.shrink(invariant: "non-negative")!
  /// print(result.actions.map { actionCaseName(of: $0.action) })
  /// ```
  ///
  /// ```
  /// ["decrement"]
  /// ```
  ///
  /// - Parameters:
  ///   - name: The name of one of the domain's invariants.
  ///   - progress: Called after every replay with the current candidate's length and the
  ///     original length.
  /// - Returns: The shrunk actions, or `nil` when the invariant never fails.
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/unknownInvariant``) listing the known
  ///   invariants; ``DebuggerError/Code/unsupported`` for a session with time-travel jumps
  ///   (`RecordedSession.jumps`), whose states the actions alone do not give.
  public func shrink(
    invariant name: String, progress: ((_ candidate: Int, _ original: Int) -> Void)? = nil
  ) throws(DebuggerError) -> ShrinkResult<D>? {
    let holds = try invariant(named: name).holds
    if let jump = session.jumps.first {
      throw DebuggerError(
        .unsupported,
        "the session holds \(session.jumps.count) time-travel jump(s), the first after action \(jump.sequence); shrink replays the actions alone, so it cannot shrink such a session",
        sequence: jump.sequence)
    }
    let bisection = try bisect(invariant: name)
    guard let violation = bisection.firstViolation else { return nil }
    let actions = session.actions
    // Everything after the first violation is irrelevant to it.
    var candidate = Array(
      0..<(violation == session.startSequence ? 0 : session.index(of: violation) + 1))
    var replays = 0
    func fails(_ indices: [Int]) -> Bool {
      replays += 1
      return self.fails(holds, replaying: indices.lazy.map { actions[$0].action })
    }

    var granularity = 2
    while candidate.count >= 2 {
      let chunks = split(candidate, into: granularity)
      var reduced = false
      // Try each chunk alone: the failure may live entirely in one.
      for chunk in chunks where fails(chunk) {
        candidate = chunk
        granularity = 2
        reduced = true
        break
      }
      if !reduced {
        // Try removing each chunk.
        for skip in chunks.indices {
          let complement = chunks.indices.filter { $0 != skip }.flatMap { chunks[$0] }
          if fails(complement) {
            candidate = complement
            granularity = max(granularity - 1, 2)
            reduced = true
            break
          }
        }
      }
      progress?(candidate.count, actions.count)
      if !reduced {
        if granularity >= candidate.count { break }
        granularity = min(candidate.count, granularity * 2)
      }
    }
    return ShrinkResult(
      invariant: name, originalCount: actions.count, actions: candidate.map { actions[$0] },
      replays: replays, source: session)
  }

  /// Splits `elements` into `count` chunks of nearly equal length, in order.
  private func split(_ elements: [Int], into count: Int) -> [[Int]] {
    var chunks: [[Int]] = []
    chunks.reserveCapacity(count)
    var start = 0
    for chunk in 0..<count {
      let end = start + (elements.count - start) / (count - chunk)
      chunks.append(Array(elements[start..<end]))
      start = end
    }
    return chunks.filter { !$0.isEmpty }
  }
}
