import Foundation
import RetraceLog
import Testing

/// ``ReportJSON`` writes a report's ``EncodedJSON`` as it is, and ``NullWhenAbsent`` as
/// `null`.
@Suite struct ReportJSONTests {
  struct Report: Codable, Equatable {
    var name: String
    var state: EncodedJSON
    var items: [EncodedJSON]
    @NullWhenAbsent var next: UInt64?
    var left: UInt64?
  }

  @Test func encodedJSONIsWrittenAsItIsAndAbsentAsNull() throws {
    let report = Report(
      name: "a \"quoted\" name", state: EncodedJSON(#"{"z":1,"a":[1.50,"x/y"]}"#),
      items: [EncodedJSON("null"), EncodedJSON("[]")], next: nil, left: nil)
    #expect(
      try ReportJSON.text(report)
        == #"{"items":[null,[]],"name":"a \"quoted\" name","next":null,"state":{"z":1,"a":[1.50,"x/y"]}}"#
    )
  }

  /// A string in the report that looks like a placeholder is written as the string it is.
  @Test func aStringLikeAPlaceholderStaysAString() throws {
    let report = Report(
      name: "retrace-json-1-0", state: EncodedJSON("true"), items: [], next: 3, left: 4)
    #expect(
      try ReportJSON.text(report)
        == #"{"items":[],"left":4,"name":"retrace-json-1-0","next":3,"state":true}"#)
  }

  /// Another encoder, and a decoder, see the value the text holds.
  @Test func anotherEncoderWritesTheValueDecoded() throws {
    let report = Report(
      name: "n", state: EncodedJSON(#"{"b":2,"a":1}"#), items: [], next: nil, left: nil)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data = try encoder.encode(report)
    #expect(
      String(decoding: data, as: UTF8.self)
        == #"{"items":[],"name":"n","next":null,"state":{"a":1,"b":2}}"#)
    let decoded = try ReportJSON.decode(Report.self, from: data)
    #expect(decoded.state.text == #"{"a":1,"b":2}"#)
    #expect(decoded.next == nil)
  }
}
