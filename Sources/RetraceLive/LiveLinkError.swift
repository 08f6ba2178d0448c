/// Why a ``LiveLink`` could not be created, lost its connection, or refused a command.
///
/// ```swift
/// if case .disconnected(let error?) = link.status {
///   print(error)   // connection failed: 127.0.0.1:7420: connection refused
/// }
/// ```
public struct LiveLinkError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure this is.
  ///
  /// A struct over a private enum, not an enum, so that a new code is not a breaking change:
  /// compare with `==`, or switch with a `default`.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Wrapped: String, Hashable, Sendable {
      case invalidAddress
      case connectionFailed
      case handshakeRefused
      case protocolViolation
      case refusedByStudio
      case commandRefused
      case closed
    }

    private let wrapped: Wrapped
    private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// The code's name, such as `invalidAddress`.
    public var description: String { wrapped.rawValue }

    /// The Studio's address is not one the link understands.
    public static var invalidAddress: Code { Code(.invalidAddress) }
    /// The connection could not be opened, or it broke.
    public static var connectionFailed: Code { Code(.connectionFailed) }
    /// The Studio refused the WebSocket upgrade (a wrong token is a 401), or answered
    /// something that is not a WebSocket upgrade.
    public static var handshakeRefused: Code { Code(.handshakeRefused) }
    /// The Studio sent bytes that break the WebSocket or the link protocol.
    public static var protocolViolation: Code { Code(.protocolViolation) }
    /// The Studio refused the session with an `error` message.
    public static var refusedByStudio: Code { Code(.refusedByStudio) }
    /// A command from the Studio could not be carried out (a state that does not decode, a
    /// hash that does not match, a store that is gone).
    public static var commandRefused: Code { Code(.commandRefused) }
    /// The link was closed.
    public static var closed: Code { Code(.closed) }

    /// The code's name.
    @available(*, deprecated, renamed: "description")
    public var rawValue: String { description }

    /// The code named `rawValue`, if there is one.
    ///
    /// - Parameter rawValue: A code's name, such as `invalidAddress`.
    @available(*, deprecated, message: "compare with the static codes, such as .invalidAddress")
    public init?(rawValue: String) {
      guard let wrapped = Wrapped(rawValue: rawValue) else { return nil }
      self.init(wrapped)
    }
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
