import Foundation
import RetraceCBOR

/// A message's fields, found where they lie in its bytes, and read with one error per
/// missing or malformed field: the one reader of both ends' messages.
///
/// The map is read item by item (``CBORReader``), never built into a ``CBORValue`` tree:
/// a tree costs some 25 times the bytes of a message of many small items, so a hostile
/// 64 MiB message would take gigabytes. Unknown keys are skipped, and a byte string is a
/// range of the message, not a copy.
struct MessageFields {
  /// The message, checked to be well-formed.
  let message: UnsafeRawBufferPointer
  /// Where each field's value starts.
  let offsets: [String: Int]
  /// The message's `type`.
  let type: String

  /// The keys of the protocol's messages, both ways: the only ones whose values are looked
  /// at.
  private static let keys: Set<String> = [
    "type", "protocol", "domain", "actionSchemaVersion", "sessionID", "startTime", "app",
    "sequence", "state", "dropped", "first", "times", "actions", "hash", "time", "message",
    "commands", "to", "action",
  ]

  /// Finds the fields of the message in `bytes`.
  ///
  /// - Throws: ``LiveProtocolError`` with ``LiveProtocolError/Code/notAMessage`` when the
  ///   bytes are not one CBOR map of definite length with a text `type`.
  init(_ bytes: UnsafeRawBufferPointer) throws(LiveProtocolError) {
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
      throw LiveProtocolError("a message that is not CBOR: \(error)", code: .notAMessage)
    }
    // Where the value of each key of the protocol starts (the last one, if a key repeats).
    var offsets: [String: Int] = [:]
    do {
      guard let count = try? reader.readMapHeader() else {
        throw LiveProtocolError(
          "a message that is not a CBOR map of definite length", code: .notAMessage)
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
      throw LiveProtocolError("a message that is not CBOR: \(error)", code: .notAMessage)
    }
    var typeReader = offsets["type"].map {
      CBORReader(reading: UnsafeRawBufferPointer(rebasing: bytes[$0...]))
    }
    guard let type = try? typeReader?.read(String.self) else {
      throw LiveProtocolError("a message without a type", code: .notAMessage)
    }
    message = bytes
    self.offsets = offsets
    self.type = type
  }

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
    guard var reader = at(name), let value = Self.number(&reader) else {
      throw missing(name, "a number")
    }
    return value
  }

  func text(_ name: String) throws(LiveProtocolError) -> String {
    guard let value = textIfPresent(name) else { throw missing(name, "a text string") }
    return value
  }

  /// Where the content of the byte string `name` lies in the message.
  func bytes(_ name: String) throws(LiveProtocolError) -> Range<Int> {
    guard let offset = offsets[name], var reader = at(name),
      let range = try? reader.readByteString()
    else { throw missing(name, "a byte string") }
    return (offset + range.lowerBound)..<(offset + range.upperBound)
  }

  /// The text strings of the map `name` (others are skipped); empty when there is none.
  func textMap(_ name: String) -> [String: String] {
    var map: [String: String] = [:]
    if var reader = at(name), let count = try? reader.readMapHeader() {
      for _ in 0..<count {
        let key = try? reader.read(String.self)
        if key == nil { try? reader.skip() }
        let value = try? reader.read(String.self)
        if value == nil { try? reader.skip() }
        if let key, let value { map[key] = value }
      }
    }
    return map
  }

  /// The text strings of the array `name` (others are skipped), or `nil` when there is none.
  func texts(_ name: String) -> [String]? {
    guard var reader = at(name), let count = try? reader.readArrayHeader() else { return nil }
    var texts: [String] = []
    for _ in 0..<count {
      if let text = try? reader.read(String.self) {
        texts.append(text)
      } else {
        try? reader.skip()
      }
    }
    return texts
  }

  /// Reads a number: a float or an integer.
  static func number(_ reader: inout CBORReader) -> Double? {
    if let value = try? reader.read(Double.self) { return value }
    if let value = try? reader.read(UInt64.self) { return Double(value) }
    if let value = try? reader.read(Int.self) { return Double(value) }
    return nil
  }

  private func missing(_ name: String, _ kind: String) -> LiveProtocolError {
    LiveProtocolError("a \(type) message needs '\(name)' (\(kind))")
  }
}
