import FlyingSocks
import Foundation
import Synchronization

/// The clients' connections the server holds, and which of them wait for a request: past
/// ``limit`` connections, the one that has waited longest for its next request is ended to
/// make room, and a new connection is refused only when none waits.
///
/// Without a limit, a client that opened connections and sent nothing held one file
/// descriptor each until its idle time (60 s) ran out: 24,000 of them used every descriptor
/// the process may open, and no other client was answered until they timed out. An idle
/// connection is ended by shutting its socket down (never closing it here): its own task
/// reads the end, and closes the socket itself, so that no descriptor is closed twice or
/// under a read that waits on it.
final class OpenConnections: Sendable {
  /// The most connections held at once.
  let limit: Int

  private struct State {
    var open = 0
    var nextID = 0
    /// The connections waiting for a request, by id: their socket and since when.
    var idle: [Int: (socket: Int32, since: ContinuousClock.Instant)] = [:]
  }

  private let state = Mutex(State())

  /// Connections held at most by default: 2,048, well below the descriptors a process may
  /// open (``raiseDescriptorLimit()``).
  static let defaultLimit = 2_048

  init(limit: Int = OpenConnections.defaultLimit) {
    precondition(limit > 0, "a connection limit of at least one")
    self.limit = limit
  }

  /// How many connections are held.
  var count: Int { state.withLock { $0.open } }

  /// How many of the connections held wait for a request.
  var idleCount: Int { state.withLock { $0.idle.count } }

  /// Takes a new connection: `true` when it may be served (an idle one was ended to make
  /// room, if need be); `false` when the limit is reached and every connection held is
  /// busy with a request: the new one is to be closed at once.
  func admit() -> Bool {
    state.withLock { state in
      if state.open >= limit {
        guard let oldest = state.idle.min(by: { $0.value.since < $1.value.since }) else {
          return false
        }
        state.idle[oldest.key] = nil
        _ = shutdown(oldest.value.socket, Int32(SHUT_RDWR))
      }
      state.open += 1
      return true
    }
  }

  /// A connection admitted has ended.
  func ended() {
    state.withLock { $0.open -= 1 }
  }

  /// Notes that the connection on `socket` waits for a request; returns the id to pass to
  /// ``busy(_:)`` when bytes come, before the connection may close its socket.
  func idle(_ socket: Int32) -> Int {
    state.withLock { state in
      state.nextID += 1
      state.idle[state.nextID] = (socket, .now)
      return state.nextID
    }
  }

  /// Notes that connection `id` no longer waits (a request came, or it ends).
  func busy(_ id: Int) {
    _ = state.withLock { $0.idle.removeValue(forKey: id) }
  }

  /// Raises the process's soft limit on open file descriptors to its hard limit, so that
  /// ``limit`` connections, the live link's relays and the files read fit with room to spare.
  static func raiseDescriptorLimit() {
    var limits = rlimit()
    guard getrlimit(descriptorLimitResource, &limits) == 0, limits.rlim_cur < limits.rlim_max else {
      return
    }
    limits.rlim_cur = limits.rlim_max
    _ = setrlimit(descriptorLimitResource, &limits)
  }
}

#if os(Linux)
  private let descriptorLimitResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#else
  private let descriptorLimitResource = RLIMIT_NOFILE
#endif
