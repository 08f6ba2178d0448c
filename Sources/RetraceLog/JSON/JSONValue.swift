import Foundation

/// A JSON value whose object keys keep the order they were given in, and which can hold
/// JSON that is already encoded: how the Studio writes a state's preview, whose keys are the
/// state's, in its order. `package`: RetraceStudio uses it. The commands' `--json` reports
/// and the Studio's API answers are `Codable` types written by ``ReportJSON``.
package enum JSONValue {
  case null
  case bool(Bool)
  case int(Int64)
  case uint(UInt64)
  case double(Double)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])
  /// JSON text that is already encoded, such as an action from `JSONEncoder`.
  case raw(String)

  /// `transform(value)`, or `null` when there is no value.
  package static func optional<T>(_ value: T?, _ transform: (T) -> JSONValue) -> JSONValue {
    value.map(transform) ?? .null
  }

  /// The object with `field` inserted after the field named `key` (at the end when there is
  /// none); any other value unchanged. For a field only some answers have, which older
  /// answers must not gain even as `null`.
  package func inserting(_ field: (String, JSONValue), after key: String) -> JSONValue {
    guard case .object(var fields) = self else { return self }
    let index = fields.firstIndex { $0.0 == key }.map { $0 + 1 } ?? fields.endIndex
    fields.insert(field, at: index)
    return .object(fields)
  }

  /// The value as compact JSON.
  package var text: String {
    var output = ""
    write(to: &output)
    return output
  }

  private func write(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let value): output += value ? "true" : "false"
    case .int(let value): output += String(value)
    case .uint(let value): output += String(value)
    case .double(let value):
      if !value.isFinite {
        output += "null"
      } else if value == value.rounded(), abs(value) < 1e15 {
        output += String(Int64(value))
      } else {
        output += "\(value)"
      }
    case .string(let value): Self.writeString(value, to: &output)
    case .array(let values):
      output += "["
      for (index, value) in values.enumerated() {
        if index > 0 { output += "," }
        value.write(to: &output)
      }
      output += "]"
    case .object(let pairs):
      output += "{"
      for (index, (key, value)) in pairs.enumerated() {
        if index > 0 { output += "," }
        Self.writeString(key, to: &output)
        output += ":"
        value.write(to: &output)
      }
      output += "}"
    case .raw(let text): output += text
    }
  }

  private static func writeString(_ string: String, to output: inout String) {
    output += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case _ where scalar.value < 0x20:
        output += String(format: "\\u%04x", scalar.value)
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }
}
