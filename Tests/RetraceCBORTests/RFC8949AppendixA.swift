import RetraceCBOR
import Testing

/// One row of RFC 8949 Appendix A ("Examples of Encoded CBOR Data Items").
struct AppendixARow: Sendable, CustomTestStringConvertible {
  /// The diagnostic notation column, as printed in the RFC.
  let diagnostic: String
  /// The encoded column, without the "0x".
  let hex: String
  /// The data item.
  let value: CBORValue
  /// What ``CBORValue/description`` prints when it differs from the RFC's column: the RFC
  /// shows bignums as numbers and marks indefinite lengths with `_`, which a `CBORValue`
  /// does not keep, and writes one float without an exponent where Swift uses one.
  let ours: String?
  /// Whether the RFC's bytes are the preferred serialization (definite lengths, shortest
  /// floats), which is what ``CBORValue/encoded()`` writes.
  let preferred: Bool

  init(
    _ diagnostic: String, _ hex: String, _ value: CBORValue, ours: String? = nil,
    preferred: Bool = true
  ) {
    self.diagnostic = diagnostic
    self.hex = hex
    self.value = value
    self.ours = ours
    self.preferred = preferred
  }

  var encoded: [UInt8] { bytes(hex: hex) }
  var expectedDescription: String { ours ?? diagnostic }
  var testDescription: String { "\(diagnostic) = 0x\(hex)" }
}

/// The complete table of RFC 8949 Appendix A, in the RFC's order.
enum RFC8949AppendixA {
  static let oneToTwentyFive: CBORValue = .array((1...25).map { .unsigned(UInt64($0)) })
  static let bignum: CBORValue = .byteString([1, 0, 0, 0, 0, 0, 0, 0, 0])

