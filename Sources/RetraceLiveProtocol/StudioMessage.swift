import Retrace

/// Appends the CBOR items of the link's messages (`docs/LIVE.md`) to a byte array: heads in
/// their shortest form, text keys, byte strings, and times as double-precision floats.
///
/// `CBORWriter` writes the items of a hand-written encoding but no byte strings, which
/// the messages embed actions and states in.
struct MessageEncoding {
  @inline(__always)
  static func head(_ major: UInt8, _ argument: UInt64, into bytes: inout [UInt8]) {
    let initial = major << 5
    if argument < 24 {
      bytes.append(initial | UInt8(argument))
    } else if argument <= 0xff {
      bytes.append(initial | 24)
      bytes.append(UInt8(argument))
    } else if argument <= 0xffff {
      bytes.append(initial | 25)
      bytes.append(UInt8(argument >> 8))
      bytes.append(UInt8(argument & 0xff))
    } else if argument <= 0xffff_ffff {
      bytes.append(initial | 26)
      for shift in stride(from: 24, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift)))
      }
    } else {
      bytes.append(initial | 27)
      for shift in stride(from: 56, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift)))
      }
    }
  }

  static func map(_ count: Int, into bytes: inout [UInt8]) {
    head(5, UInt64(count), into: &bytes)
  }

  static func array(_ count: Int, into bytes: inout [UInt8]) {
    head(4, UInt64(count), into: &bytes)
  }

  static func text(_ value: String, into bytes: inout [UInt8]) {
    let utf8 = value.utf8
    head(3, UInt64(utf8.count), into: &bytes)
    bytes.append(contentsOf: utf8)
  }

  static func unsigned(_ value: UInt64, into bytes: inout [UInt8]) {
    head(0, value, into: &bytes)
  }

  static func integer(_ value: Int, into bytes: inout [UInt8]) {
    if value >= 0 {
      head(0, UInt64(value), into: &bytes)
    } else {
      head(1, UInt64(-1 - value), into: &bytes)
    }
  }

  static func double(_ value: Double, into bytes: inout [UInt8]) {
    bytes.append(0xfb)
    withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
  }

  static func byteString(_ value: UnsafeRawBufferPointer, into bytes: inout [UInt8]) {
    head(2, UInt64(value.count), into: &bytes)
    bytes.append(contentsOf: value)
  }

  static func byteString(_ value: [UInt8], into bytes: inout [UInt8]) {
    value.withUnsafeBytes { byteString($0, into: &bytes) }
  }
}

/// A message from the Studio, decoded from its CBOR map.
enum StudioMessage {
  /// Move the store to `state`, the state after action `to`, whose hash is `hash`.
  case jump(to: UInt64, state: [UInt8], hash: UInt64)
  /// Send `action` (an action as the trace writes it) to the store, as if the user had.
  case dispatch(action: [UInt8])
  /// The Studio refused the session.
  case error(String)
  /// A message of another type, which the app ignores.
  case other(String)

  init(decoding bytes: [UInt8]) throws(LiveLinkError) {
    let value: CBORValue
    do {
      value = try CBORValue(decoding: bytes)
    } catch {
      throw LiveLinkError(
        .protocolViolation, "the Studio sent a message that is not CBOR: \(error)", cause: error)
    }
    guard case .map(let pairs) = value else {
      throw LiveLinkError(.protocolViolation, "the Studio sent a message that is not a map")
    }
    func field(_ name: String) -> CBORValue? {
      pairs.first { $0.key == .textString(name) }?.value
    }
    guard case .textString(let type)? = field("type") else {
      throw LiveLinkError(.protocolViolation, "the Studio sent a message without a type")
    }
    switch type {
    case "jump":
      guard case .unsigned(let to)? = field("to"), case .byteString(let state)? = field("state"),
        case .unsigned(let hash)? = field("hash")
      else {
        throw LiveLinkError(
          .commandRefused, "a jump needs to (unsigned), state (bytes) and hash (unsigned)")
      }
      self = .jump(to: to, state: state, hash: hash)
    case "dispatch":
      guard case .byteString(let action)? = field("action") else {
        throw LiveLinkError(.commandRefused, "a dispatch needs action (bytes)")
      }
      self = .dispatch(action: action)
    case "error":
      if case .textString(let message)? = field("message") {
        self = .error(message)
      } else {
        self = .error("(no message)")
      }
    default:
      self = .other(type)
    }
  }
}
