import Dispatch
import Foundation
import Synchronization

/// Hashes states on a thread of its own, in the order they are given, while the caller
/// replays on: ``ReplayEngine/verify(progress:)`` hands it the state at each recorded hash
/// and takes the answers in order.
///
/// Hashing a large state is an encoding of all of it: on the 1M-action banking session it
/// was 40% of `verify`, on the thread that reduces. Here the reducer goes on to the next
/// hash while the last one is computed on another core. A state given is a copy that
/// shares the replay's storage, so the replay's next change copies what it touches
/// (copy-on-write): the caller bounds how many it gives before taking their answers.
///
/// The thread is its own, not Dispatch's: the caller often runs on Swift concurrency's pool,
/// which Dispatch's global queues share on Linux (see `ChunkPipeline`).
final class HashLane<State: Sendable>: Sendable {
  private let hash: @Sendable (State) -> UInt64
  /// The states not yet hashed, oldest first, with their numbers; the answers not yet taken;
  /// whether the caller is done.
  private let shared = Mutex<(queue: [(Int, State)], answers: [Int: UInt64], closed: Bool)>(
    ([], [:], false))
  /// One signal per state given, and one at close.
  private let given = DispatchSemaphore(value: 0)
  /// One signal per answer.
  private let answered = DispatchSemaphore(value: 0)

  /// Starts the lane's thread.
  ///
  /// - Parameter hash: The state hash; called on the lane's thread.
  init(hash: @escaping @Sendable (State) -> UInt64) {
    self.hash = hash
    let thread = Thread { [self] in run() }
    thread.name = "Retrace.HashLane"
    thread.start()
  }

  private func run() {
    while true {
      given.wait()
      let next = shared.withLock { shared -> (Int, State)? in
        shared.closed || shared.queue.isEmpty ? nil : shared.queue.removeFirst()
      }
      guard let (number, state) = next else { return }
      let value = hash(state)
      shared.withLock { $0.answers[number] = value }
      answered.signal()
    }
  }

  /// Queues `state` to be hashed as number `number`.
  func give(_ number: Int, _ state: State) {
    shared.withLock { $0.queue.append((number, state)) }
    given.signal()
  }

  /// The hash of state number `number`, waiting until it is computed.
  func answer(_ number: Int) -> UInt64 {
    while true {
      if let value = shared.withLock({ $0.answers.removeValue(forKey: number) }) { return value }
      answered.wait()
    }
  }

  /// Stops the thread once it is done with the state it is hashing; what is queued is not
  /// hashed. Call it once, when the caller needs no more answers.
  func close() {
    shared.withLock {
      $0.closed = true
      $0.queue.removeAll()
    }
    given.signal()
  }
}
