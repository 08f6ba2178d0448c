import Foundation
import Retrace

/// A message of the live link's protocol (docs/LIVE.md) that an app sends the Studio,
/// decoded from its CBOR map.
///
/// The map is read item by item where it lies (``CBORReader``), never built into a
/// ``CBORValue`` tree: a tree costs some 25 times the bytes of a message of many small
/// items, so a hostile 64 MiB message would take gigabytes. Unknown keys are skipped, a
/// `hello`'s or `jump`'s state is a slice of the message's bytes (not a copy), and an `actions` message keeps its bytes,
/// whose actions ``Actions/forEach(_:)`` reads one at a time.
enum LiveMessage: Sendable {
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
    /// The store's state, deterministic CBOR: a slice of the message, not a copy.
    var state: Data
    /// The actions the link dropped so far.
    var dropped: Int
    /// The commands the app carries out (`commands`); an app whose `hello` has none takes
    /// `jump` only.
    var commands: Set<String> = ["jump"]
  }

  /// An `actions` message: its times and actions stay in the message's bytes, checked when
  /// it was decoded, and are read one at a time.
  struct Actions: Sendable {
    /// The sequence number of the first action.
    var first: UInt64
    /// How many actions (and times) the message holds.
    var count: Int
    /// The message's bytes.
    let message: Data
    /// Where the `times` array and the `actions` array start in ``message``.
    let timesOffset: Int
    let actionsOffset: Int

    /// Calls `body` with each action's index in the message, its time and its encoded bytes
    /// (valid during the call), in order.
    func forEach(
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
            guard let time = LiveMessage.number(&times), let range = try? actions.readByteString()
            else { throw LiveProtocolError("an actions message changed since it was read") }
            try body(index, time, UnsafeRawBufferPointer(rebasing: actionBytes[range]))
          }
        }
      }
      try result.get()
    }
  }

  /// The keys of the protocol's messages: the only ones whose values are looked at.
  private static let keys: Set<String> = [
    "type", "protocol", "domain", "actionSchemaVersion", "sessionID", "startTime", "app",
    "sequence", "state", "dropped", "first", "times", "actions", "hash", "time", "message",
    "commands",
  ]

  /// Decodes one binary frame's payload.
  ///
  /// - Throws: ``LiveProtocolError`` naming what is missing or malformed.
  init(decoding message: Data) throws(LiveProtocolError) {
    let result = message.withUnsafeBytes { bytes in
      Result { () throws(LiveProtocolError) in try Self.decode(bytes, of: message) }
    }
    self = try result.get()
  }

  private static func decode(_ bytes: UnsafeRawBufferPointer, of message: Data)
    throws(LiveProtocolError) -> LiveMessage
  {
    var reader = CBORReader(reading: bytes)
    // One pass checks that the message is one well-formed item (text valid UTF-8, nesting
    // limited) without keeping anything of it; the reads below may then trust its shape.
    do {
      var scan = reader
      try scan.skip()
      guard scan.offset == bytes.count else {
        throw CBORError(
          .trailingBytes, "\(bytes.count - scan.offset) bytes follow the data item",
          offset: scan.offset)
      }
    } catch {
      throw LiveProtocolError("a message that is not CBOR: \(error)")
    }
    // Where the value of each key of the protocol starts (the last one, if a key repeats).
    var offsets: [String: Int] = [:]
    do {
      guard let count = try? reader.readMapHeader() else {
        throw LiveProtocolError("a message that is not a CBOR map of definite length")
      }
      for _ in 0..<count {
        if let key = try? reader.readKey() {
          let name = key.description
          if Self.keys.contains(name) { offsets[name] = reader.offset }
        } else {
          try reader.skip()
        }
        try reader.skip()
      }
    } catch let error as LiveProtocolError {
      throw error
    } catch {
      throw LiveProtocolError("a message that is not CBOR: \(error)")
    }
    guard
      let type = Fields(message: bytes, data: message, offsets: offsets, type: "")
        .textIfPresent("type")
    else {
      throw LiveProtocolError("a message without a type")
    }
    let fields = Fields(message: bytes, data: message, offsets: offsets, type: type)
    switch type {
    case "hello":
      var app: [String: String] = [:]
      if var reader = fields.at("app"), let count = try? reader.readMapHeader() {
        for _ in 0..<count {
          let key = try? reader.read(String.self)
          if key == nil { try? reader.skip() }
          let value = try? reader.read(String.self)
          if value == nil { try? reader.skip() }
          if let key, let value { app[key] = value }
        }
      }
      var commands: Set<String> = ["jump"]
      if var reader = fields.at("commands"), let count = try? reader.readArrayHeader() {
        for _ in 0..<count {
          if let command = try? reader.read(String.self) {
            commands.insert(command)
          } else {
            try? reader.skip()
          }
        }
      }
      return .hello(
        Hello(
          version: try fields.unsigned("protocol"), domain: try fields.text("domain"),
          actionSchemaVersion: try fields.integer("actionSchemaVersion"),
          sessionID: try fields.text("sessionID"),
          startTime: (try? fields.double("startTime")) ?? Date().timeIntervalSince1970,
          app: app, sequence: try fields.unsigned("sequence"), state: try fields.bytes("state"),
          dropped: (try? fields.integer("dropped")) ?? 0, commands: commands))
    case "actions":
      let first = try fields.unsigned("first")
      guard let timesOffset = offsets["times"], let actionsOffset = offsets["actions"],
        var times = fields.at("times"), var actions = fields.at("actions"),
        let count = try? times.readArrayHeader(), (try? actions.readArrayHeader()) == count
      else {
        throw LiveProtocolError("an actions message needs times and actions of the same length")
      }
      for _ in 0..<count {
        guard Self.number(&times) != nil else {
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
        state: try fields.bytes("state"))
    case "error":
      return .error((try? fields.text("message")) ?? "(no message)")
    default:
      return .unknown(type)
    }
  }

  /// Reads a number: a float or an integer.
  fileprivate static func number(_ reader: inout CBORReader) -> Double? {
    if let value = try? reader.read(Double.self) { return value }
    if let value = try? reader.read(UInt64.self) { return Double(value) }
    if let value = try? reader.read(Int.self) { return Double(value) }
    return nil
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

  /// A message's fields, read where they lie with one error per missing or malformed
  /// field.
  private struct Fields {
    /// The message, checked to be well-formed.
    let message: UnsafeRawBufferPointer
    /// The same bytes, which byte strings are sliced from.
    let data: Data
    /// Where each field's value starts.
    let offsets: [String: Int]
    let type: String

    /// A reader at the value of `name`, if the message has it.
    func at(_ name: String) -> CBORReader? {
      offsets[name].map { CBORReader(reading: UnsafeRawBufferPointer(rebasing: message[$0...])) }
    }

    func textIfPresent(_ name: String) -> String? {
      guard var reader = at(name) else { return nil }
      return try? reader.read(String.self)
    }

    func unsigned(_ name: String) throws(LiveProtocolError) -> UInt64 {
      guard var reader = at(name), let value = try? reader.read(UInt64.self) else {
        throw missing(name, "an unsigned integer")
      }
      return value
    }

    func integer(_ name: String) throws(LiveProtocolError) -> Int {
      guard var reader = at(name), let value = try? reader.read(Int.self) else {
        throw missing(name, "an integer")
      }
      return value
    }

    func double(_ name: String) throws(LiveProtocolError) -> Double {
      guard var reader = at(name), let value = LiveMessage.number(&reader) else {
        throw missing(name, "a number")
      }
      return value
    }

    func text(_ name: String) throws(LiveProtocolError) -> String {
      guard let value = textIfPresent(name) else { throw missing(name, "a text string") }
      return value
    }

    /// The byte string `name`: a slice of the message, which it keeps.
    func bytes(_ name: String) throws(LiveProtocolError) -> Data {
      guard let offset = offsets[name], var reader = at(name),
        let range = try? reader.readByteString()
      else { throw missing(name, "a byte string") }
      let start = data.startIndex + offset
      return data[(start + range.lowerBound)..<(start + range.upperBound)]
    }

    private func missing(_ name: String, _ kind: String) -> LiveProtocolError {
      LiveProtocolError("a \(type) message needs '\(name)' (\(kind))")
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
