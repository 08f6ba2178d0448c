import Foundation
import RetraceCBOR

/// The app's messages, written the way the link's sender builds its frames: appended to a
/// byte array, each field as it comes, with the package's one CBOR writer
/// (`CBORPrimitiveWriter`). Heads are in their shortest form, keys are text, actions and
/// states are embedded as byte strings, and times are double-precision floats.
extension AppMessage {
  /// Appends a `hello` whose state is `state`, the deterministic encoding of the store's
  /// state: the link's is in a byte array of its own, which a ``Hello`` would copy.
  package static func appendHello(
    domain: String, actionSchemaVersion: Int, sessionID: String, startTime: Double,
    app: [String: String], sequence: UInt64, state: UnsafeRawBufferPointer, dropped: Int,
    commands: [String], version: UInt64 = LiveProtocol.version, to bytes: inout [UInt8]
  ) {
    CBORPrimitiveWriter.appendHead(5, 11, to: &bytes)
    appendType("hello", to: &bytes)
    CBORPrimitiveWriter.appendText("protocol", to: &bytes)
    CBORPrimitiveWriter.appendHead(0, version, to: &bytes)
    CBORPrimitiveWriter.appendText("domain", to: &bytes)
    CBORPrimitiveWriter.appendText(domain, to: &bytes)
    CBORPrimitiveWriter.appendText("actionSchemaVersion", to: &bytes)
    CBORPrimitiveWriter.appendInteger(actionSchemaVersion, to: &bytes)
    CBORPrimitiveWriter.appendText("sessionID", to: &bytes)
    CBORPrimitiveWriter.appendText(sessionID, to: &bytes)
    CBORPrimitiveWriter.appendText("startTime", to: &bytes)
    CBORPrimitiveWriter.appendFloat64(startTime, to: &bytes)
    CBORPrimitiveWriter.appendText("app", to: &bytes)
    CBORPrimitiveWriter.appendHead(5, UInt64(app.count), to: &bytes)
    for (key, value) in app.sorted(by: { $0.key < $1.key }) {
      CBORPrimitiveWriter.appendText(key, to: &bytes)
      CBORPrimitiveWriter.appendText(value, to: &bytes)
    }
    CBORPrimitiveWriter.appendText("sequence", to: &bytes)
    CBORPrimitiveWriter.appendHead(0, sequence, to: &bytes)
    CBORPrimitiveWriter.appendText("state", to: &bytes)
    CBORPrimitiveWriter.appendByteString(state, to: &bytes)
    CBORPrimitiveWriter.appendText("dropped", to: &bytes)
    CBORPrimitiveWriter.appendInteger(dropped, to: &bytes)
    CBORPrimitiveWriter.appendText("commands", to: &bytes)
    CBORPrimitiveWriter.appendHead(4, UInt64(commands.count), to: &bytes)
    for command in commands { CBORPrimitiveWriter.appendText(command, to: &bytes) }
  }

  /// Appends the start of an `actions` message of `count` actions from `first`, up to its
  /// `times` array's head. The message goes on with `count` ``appendTime(_:to:)``, then
  /// ``appendActionsArrayHead(count:to:)`` and `count` ``appendAction(_:to:)``.
  @inlinable
  package static func appendActionsHead(first: UInt64, count: Int, to bytes: inout [UInt8]) {
    CBORPrimitiveWriter.appendHead(5, 4, to: &bytes)
    appendType("actions", to: &bytes)
    CBORPrimitiveWriter.appendText("first", to: &bytes)
    CBORPrimitiveWriter.appendHead(0, first, to: &bytes)
    CBORPrimitiveWriter.appendText("times", to: &bytes)
    CBORPrimitiveWriter.appendHead(4, UInt64(count), to: &bytes)
  }

  /// Appends one action's time (seconds since 1970) to an `actions` message's `times`.
  @inlinable @inline(__always)
  package static func appendTime(_ time: Double, to bytes: inout [UInt8]) {
    CBORPrimitiveWriter.appendFloat64(time, to: &bytes)
  }

  /// Appends the `actions` key of an `actions` message and its array's head, after its
  /// times.
  @inlinable
  package static func appendActionsArrayHead(count: Int, to bytes: inout [UInt8]) {
    CBORPrimitiveWriter.appendText("actions", to: &bytes)
    CBORPrimitiveWriter.appendHead(4, UInt64(count), to: &bytes)
  }

