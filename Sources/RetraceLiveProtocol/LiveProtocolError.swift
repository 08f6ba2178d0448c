/// A message that breaks the live protocol: bytes that are not a message, or a message
/// without a field its type needs; or an address of the Studio that is not one.
///
/// The Studio answers with an `error` and closes the connection; the app refuses the
/// command with an `error`, or ends the connection when the message is not one at all.
package struct LiveProtocolError: Error, Sendable, CustomStringConvertible {
  /// What is wrong with a message.
  package enum Code: Sendable {
    /// Not a message of the protocol: not CBOR, not a map of definite length, or no `type`.
    case notAMessage
    /// A message of a known type whose field is missing or of another kind.
    case badField
    /// An address of the Studio that ``StudioEndpoint`` cannot use.
    case invalidAddress
  }

  /// What is wrong.
  package var code: Code
  /// What was wrong, for the `error` message.
  package var description: String

  /// An error that says `description`.
  package init(_ description: String, code: Code = .badField) {
    self.code = code
    self.description = description
  }
}
