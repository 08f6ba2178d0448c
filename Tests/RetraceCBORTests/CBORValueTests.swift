import RetraceCBOR
import Testing

struct CBORValueTests {
  // MARK: RFC 8949 Appendix A

  @Test(arguments: RFC8949AppendixA.rows)
  func decodesAppendixA(row: AppendixARow) throws {
    let value = try CBORValue(decoding: row.encoded)
    #expect(value == row.value)
    #expect(value.description == row.expectedDescription)
  }

  @Test(arguments: RFC8949AppendixA.rows.filter(\.preferred))
  func reencodesAppendixA(row: AppendixARow) throws {
    #expect(hex(row.value.encoded()) == row.hex)
    #expect(hex(try CBORValue(decoding: row.encoded).encoded()) == row.hex)
  }

  @Test func decodesFromRawBuffer() throws {
    let encoded = bytes(hex: "a26161016162820203")
    let value = try encoded.withUnsafeBytes { try CBORValue(decoding: $0) }
    #expect(value == ["a": 1, "b": [2, 3]])
  }

  // MARK: Errors

  @Test(arguments: [
    ("", CBORError.Code.truncated, 0),
    ("18", .truncated, 0),
    ("1c", .invalidHeader, 0),
    ("ff", .invalidHeader, 0),
    ("1f", .invalidHeader, 0),
    ("f818", .invalidHeader, 0),
    ("62c3", .lengthTooLarge, 0),
    ("5b0000010000000000", .lengthTooLarge, 0),  // a byte string of 2^40 bytes
    ("9b00000100000000000102", .lengthTooLarge, 0),
    ("bb7fffffffffffffff", .lengthTooLarge, 0),
    ("8301", .lengthTooLarge, 0),  // 3 elements cannot fit in 1 byte
    ("820119", .truncated, 2),
    ("9f01", .truncated, 2),
    ("a1616119", .truncated, 3),
    ("62c328", .invalidUTF8, 1),
    ("63eda080", .invalidUTF8, 1),  // a UTF-16 surrogate
    ("62c0af", .invalidUTF8, 1),  // an overlong "/"
    ("7f6161ff00", .trailingBytes, 4),
    ("7f416161ff", .invalidHeader, 1),  // a byte-string chunk in a text string
    ("bf6161ff", .invalidHeader, 3),  // "break" where a value is due
    ("0102", .trailingBytes, 1),
  ])
  func rejectsMalformedInput(hexInput: String, code: CBORError.Code, offset: Int) {
    #expect {
      _ = try CBORValue(decoding: bytes(hex: hexInput))
    } throws: { error in
      let error = error as? CBORError
      return error?.code == code && error?.offset == offset
    }
  }

  @Test func limitsNestingDepth() throws {
    let ok = Array(repeating: UInt8(0x81), count: 256) + [0x00]
    #expect(try CBORValue(decoding: ok).encoded() == ok)
    let tooDeep = Array(repeating: UInt8(0x81), count: 257) + [0x00]
    #expect(throws: CBORError.self) { try CBORValue(decoding: tooDeep) }
    let tags = Array(repeating: UInt8(0xc1), count: 100_000) + [0x00]
    #expect { try CBORValue(decoding: tags) } throws: {
      ($0 as? CBORError)?.code == .nestingTooDeep
    }
  }

  @Test func errorDescriptionNamesCodeAndOffset() {
    let error = CBORError(.truncated, "the input ends", offset: 7)
    #expect(error.description == "CBOR error (truncated) at byte offset 7: the input ends")
  }

  // MARK: JSON

  @Test(arguments: [
    ("a26161016162820203", #"{"a":1,"b":[2,3]}"#),
    ("a201020304", #"{"1":2,"3":4}"#),
    ("a1820102f5", #"{"[1,2]":true}"#),
    ("4401020304", #""AQIDBA""#),
    ("43fbff00", #""-_8A""#),
    ("c249010000000000000000", #""AQAAAAAAAAAA""#),
    ("c349010000000000000000", #""~AQAAAAAAAAAA""#),
    ("c11a514b67b0", "1363896240"),
    ("c1fb41d452d9ec200000", "1363896240.5"),
    ("f97c00", "null"),
    ("f97e00", "null"),
    ("f7", "null"),
    ("f0", "null"),
    ("f98000", "-0"),
    ("fb7e37e43c8800759c", "1e+300"),
    ("3bffffffffffffffff", "-18446744073709551616"),
    ("6b612f625c22630a0964c3bc", #""a/b\\\"c\n\tdü""#),
    ("61" + "1f", #""\u001f""#),
    ("9f018202039f0405ffff", "[1,[2,3],[4,5]]"),
  ])
  func rendersJSON(hexInput: String, json: String) throws {
    #expect(try CBORValue(decoding: bytes(hex: hexInput)).jsonText == json)
  }

  @Test func jsonKeepsOrUnsortsKeys() {
    let value: CBORValue = ["b": 1, "a": ["d": 2, "c": 3], "aa": 4]
    #expect(value.jsonText == #"{"b":1,"a":{"d":2,"c":3},"aa":4}"#)
    #expect(value.jsonText(sortingKeys: true) == #"{"a":{"c":3,"d":2},"aa":4,"b":1}"#)
  }

  // MARK: Reading and rewriting

  @Test func subscriptsReadAndWriteMaps() {
    var payload: CBORValue = ["cents": 500, "note": "rent"]
    #expect(payload["cents"] == 500)
    #expect(payload["missing"] == nil)
    payload["amount"] = payload["cents"]
    payload["cents"] = nil
    payload["note"] = "lunch"
    #expect(payload == ["note": "lunch", "amount": 500])
    #expect(payload.removeValue(forKey: "note") == "lunch")
    #expect(payload == ["amount": 500])
    #expect(CBORValue.array([1, 2])[1] == 2)
    #expect(CBORValue.array([1, 2])[2] == nil)
    #expect(CBORValue.unsigned(1)["a"] == nil)
  }

  @Test func readsEnumCases() {
    let move: CBORValue = ["move": ["from": 1, "to": 2]]
    #expect(move.caseName == "move")
    #expect(move.casePayload == ["from": 1, "to": 2])
    let increment: CBORValue = ["increment": [:]]
    #expect(increment.caseName == "increment")
    #expect(increment.casePayload == [:])
    #expect(CBORValue.map([]).caseName == nil)
    #expect(CBORValue.map([.init("a", 1), .init("b", 2)]).caseName == nil)
  }

  @Test func upcasterRewritesAnOldActionShape() throws {
    enum Action: Codable, Equatable { case addTransaction(amount: Int) }
    var value: CBORValue = ["deposit": ["cents": 500]]
    if value.caseName == "deposit", var payload = value.casePayload {
      payload["amount"] = payload["cents"]
      payload.removeValue(forKey: "cents")
      value = ["addTransaction": payload]
    }
    #expect(try value.decode(as: Action.self) == .addTransaction(amount: 500))
    #expect(try CBORValue(encoding: Action.addTransaction(amount: 500)) == value)
  }

  @Test func scalarAccessors() {
    #expect(CBORValue.negative(0).intValue == -1)
    #expect(CBORValue.unsigned(.max).intValue == nil)
    #expect(CBORValue.negative(.max).doubleValue == -0x1p64)
    #expect(CBORValue.unsigned(3).doubleValue == 3)
    #expect(CBORValue.float(2.5).doubleValue == 2.5)
    #expect(CBORValue.textString("x").stringValue == "x")
    #expect(CBORValue.boolean(true).boolValue == true)
    #expect(CBORValue.byteString([1]).bytesValue == [1])
    #expect(CBORValue.array([1]).arrayValue == [1])
    #expect(CBORValue.map([.init("a", 1)]).mapValue == [.init("a", 1)])
    #expect(CBORValue.null.isNull && CBORValue.undefined.isNull && !CBORValue.unsigned(0).isNull)
    #expect(CBORValue.tagged(1, .tagged(2, "x")).untagged == "x")
  }

  @Test func floatsCompareByBitPattern() {
    #expect(CBORValue.float(.nan) == .float(.nan))
    #expect(CBORValue.float(0.0) != .float(-0.0))
    #expect(Set<CBORValue>([.float(.nan), .float(.nan), .float(0.0), .float(-0.0)]).count == 3)
    #expect(CBORValue.unsigned(1) != .float(1))
  }

  @Test func simpleValuesEncodeInOneOrTwoBytes() {
    #expect(CBORValue.simple(0).encoded() == [0xe0])
    #expect(CBORValue.simple(19).encoded() == [0xf3])
    #expect(CBORValue.simple(32).encoded() == [0xf8, 0x20])
  }
}