  /// Appends one action, as the trace writes it, to an `actions` message's `actions`.
  @inlinable @inline(__always)
  package static func appendAction(_ action: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
    CBORPrimitiveWriter.appendByteString(action, to: &bytes)
  }

  /// Appends a `checkpoint`: the hash of the app's state after action `sequence`.
  package static func appendCheckpoint(
    sequence: UInt64, hash: UInt64, to bytes: inout [UInt8]
  ) {
    CBORPrimitiveWriter.appendHead(5, 3, to: &bytes)
    appendType("checkpoint", to: &bytes)
    CBORPrimitiveWriter.appendText("sequence", to: &bytes)
    CBORPrimitiveWriter.appendHead(0, sequence, to: &bytes)
    CBORPrimitiveWriter.appendText("hash", to: &bytes)
    CBORPrimitiveWriter.appendHead(0, hash, to: &bytes)
  }

  /// Appends the app's `jump`: its store was set to `state` after action `sequence`.
  package static func appendJump(
    sequence: UInt64, time: Double, state: UnsafeRawBufferPointer, to bytes: inout [UInt8]
  ) {
    CBORPrimitiveWriter.appendHead(5, 4, to: &bytes)
    appendType("jump", to: &bytes)
    CBORPrimitiveWriter.appendText("sequence", to: &bytes)
    CBORPrimitiveWriter.appendHead(0, sequence, to: &bytes)
    CBORPrimitiveWriter.appendText("time", to: &bytes)
    CBORPrimitiveWriter.appendFloat64(time, to: &bytes)
    CBORPrimitiveWriter.appendText("state", to: &bytes)
    CBORPrimitiveWriter.appendByteString(state, to: &bytes)
  }

  /// Appends an `error`, the message either end sends when it refuses something.
  package static func appendError(_ message: String, to bytes: inout [UInt8]) {
    CBORPrimitiveWriter.appendHead(5, 2, to: &bytes)
    appendType("error", to: &bytes)
    CBORPrimitiveWriter.appendText("message", to: &bytes)
    CBORPrimitiveWriter.appendText(message, to: &bytes)
  }

  /// Appends the `type` key and its value.
  @inlinable @inline(__always)
  package static func appendType(_ type: String, to bytes: inout [UInt8]) {
    CBORPrimitiveWriter.appendText("type", to: &bytes)
    CBORPrimitiveWriter.appendText(type, to: &bytes)
  }

  /// The message's encoding, as the app sends it: the same bytes the `append` functions
  /// write. A `hello`'s `commands` are written in sorted order.
  package func encoded() throws(LiveProtocolError) -> [UInt8] {
    var bytes: [UInt8] = []
    switch self {
    case .hello(let hello):
      hello.state.withUnsafeBytes { state in
        Self.appendHello(
          domain: hello.domain, actionSchemaVersion: hello.actionSchemaVersion,
          sessionID: hello.sessionID, startTime: hello.startTime, app: hello.app,
          sequence: hello.sequence, state: state, dropped: hello.dropped,
          commands: hello.commands.sorted(), version: hello.version, to: &bytes)
      }
    case .actions(let actions):
      var times: [Double] = []
      var encoded: [UInt8] = []
      var ends: [Int] = []
      try actions.forEach { _, time, action in
        times.append(time)
        encoded.append(contentsOf: action)
        ends.append(encoded.count)
      }
      Self.appendActionsHead(first: actions.first, count: actions.count, to: &bytes)
      for time in times { Self.appendTime(time, to: &bytes) }
      Self.appendActionsArrayHead(count: actions.count, to: &bytes)
      encoded.withUnsafeBytes { encoded in
        var start = 0
        for end in ends {
          Self.appendAction(UnsafeRawBufferPointer(rebasing: encoded[start..<end]), to: &bytes)
          start = end
        }
      }
    case .checkpoint(let sequence, let hash):
      Self.appendCheckpoint(sequence: sequence, hash: hash, to: &bytes)
    case .jump(let sequence, let time, let state):
      state.withUnsafeBytes {
        Self.appendJump(sequence: sequence, time: time, state: $0, to: &bytes)
      }
    case .error(let message):
      Self.appendError(message, to: &bytes)
    case .unknown(let type):
      CBORPrimitiveWriter.appendHead(5, 1, to: &bytes)
      Self.appendType(type, to: &bytes)
    }
    return bytes
  }
}
