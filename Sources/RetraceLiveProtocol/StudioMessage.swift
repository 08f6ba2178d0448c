import Foundation
import RetraceCBOR

/// A message of the live link's protocol (docs/LIVE.md) that the Studio sends an app.
package enum StudioMessage: Sendable, Equatable {
  /// Move the store to `state`, the state after action `to`, whose hash is `hash`.
  case jump(to: UInt64, state: [UInt8], hash: UInt64)
  /// Send `action` (an action as the trace writes it) to the store, as if the user had.
  case dispatch(action: [UInt8])
  /// The Studio refused the session; it closes the connection.
  case error(String)
  /// A message of another type, which the app ignores.
  case other(String)

  /// Decodes one binary frame's payload, with the reader of the app's messages
  /// (``MessageFields``).
  ///
  /// - Throws: ``LiveProtocolError``: with ``LiveProtocolError/Code/notAMessage`` when the
  ///   bytes are not a message, ``LiveProtocolError/Code/badField`` when a `jump` or a
  ///   `dispatch` lacks a field it needs.
  package init(decoding bytes: [UInt8]) throws(LiveProtocolError) {
    let result = bytes.withUnsafeBytes { raw in
      Result { () throws(LiveProtocolError) -> StudioMessage in
        let fields = try MessageFields(raw)
        func copy(_ range: Range<Int>) -> [UInt8] { Array(raw[range]) }
        switch fields.type {
        case "jump":
          return .jump(
            to: try fields.unsigned("to"), state: copy(try fields.bytes("state")),
            hash: try fields.unsigned("hash"))
        case "dispatch":
          return .dispatch(action: copy(try fields.bytes("action")))
        case "error":
          return .error(fields.textIfPresent("message") ?? "(no message)")
        default:
          return .other(fields.type)
        }
      }
    }
    self = try result.get()
  }

  /// The message's encoding, as the Studio sends it.
  package func encoded() -> [UInt8] {
    var bytes: [UInt8] = []
    switch self {
    case .jump(let to, let state, let hash):
      CBORPrimitiveWriter.appendHead(5, 4, to: &bytes)
      AppMessage.appendType("jump", to: &bytes)
      CBORPrimitiveWriter.appendText("to", to: &bytes)
      CBORPrimitiveWriter.appendHead(0, to, to: &bytes)
      CBORPrimitiveWriter.appendText("state", to: &bytes)
      state.withUnsafeBytes { CBORPrimitiveWriter.appendByteString($0, to: &bytes) }
      CBORPrimitiveWriter.appendText("hash", to: &bytes)
      CBORPrimitiveWriter.appendHead(0, hash, to: &bytes)
    case .dispatch(let action):
      CBORPrimitiveWriter.appendHead(5, 2, to: &bytes)
      AppMessage.appendType("dispatch", to: &bytes)
      CBORPrimitiveWriter.appendText("action", to: &bytes)
      action.withUnsafeBytes { CBORPrimitiveWriter.appendByteString($0, to: &bytes) }
    case .error(let message):
      AppMessage.appendError(message, to: &bytes)
    case .other(let type):
      CBORPrimitiveWriter.appendHead(5, 1, to: &bytes)
      AppMessage.appendType(type, to: &bytes)
    }
    return bytes
  }
}
