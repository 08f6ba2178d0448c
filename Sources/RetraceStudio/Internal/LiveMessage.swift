import Foundation
import Retrace

/// A message of the live link's protocol (docs/LIVE.md) that an app sends the Studio,
/// decoded from its CBOR map.
enum LiveMessage: Sendable {
  /// The start of a segment: the store's sequence number and its state then.
  case hello(Hello)
  /// Actions `first`, `first + 1`, … with their times.
  case actions(first: UInt64, times: [Double], actions: [[UInt8]])
  /// The hash of the app's state after action `sequence`.
  case checkpoint(sequence: UInt64, hash: UInt64)
  /// The app's store was set to `state` after action `sequence`.
  case jump(sequence: UInt64, time: Double, state: [UInt8])
  /// The app refused a command.
  case error(String)
  /// A message of a type the protocol does not have.
  case unknown(String)

  /// The fields of a `hello`.
  struct Hello: Sendable {
    /// The protocol's version: 1.
    var version: UInt64
    /// The domain's name.
    var domain: String
    /// The version of the app's action encoding.
    var actionSchemaVersion: Int
    /// The link's session id, the same across its reconnections.
    var sessionID: String
    /// When the link was attached, in seconds since 1970.
    var startTime: Double
    /// Facts about the app.
    var app: [String: String]
    /// The store's sequence number.
    var sequence: UInt64
    /// The store's state, deterministic CBOR.
    var state: [UInt8]
    /// The actions the link dropped so far.
    var dropped: Int
    /// The commands the app carries out (`commands`); an app whose `hello` has none takes
    /// `jump` only.
    var commands: Set<String> = ["jump"]
  }

  /// Decodes one binary frame's payload.
  ///
  /// - Throws: ``LiveProtocolError`` naming what is missing or malformed.
  init(decoding bytes: [UInt8]) throws(LiveProtocolError) {
    let value: CBORValue
    do {
      value = try CBORValue(decoding: bytes)
    } catch {
      throw LiveProtocolError("a message that is not CBOR: \(error)")
    }
    guard case .map(let pairs) = value else {
      throw LiveProtocolError("a message that is not a CBOR map")
    }
    var fields: [String: CBORValue] = [:]
    for pair in pairs {
      if case .textString(let key) = pair.key { fields[key] = pair.value }
    }
    guard case .textString(let type)? = fields["type"] else {
      throw LiveProtocolError("a message without a type")
    }
    let message = Fields(type: type, fields: fields)
    switch type {
    case "hello":
      var app: [String: String] = [:]
      if case .map(let entries)? = fields["app"] {
        for entry in entries {
          if case .textString(let key) = entry.key, case .textString(let value) = entry.value {
            app[key] = value
          }
        }
      }
      var commands: Set<String> = ["jump"]
      if case .array(let items)? = fields["commands"] {
        for item in items {
          if case .textString(let command) = item { commands.insert(command) }
        }
      }
      self = .hello(
        Hello(
          version: try message.unsigned("protocol"), domain: try message.text("domain"),
          actionSchemaVersion: try message.integer("actionSchemaVersion"),
          sessionID: try message.text("sessionID"),
          startTime: (try? message.double("startTime")) ?? Date().timeIntervalSince1970,
          app: app, sequence: try message.unsigned("sequence"), state: try message.bytes("state"),
          dropped: (try? message.integer("dropped")) ?? 0, commands: commands))
    case "actions":
      guard case .array(let timeItems)? = fields["times"],
        case .array(let actionItems)? = fields["actions"], timeItems.count == actionItems.count
      else {
        throw LiveProtocolError("an actions message needs times and actions of the same length")
      }
      var times: [Double] = []
      times.reserveCapacity(timeItems.count)
      for item in timeItems {
        guard let time = item.number else {
          throw LiveProtocolError("an actions message has a time that is not a number")
        }
        times.append(time)
      }
      var actions: [[UInt8]] = []
      actions.reserveCapacity(actionItems.count)
      for item in actionItems {
        guard case .byteString(let bytes) = item else {
          throw LiveProtocolError("an actions message has an action that is not a byte string")
        }
        actions.append(bytes)
      }
      self = .actions(first: try message.unsigned("first"), times: times, actions: actions)
    case "checkpoint":
      self = .checkpoint(
        sequence: try message.unsigned("sequence"), hash: try message.unsigned("hash"))
    case "jump":
      self = .jump(
        sequence: try message.unsigned("sequence"), time: try message.double("time"),
        state: try message.bytes("state"))
    case "error":
      self = .error((try? message.text("message")) ?? "(no message)")
    default:
      self = .unknown(type)
    }
  }

  /// The `jump` command: move the app's store to `state`, the state after action `to`.
  static func jump(to sequence: UInt64, state: [UInt8], hash: UInt64) -> Data {
    Data(
      CBORValue.map([
        .init(.textString("type"), .textString("jump")),
        .init(.textString("to"), .unsigned(sequence)),
        .init(.textString("state"), .byteString(state)),
        .init(.textString("hash"), .unsigned(hash)),
      ]).encoded())
  }

  /// The `dispatch` command: send the app's store `action`, an action as the trace writes it.
  static func dispatch(action: [UInt8]) -> Data {
    Data(
      CBORValue.map([
        .init(.textString("type"), .textString("dispatch")),
        .init(.textString("action"), .byteString(action)),
      ]).encoded())
  }

  /// The `error` message the Studio sends before it closes a connection it refuses.
  static func error(_ message: String) -> Data {
    Data(
      CBORValue.map([
        .init(.textString("type"), .textString("error")),
        .init(.textString("message"), .textString(message)),
      ]).encoded())
  }

  /// A message's fields, read with one error per missing or malformed field.
  private struct Fields {
    let type: String
    let fields: [String: CBORValue]

    func unsigned(_ name: String) throws(LiveProtocolError) -> UInt64 {
      guard case .unsigned(let value)? = fields[name] else {
        throw missing(name, "an unsigned integer")
      }
      return value
    }

    func integer(_ name: String) throws(LiveProtocolError) -> Int {
      switch fields[name] {
      case .unsigned(let value)? where value <= UInt64(Int.max): return Int(value)
      case .negative(let value)? where value < UInt64(Int.max): return -1 - Int(value)
      default: throw missing(name, "an integer")
      }
    }

    func double(_ name: String) throws(LiveProtocolError) -> Double {
      guard let value = fields[name]?.number else { throw missing(name, "a number") }
      return value
    }

    func text(_ name: String) throws(LiveProtocolError) -> String {
      guard case .textString(let value)? = fields[name] else {
        throw missing(name, "a text string")
      }
      return value
    }

    func bytes(_ name: String) throws(LiveProtocolError) -> [UInt8] {
      guard case .byteString(let value)? = fields[name] else {
        throw missing(name, "a byte string")
      }
      return value
    }

    private func missing(_ name: String, _ kind: String) -> LiveProtocolError {
      LiveProtocolError("a \(type) message needs '\(name)' (\(kind))")
    }
  }
}

extension CBORValue {
  /// The value as a number, when it is a float or an integer.
  fileprivate var number: Double? {
    switch self {
    case .float(let value): value
    case .unsigned(let value): Double(value)
    case .negative(let value): -1 - Double(value)
    default: nil
    }
  }
}

/// A message the Studio cannot take: it answers with an `error` and closes the connection.
struct LiveProtocolError: Error, Sendable, CustomStringConvertible {
  /// What was wrong, for the `error` message.
  var description: String

  /// An error that says `description`.
  init(_ description: String) { self.description = description }
}
