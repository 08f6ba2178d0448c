/// Why a ``LiveLink`` could not be created, lost its connection, or refused a command.
///
/// ```swift
/// if case .disconnected(let error?) = link.status {
///   print(error)   // connection failed: 127.0.0.1:7420: connection refused
/// }
/// ```
public struct LiveLinkError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure this is.
  public enum Code: String, Sendable {
    /// The Studio's address is not one the link understands.
    case invalidAddress
    /// The connection could not be opened, or it broke.
    case connectionFailed
    /// The Studio refused the WebSocket upgrade (a wrong token is a 401), or answered
    /// something that is not a WebSocket upgrade.
    case handshakeRefused
    /// The Studio sent bytes that break the WebSocket or the link protocol.
    case protocolViolation
    /// The Studio refused the session with an `error` message.
    case refusedByStudio
    /// A command from the Studio could not be carried out (a state that does not decode, a
    /// hash that does not match, a store that is gone).
    case commandRefused
    /// The link was closed.
    case closed
  }

  /// What kind of failure this is.
  public var code: Code
  /// A message for a person: one line, no trailing period.
  public var message: String
  /// The error underneath, if any (a socket error, a CBOR error).
  public var cause: (any Error & Sendable)?

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: What kind of failure this is.
  ///   - message: A message for a person.
  ///   - cause: The error underneath, if any.
  public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
    self.code = code
    self.message = message
    self.cause = cause
  }

  /// The message.
  public var description: String { message }
}