  static let rows: [AppendixARow] = [
    .init("0", "00", 0),
    .init("1", "01", 1),
    .init("10", "0a", 10),
    .init("23", "17", 23),
    .init("24", "1818", 24),
    .init("25", "1819", 25),
    .init("100", "1864", 100),
    .init("1000", "1903e8", 1000),
    .init("1000000", "1a000f4240", 1_000_000),
    .init("1000000000000", "1b000000e8d4a51000", 1_000_000_000_000),
    .init("18446744073709551615", "1bffffffffffffffff", .unsigned(.max)),
    .init(
      "18446744073709551616", "c249010000000000000000", .tagged(2, bignum),
      ours: "2(h'010000000000000000')"),
    .init("-18446744073709551616", "3bffffffffffffffff", .negative(.max)),
    .init(
      "-18446744073709551617", "c349010000000000000000", .tagged(3, bignum),
      ours: "3(h'010000000000000000')"),
    .init("-1", "20", -1),
    .init("-10", "29", -10),
    .init("-100", "3863", -100),
    .init("-1000", "3903e7", -1000),
    .init("0.0", "f90000", 0.0),
    .init("-0.0", "f98000", -0.0),
    .init("1.0", "f93c00", 1.0),
    .init("1.1", "fb3ff199999999999a", 1.1),
    .init("1.5", "f93e00", 1.5),
    .init("65504.0", "f97bff", 65504.0),
    .init("100000.0", "fa47c35000", 100000.0),
    .init("3.4028234663852886e+38", "fa7f7fffff", 3.4028234663852886e+38),
    .init("1.0e+300", "fb7e37e43c8800759c", 1.0e+300),
    .init("5.960464477539063e-8", "f90001", 5.960464477539063e-8),
    .init("0.00006103515625", "f90400", 0.00006103515625, ours: "6.103515625e-5"),
    .init("-4.0", "f9c400", -4.0),
    .init("-4.1", "fbc010666666666666", -4.1),
    .init("Infinity", "f97c00", .float(.infinity)),
    .init("NaN", "f97e00", .float(.nan)),
    .init("-Infinity", "f9fc00", .float(-.infinity)),
    .init("Infinity", "fa7f800000", .float(.infinity), preferred: false),
    .init("NaN", "fa7fc00000", .float(.nan), preferred: false),
    .init("-Infinity", "faff800000", .float(-.infinity), preferred: false),
    .init("Infinity", "fb7ff0000000000000", .float(.infinity), preferred: false),
    .init("NaN", "fb7ff8000000000000", .float(.nan), preferred: false),
    .init("-Infinity", "fbfff0000000000000", .float(-.infinity), preferred: false),
    .init("false", "f4", false),
    .init("true", "f5", true),
    .init("null", "f6", nil),
    .init("undefined", "f7", .undefined),
    .init("simple(16)", "f0", .simple(16)),
    .init("simple(255)", "f8ff", .simple(255)),
    .init(
      "0(\"2013-03-21T20:04:00Z\")", "c074323031332d30332d32315432303a30343a30305a",
      .tagged(0, "2013-03-21T20:04:00Z")),
    .init("1(1363896240)", "c11a514b67b0", .tagged(1, 1_363_896_240)),
    .init("1(1363896240.5)", "c1fb41d452d9ec200000", .tagged(1, 1363896240.5)),
    .init("23(h'01020304')", "d74401020304", .tagged(23, .byteString([1, 2, 3, 4]))),
    .init(
      "24(h'6449455446')", "d818456449455446",
      .tagged(24, .byteString([0x64, 0x49, 0x45, 0x54, 0x46]))),
    .init(
      "32(\"http://www.example.com\")", "d82076687474703a2f2f7777772e6578616d706c652e636f6d",
      .tagged(32, "http://www.example.com")),
    .init("h''", "40", .byteString([])),
    .init("h'01020304'", "4401020304", .byteString([1, 2, 3, 4])),
    .init("\"\"", "60", ""),
    .init("\"a\"", "6161", "a"),
    .init("\"IETF\"", "6449455446", "IETF"),
    .init("\"\\\"\\\\\"", "62225c", "\"\\"),
    .init("\"\\u00fc\"", "62c3bc", "\u{fc}"),
    .init("\"\\u6c34\"", "63e6b0b4", "\u{6c34}"),
    .init("\"\\ud800\\udd51\"", "64f0908591", "\u{10151}"),
    .init("[]", "80", []),
    .init("[1, 2, 3]", "83010203", [1, 2, 3]),
    .init("[1, [2, 3], [4, 5]]", "8301820203820405", [1, [2, 3], [4, 5]]),
    .init(
      "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]",
      "98190102030405060708090a0b0c0d0e0f101112131415161718181819", oneToTwentyFive),
    .init("{}", "a0", [:]),
    .init("{1: 2, 3: 4}", "a201020304", [1: 2, 3: 4]),
    .init("{\"a\": 1, \"b\": [2, 3]}", "a26161016162820203", ["a": 1, "b": [2, 3]]),
    .init("[\"a\", {\"b\": \"c\"}]", "826161a161626163", ["a", ["b": "c"]]),
    .init(
      "{\"a\": \"A\", \"b\": \"B\", \"c\": \"C\", \"d\": \"D\", \"e\": \"E\"}",
      "a56161614161626142616361436164614461656145",
      ["a": "A", "b": "B", "c": "C", "d": "D", "e": "E"]),
    .init(
      "(_ h'0102', h'030405')", "5f42010243030405ff", .byteString([1, 2, 3, 4, 5]),
      ours: "h'0102030405'", preferred: false),
    .init(
      "(_ \"strea\", \"ming\")", "7f657374726561646d696e67ff", "streaming",
      ours: "\"streaming\"", preferred: false),
    .init("[_ ]", "9fff", [], ours: "[]", preferred: false),
    .init(
      "[_ 1, [2, 3], [_ 4, 5]]", "9f018202039f0405ffff", [1, [2, 3], [4, 5]],
      ours: "[1, [2, 3], [4, 5]]", preferred: false),
    .init(
      "[_ 1, [2, 3], [4, 5]]", "9f01820203820405ff", [1, [2, 3], [4, 5]],
      ours: "[1, [2, 3], [4, 5]]", preferred: false),
    .init(
      "[1, [2, 3], [_ 4, 5]]", "83018202039f0405ff", [1, [2, 3], [4, 5]],
      ours: "[1, [2, 3], [4, 5]]", preferred: false),
    .init(
      "[1, [_ 2, 3], [4, 5]]", "83019f0203ff820405", [1, [2, 3], [4, 5]],
      ours: "[1, [2, 3], [4, 5]]", preferred: false),
    .init(
      "[_ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]",
      "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff", oneToTwentyFive,
      ours:
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]",
      preferred: false),
    .init(
      "{_ \"a\": 1, \"b\": [_ 2, 3]}", "bf61610161629f0203ffff", ["a": 1, "b": [2, 3]],
      ours: "{\"a\": 1, \"b\": [2, 3]}", preferred: false),
    .init(
      "[\"a\", {_ \"b\": \"c\"}]", "826161bf61626163ff", ["a", ["b": "c"]],
      ours: "[\"a\", {\"b\": \"c\"}]", preferred: false),
    .init(
      "{_ \"Fun\": true, \"Amt\": -2}", "bf6346756ef563416d7421ff", ["Fun": true, "Amt": -2],
      ours: "{\"Fun\": true, \"Amt\": -2}", preferred: false),
  ]
}
