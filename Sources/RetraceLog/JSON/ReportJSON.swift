import Foundation
import Synchronization

/// A report a tool prints as JSON (`retrace ... --json`): a `Codable` value whose `version`
/// says which shape of it a reader holds. The version starts at 1 and goes up only when a
/// key is removed or renamed, or a value changes meaning or type; a key added is no bump.
/// `package`: the CLI's reports and the Studio's answers are written the same way.
package protocol VersionedReport: Codable, Sendable, Equatable {
  /// The version of the report's shape this code writes, and the newest it reads.
  static var currentVersion: Int { get }
  /// The version of the shape the report was written in.
  var version: Int { get }
}

/// How reports are written as JSON and read back: one `JSONEncoder` configuration (keys
/// sorted, as their `CodingKeys` name them; `/` not escaped), so that every tool's output is
/// byte-for-byte the same for the same report.
package enum ReportJSON {
  /// The encoder every report is written with: compact, keys sorted, slashes unescaped.
  package static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.keyEncodingStrategy = .useDefaultKeys
    return encoder
  }

  /// `report` as one line of JSON, with the ``EncodedJSON`` it holds written in as it is.
  ///
  /// - Throws: `EncodingError` when a value cannot be encoded (a number that is not finite).
  package static func text(_ report: some Encodable) throws -> String {
    let encoder = encoder()
    let splice = EncodedJSONSplice()
    encoder.userInfo[EncodedJSONSplice.key] = splice
    return splice.splice(String(decoding: try encoder.encode(report), as: UTF8.self))
  }

  /// The report of type `type` that `data` holds.
  ///
  /// - Throws: `DecodingError` when `data` is not JSON, or not a report of that type.
  package static func decode<Report: Decodable>(_ type: Report.Type, from data: Data) throws
    -> Report
  {
    try JSONDecoder().decode(type, from: data)
  }

  /// The version a report's JSON says it is in: 1 when it says none (what tools wrote
  /// before reports carried a version).
  package static func version<Key: CodingKey>(
    in container: KeyedDecodingContainer<Key>, forKey key: Key
  ) throws -> Int {
    try container.decodeIfPresent(Int.self, forKey: key) ?? 1
  }
}

/// Any JSON value, held as decoded: what a report carries that another encoder wrote, such
/// as an action as `JSONEncoder` writes it with the domain's `Codable`. Encoded again, its
/// object keys come out sorted, as every report's are.
package enum JSONFragment: Codable, Sendable, Equatable {
  case null
  case bool(Bool)
  case int(Int64)
  case uint(UInt64)
  case double(Double)
  case string(String)
  case array([JSONFragment])
  case object([String: JSONFragment])

  /// The value `text` encodes, such as the JSON of an action.
  ///
  /// - Throws: `DecodingError` when `text` is not JSON.
  package init(json text: String) throws {
    self = try JSONDecoder().decode(JSONFragment.self, from: Data(text.utf8))
  }

  package init(from decoder: any Decoder) throws {
    if var array = try? decoder.unkeyedContainer() {
      var values: [JSONFragment] = []
      while !array.isAtEnd { values.append(try array.decode(JSONFragment.self)) }
      self = .array(values)
      return
    }
    if let object = try? decoder.container(keyedBy: ReportKey.self) {
      var values: [String: JSONFragment] = [:]
      for key in object.allKeys {
        values[key.stringValue] = try object.decode(JSONFragment.self, forKey: key)
      }
      self = .object(values)
      return
    }
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
    } else if let bool = try? single.decode(Bool.self) {
      self = .bool(bool)
    } else if let int = try? single.decode(Int64.self) {
      self = .int(int)
    } else if let uint = try? single.decode(UInt64.self) {
      self = .uint(uint)
    } else if let double = try? single.decode(Double.self) {
      self = .double(double)
    } else {
      self = .string(try single.decode(String.self))
    }
  }

  package func encode(to encoder: any Encoder) throws {
    switch self {
    case .array(let values):
      var array = encoder.unkeyedContainer()
      for value in values { try array.encode(value) }
    case .object(let values):
      var object = encoder.container(keyedBy: ReportKey.self)
      for (key, value) in values { try object.encode(value, forKey: ReportKey(stringValue: key)) }
    default:
      var single = encoder.singleValueContainer()
      switch self {
      case .null: try single.encodeNil()
      case .bool(let value): try single.encode(value)
      case .int(let value): try single.encode(value)
      case .uint(let value): try single.encode(value)
      case .double(let value): try single.encode(value)
      case .string(let value): try single.encode(value)
      case .array, .object: break
      }
    }
  }
}

