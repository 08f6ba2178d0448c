import Foundation
import RetraceCBOR

/// A message of the live link's protocol (docs/LIVE.md) that an app sends the Studio.
///
/// Decoded where it lies (``MessageFields``): a `hello`'s or `jump`'s state is a slice of
/// the message's bytes (not a copy), and an `actions` message keeps its bytes, whose actions
/// ``Actions/forEach(_:)`` reads one at a time. Encoded with the `append` functions of
/// `AppMessage+Encoding.swift`, which the link's sender calls as it builds each frame.
package enum AppMessage: Sendable {
  /// The start of a segment: the store's sequence number and its state then.
  case hello(Hello)
  /// Actions `first`, `first + 1`, … with their times.
  case actions(Actions)
  /// The hash of the app's state after action `sequence`.
  case checkpoint(sequence: UInt64, hash: UInt64)
  /// The app's store was set to `state` after action `sequence`.
  case jump(sequence: UInt64, time: Double, state: Data)
  /// The app refused a command.
  case error(String)
  /// A message of a type the protocol does not have.
  case unknown(String)

  /// The fields of a `hello`.
  package struct Hello: Sendable, Equatable {
    /// The protocol's version: ``LiveProtocol/version``.
    package var version: UInt64
    /// The domain's name.
    package var domain: String
    /// The version of the app's action encoding.
    package var actionSchemaVersion: Int
    /// The link's session id, the same across its reconnections.
    package var sessionID: String
    /// When the link was attached, in seconds since 1970.
    package var startTime: Double
    /// Facts about the app.
    package var app: [String: String]
    /// The store's sequence number.
    package var sequence: UInt64
    /// The store's state, deterministic CBOR: when decoded, a slice of the message, not a
    /// copy.
    package var state: Data
    /// The actions the link dropped so far.
    package var dropped: Int
    /// The commands the app carries out (`commands`); an app whose `hello` has none takes
    /// `jump` only.
    package var commands: Set<String> = ["jump"]

    /// A `hello` with these fields.
    package init(
      version: UInt64 = LiveProtocol.version, domain: String, actionSchemaVersion: Int,
      sessionID: String, startTime: Double, app: [String: String], sequence: UInt64,
      state: Data, dropped: Int, commands: Set<String> = ["jump"]
    ) {
      self.version = version
      self.domain = domain
      self.actionSchemaVersion = actionSchemaVersion
      self.sessionID = sessionID
      self.startTime = startTime
      self.app = app
      self.sequence = sequence
      self.state = state
      self.dropped = dropped
      self.commands = commands
    }
  }

  /// An `actions` message: its times and actions stay in the message's bytes, checked when
  /// it was decoded, and are read one at a time.
  package struct Actions: Sendable {
    /// The sequence number of the first action.
    package var first: UInt64
    /// How many actions (and times) the message holds.
    package var count: Int
    /// The message's bytes.
    let message: Data
    /// Where the `times` array and the `actions` array start in ``message``.
    let timesOffset: Int
    let actionsOffset: Int

    /// Calls `body` with each action's index in the message, its time and its encoded bytes
    /// (valid during the call), in order.
    package func forEach(
      _ body: (_ index: Int, _ time: Double, _ action: UnsafeRawBufferPointer)
        throws(LiveProtocolError) -> Void
    ) throws(LiveProtocolError) {
      let result = message.withUnsafeBytes { bytes in
        Result { () throws(LiveProtocolError) in
          var times = CBORReader(reading: UnsafeRawBufferPointer(rebasing: bytes[timesOffset...]))
          let actionBytes = UnsafeRawBufferPointer(rebasing: bytes[actionsOffset...])
          var actions = CBORReader(reading: actionBytes)
          guard (try? times.readArrayHeader()) == count, (try? actions.readArrayHeader()) == count
          else { throw LiveProtocolError("an actions message changed since it was read") }
          for index in 0..<count {
            guard let time = MessageFields.number(&times),
              let range = try? actions.readByteString()
            else { throw LiveProtocolError("an actions message changed since it was read") }
            try body(index, time, UnsafeRawBufferPointer(rebasing: actionBytes[range]))
          }
        }
      }
      try result.get()
    }
  }

  /// Decodes one binary frame's payload.
  ///
  /// - Throws: ``LiveProtocolError`` naming what is missing or malformed.
  package init(decoding message: Data) throws(LiveProtocolError) {
    let result = message.withUnsafeBytes { bytes in
      Result { () throws(LiveProtocolError) in try Self.decode(bytes, of: message) }
    }
    self = try result.get()
  }

  private static func decode(_ bytes: UnsafeRawBufferPointer, of message: Data)
    throws(LiveProtocolError) -> AppMessage
  {
    let fields = try MessageFields(bytes)
    /// The byte string `name`: a slice of the message, which it keeps.
    func slice(_ name: String) throws(LiveProtocolError) -> Data {
      let range = try fields.bytes(name)
      let start = message.startIndex
      return message[(start + range.lowerBound)..<(start + range.upperBound)]
    }
    switch fields.type {
    case "hello":
      var commands: Set<String> = ["jump"]
      commands.formUnion(fields.texts("commands") ?? [])
      return .hello(
        Hello(
          version: try fields.unsigned("protocol"), domain: try fields.text("domain"),
          actionSchemaVersion: try fields.integer("actionSchemaVersion"),
          sessionID: try fields.text("sessionID"),
          startTime: (try? fields.double("startTime")) ?? Date().timeIntervalSince1970,
          app: fields.textMap("app"), sequence: try fields.unsigned("sequence"),
          state: try slice("state"), dropped: (try? fields.integer("dropped")) ?? 0,
          commands: commands))
    case "actions":
      let first = try fields.unsigned("first")
      guard let timesOffset = fields.offsets["times"],
        let actionsOffset = fields.offsets["actions"],
        var times = fields.at("times"), var actions = fields.at("actions"),
        let count = try? times.readArrayHeader(), (try? actions.readArrayHeader()) == count
      else {
        throw LiveProtocolError("an actions message needs times and actions of the same length")
      }
      for _ in 0..<count {
        guard MessageFields.number(&times) != nil else {
          throw LiveProtocolError("an actions message has a time that is not a number")
        }
        guard (try? actions.readByteString()) != nil else {
          throw LiveProtocolError("an actions message has an action that is not a byte string")
        }
      }
      return .actions(
        Actions(
          first: first, count: count, message: message, timesOffset: timesOffset,
          actionsOffset: actionsOffset))
    case "checkpoint":
      return .checkpoint(
        sequence: try fields.unsigned("sequence"), hash: try fields.unsigned("hash"))
    case "jump":
      return .jump(
        sequence: try fields.unsigned("sequence"), time: try fields.double("time"),
        state: try slice("state"))
    case "error":
      return .error(fields.textIfPresent("message") ?? "(no message)")
    default:
      return .unknown(fields.type)
    }
  }
}
