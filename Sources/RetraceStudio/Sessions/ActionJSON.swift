import Foundation
import Retrace

/// An action typed on the page: JSON in the form the actions endpoint shows an action's
/// `action` (`{"deposit":{"amount":50}}`), read back into the CBOR item the trace writes and
/// decoded as the domain's action, so that a typo is refused in the Studio, not in the app.
///
/// JSON numbers become CBOR integers when they are whole and fit, floats otherwise (the
/// decoder takes an integer for a `Double` field); `null`, booleans, strings, arrays and
/// objects become their CBOR items. A byte string, which the endpoint shows as base64url,
/// cannot be typed back: such an action does not decode.
enum ActionJSON {
  /// The action's CBOR encoding (what a `dispatch` message carries) and the action.
  ///
  /// - Throws: `SessionError` (`invalidRequest`) with one line naming the problem: text that is not JSON, or
  ///   JSON that is not one of the domain's actions (with the decoder's coding path), such
  ///   as a number out of range for its field.
  static func decode<D: Domain>(_ text: String, as domain: D) throws -> ([UInt8], D.Action) {
    let value: Item
    do {
      value = try JSONDecoder().decode(Item.self, from: Data(text.utf8))
    } catch {
      throw SessionError(.invalidRequest, "the action is not JSON: \(oneLine(error))")
    }
    // An action is a map of one key, its case (as the rows show it): a key that is no case
    // of the domain is named as such, rather than by the decoder's "invalid number of keys".
    if case .object(let fields) = value, fields.count == 1, !domain.actionCases.isEmpty,
      !domain.actionCases.contains(fields[0].0)
    {
      let cases = domain.actionCases.joined(separator: ", ")
      throw SessionError(
        .invalidRequest,
        "the action is not a \(domain.name) action: '\(fields[0].0.prefix(100))' is not one of its cases (\(cases.count > 300 ? cases.prefix(300) + "…" : cases))"
      )
    }
    let bytes = value.cbor.encoded()
    do {
      let action = try bytes.withUnsafeBytes { try domain.decodeAction(from: $0) }
      return (bytes, action)
    } catch {
      throw SessionError(
        .invalidRequest,
        "the action is not a \(domain.name) action: \(oneLine(error, typed: value))")
    }
  }

  /// An error's description on one line, at most 300 characters: a decoding error as where
  /// it is (`at deposit.amount`) and what is wrong there. `typed` is the JSON decoded, for
  /// what the decoder cannot see in the CBOR made of it.
  private static func oneLine(_ error: any Error, typed: Item? = nil) -> String {
    var text = "\(error)"
    if let error = error as? DecodingError {
      let context: DecodingError.Context?
      switch error {
      case .typeMismatch(let type, let found):
        context = found
        text = found.debugDescription
        // A whole number too large for 64 bits became a float, which an integer field
        // refuses as a float: it is the number's size that is wrong.
        if type is any FixedWidthInteger.Type,
          case .float(let number) = typed?.item(at: found.codingPath),
          number == number.rounded()
        {
          text = "the number \(number) is out of range for \(type)"
        }
      case .valueNotFound(_, let found):
        context = found
        text = found.debugDescription
      case .dataCorrupted(let found):
        context = found
        text = found.debugDescription + (found.underlyingError.map { " \($0)" } ?? "")
      case .keyNotFound(let key, let found):
        context = found
        text = "'\(key.stringValue)' is missing"
      @unknown default:
        context = nil
      }
      if let context, !context.codingPath.isEmpty {
        let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
        text = "at \(path.joined(separator: ".")): \(text)"
      }
    }
    // The offsets are in the CBOR made of the JSON, which the developer did not type.
    text = text.replacing(/\ at byte offset \d+/, with: "")
    let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
    return line.count > 300 ? String(line.prefix(300)) + "…" : line
  }

  /// A JSON value, decoded as it is.
  private indirect enum Item: Decodable {
    case null
    case bool(Bool)
    case unsigned(UInt64)
    case negative(Int64)
    case float(Double)
    case text(String)
    case array([Item])
    case object([(String, Item)])

    init(from decoder: any Decoder) throws {
      if var items = try? decoder.unkeyedContainer() {
        var array: [Item] = []
        while !items.isAtEnd { array.append(try items.decode(Item.self)) }
        self = .array(array)
        return
      }
      if let fields = try? decoder.container(keyedBy: Key.self) {
        // Sorted by key: the decoder does not keep the text's order, and the action's
        // decoding looks its fields up by name.
        self = .object(
          try fields.allKeys.sorted { $0.stringValue < $1.stringValue }.map {
            ($0.stringValue, try fields.decode(Item.self, forKey: $0))
          })
        return
      }
      let single = try decoder.singleValueContainer()
      if single.decodeNil() {
        self = .null
      } else if let value = try? single.decode(Bool.self) {
        self = .bool(value)
      } else if let value = try? single.decode(UInt64.self) {
        self = .unsigned(value)
      } else if let value = try? single.decode(Int64.self) {
        self = .negative(value)
      } else if let value = try? single.decode(Double.self) {
        self = .float(value)
      } else {
        self = .text(try single.decode(String.self))
      }
    }

    /// The item at `path` (object keys and array indices), if there is one.
    func item(at path: [any CodingKey]) -> Item? {
      var item = self
      for key in path {
        switch item {
        case .object(let fields):
          guard let found = fields.first(where: { $0.0 == key.stringValue }) else { return nil }
          item = found.1
        case .array(let items):
          guard let index = key.intValue, items.indices.contains(index) else { return nil }
          item = items[index]
        default: return nil
        }
      }
      return item
    }

    var cbor: CBORValue {
      switch self {
      case .null: .null
      case .bool(let value): .boolean(value)
      case .unsigned(let value): .unsigned(value)
      case .negative(let value):
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
      case .float(let value): .float(value)
      case .text(let value): .textString(value)
      case .array(let items): .array(items.map(\.cbor))
      case .object(let fields): .map(fields.map { .init(.textString($0.0), $0.1.cbor) })
      }
    }
  }

  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }
}