/// A coding key of any name: for objects whose keys are data (a count per action case, an
/// app's facts) or chosen at run time.
package struct ReportKey: CodingKey, Hashable, Sendable {
  package var stringValue: String
  package var intValue: Int? { nil }
  package init(stringValue: String) { self.stringValue = stringValue }
  package init?(intValue: Int) { nil }
  package init(_ name: String) { self.stringValue = name }
}

extension KeyedEncodingContainer {
  /// Encodes `value`, or `null` when there is none or it is not finite (JSON has no NaN):
  /// a number read from a file may be anything.
  package mutating func encodeFinite(_ value: Double?, forKey key: Key) throws {
    if let value, value.isFinite {
      try encode(value, forKey: key)
    } else {
      try encodeNil(forKey: key)
    }
  }
}

/// JSON text that another encoder wrote, carried inside a report as it is: a state's
/// preview, an action as the domain's `Codable` writes it. ``ReportJSON/text(_:)`` writes it
/// into the report's JSON unchanged, without decoding it (a state's JSON may be hundreds of
/// megabytes); another encoder writes the value it holds, decoded.
package struct EncodedJSON: Codable, Sendable, Equatable {
  /// The JSON text, one value.
  package var text: String

  package init(_ text: String) {
    self.text = text
  }

  /// The text of `value`: a state's preview, or paths in it, as the Studio builds them.
  package init(_ value: JSONValue) {
    self.init(value.text)
  }

  package init(from decoder: any Decoder) throws {
    text = try ReportJSON.text(JSONFragment(from: decoder))
  }

  package func encode(to encoder: any Encoder) throws {
    if let spliced = encoder.userInfo[EncodedJSONSplice.key] as? EncodedJSONSplice {
      var single = encoder.singleValueContainer()
      try single.encode(spliced.placeholder(for: text))
      return
    }
    try JSONFragment(json: text).encode(to: encoder)
  }
}

/// The texts of the ``EncodedJSON`` values of one report, each written first as a string
/// that names it (`retrace-json-` with a random nonce and its number) and then put in its
/// place: the report's own JSON, without them, is small.
final class EncodedJSONSplice: Sendable {
  static let key = CodingUserInfoKey(rawValue: "retrace.encodedJSON")!
  private let prefix = "retrace-json-\(UInt64.random(in: 0...UInt64.max))-"
  private let texts = Mutex<[String]>([])

  func placeholder(for text: String) -> String {
    let number = texts.withLock {
      $0.append(text)
      return $0.count - 1
    }
    return prefix + String(number)
  }

  /// `json` with each placeholder, quoted, replaced by its text.
  func splice(_ json: String) -> String {
    let texts = self.texts.withLock { $0 }
    guard !texts.isEmpty else { return json }
    let quoted = "\"" + prefix
    var output = ""
    output.reserveCapacity(json.utf8.count + texts.reduce(0) { $0 + $1.utf8.count })
    var rest = json[...]
    while let found = rest.range(of: quoted) {
      output += rest[..<found.lowerBound]
      let digits = rest[found.upperBound...].prefix { $0.isASCII && $0.isNumber }
      let end = rest.index(after: digits.endIndex)  // the closing quote
      if let number = Int(digits), texts.indices.contains(number) {
        output += texts[number]
      } else {
        output += rest[found.lowerBound..<end]
      }
      rest = rest[end...]
    }
    output += rest
    return output
  }
}

/// An optional value written as `null` when absent, rather than left out: for a key every
/// answer carries, which a reader tells apart by `null`. `Codable`'s synthesized encoding
/// leaves an absent optional out.
@propertyWrapper
package struct NullWhenAbsent<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
  package var wrappedValue: Value?

  package init(wrappedValue: Value?) {
    self.wrappedValue = wrappedValue
  }

  package init(from decoder: any Decoder) throws {
    let single = try decoder.singleValueContainer()
    wrappedValue = single.decodeNil() ? nil : try single.decode(Value.self)
  }

  package func encode(to encoder: any Encoder) throws {
    var single = encoder.singleValueContainer()
    if let wrappedValue { try single.encode(wrappedValue) } else { try single.encodeNil() }
  }
}
