import FlyingSocks
import Foundation

/// The socket pool the Studio's server waits on sockets with: FlyingFox's own, which also
/// turns off Nagle's algorithm (`TCP_NODELAY`) on every socket it waits for.
///
/// FlyingFox writes a response's headers and its body in separate writes. With Nagle's
/// algorithm on, the body's last segment waits for the browser to acknowledge the headers,
/// and the browser delays that acknowledgement: on a connection kept alive, every answer
/// after the first would arrive about 40 ms late, whatever it cost to compute. The listening
/// socket is waited on first, and the connections it accepts inherit the option; each
/// connection is also set when it is first waited on.
struct NoDelaySocketPool: AsyncSocketPool {
  /// The pool that does the waiting.
  let base: any AsyncSocketPool

  /// `TCP_NODELAY`, for `Socket.setValue(_:for:)`.
  static var noDelay: BoolSocketOption {
    BoolSocketOption(level: Int32(IPPROTO_TCP), name: Int32(TCP_NODELAY))
  }

  func prepare() async throws { try await base.prepare() }

  func run() async throws { try await base.run() }

  func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
    // A socket that is not TCP (a Unix domain socket) refuses the option: nothing to do.
    try? socket.setValue(true, for: Self.noDelay)
    try await base.suspendSocket(socket, untilReadyFor: events)
  }
}
