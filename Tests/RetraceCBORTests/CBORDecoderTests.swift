import Foundation
import PropertyBased
import RetraceCBOR
import Testing

/// Bytes and the Swift value they must decode to.
struct DecodingCase: Sendable, CustomTestStringConvertible {
  let hex: String
  let testDescription: String
  let check: @Sendable ([UInt8]) throws -> Bool

  init<T: Decodable & Equatable & Sendable>(_ hex: String, _ expected: T) {
    self.hex = hex
    self.testDescription = "0x\(hex) as \(T.self) = \(expected)"
    self.check = { try CBORDecoder().decode(T.self, from: $0) == expected }
  }

  init<F: BinaryFloatingPoint & Decodable & Sendable>(_ hex: String, isNaN type: F.Type) {
    self.hex = hex
    self.testDescription = "0x\(hex) as \(F.self) = NaN"
    self.check = { try CBORDecoder().decode(F.self, from: $0).isNaN }
  }
}

// Capitalized keys, as some JSON APIs have them.
struct FunAmt: Codable, Equatable, Sendable {
  // swift-format-ignore: AlwaysUseLowerCamelCase
  var Fun: Bool
  // swift-format-ignore: AlwaysUseLowerCamelCase
  var Amt: Int
}

struct CBORDecoderTests {
  // MARK: RFC 8949 Appendix A into Swift types

  static let appendixA: [DecodingCase] = [
    .init("00", 0), .init("17", UInt8(23)), .init("1818", Int16(24)), .init("1903e8", 1000),
    .init("1a000f4240", UInt32(1_000_000)), .init("1b000000e8d4a51000", 1_000_000_000_000),
    .init("1bffffffffffffffff", UInt64.max), .init("3bffffffffffffffff", -0x1p64),
    .init("20", -1), .init("29", Int8(-10)), .init("3863", -100), .init("3903e7", Int64(-1000)),
    .init("f90000", 0.0), .init("f98000", -0.0), .init("f93c00", Float(1)),
    .init("fb3ff199999999999a", 1.1),
    .init("f93e00", 1.5), .init("f97bff", Float(65504)), .init("fa47c35000", 100000.0),
    .init("fa7f7fffff", Float.greatestFiniteMagnitude), .init("fb7e37e43c8800759c", 1.0e+300),
    .init("f90001", 5.960464477539063e-8), .init("f90400", Float(0.00006103515625)),
    .init("f9c400", -4.0),
    .init("fbc010666666666666", -4.1), .init("f97c00", Double.infinity),
    .init("f9fc00", -Float.infinity),
    .init("fa7f800000", Double.infinity), .init("faff800000", -Float.infinity),
    .init("fb7ff0000000000000", Float.infinity), .init("fbfff0000000000000", -Double.infinity),
    .init("f97e00", isNaN: Double.self), .init("fa7fc00000", isNaN: Float.self),
    .init("fb7ff8000000000000", isNaN: Float.self),
    .init("f4", false), .init("f5", true), .init("f6", Int?.none), .init("f7", String?.none),
    .init("c074323031332d30332d32315432303a30343a30305a", "2013-03-21T20:04:00Z"),
    .init("c11a514b67b0", 1_363_896_240), .init("c1fb41d452d9ec200000", 1363896240.5),
    .init("d74401020304", Data([1, 2, 3, 4])),
    .init("d82076687474703a2f2f7777772e6578616d706c652e636f6d", "http://www.example.com"),
    .init("40", Data()), .init("4401020304", Data([1, 2, 3, 4])),
    .init("60", ""), .init("6161", "a"), .init("6449455446", "IETF"), .init("62225c", "\"\\"),
    .init("62c3bc", "\u{fc}"), .init("63e6b0b4", "\u{6c34}"), .init("64f0908591", "\u{10151}"),
    .init("80", [Int]()), .init("83010203", [1, 2, 3]),
    .init(
      "8301820203820405",
      IntTree.node([.leaf(1), .node([.leaf(2), .leaf(3)]), .node([.leaf(4), .leaf(5)])])),
    .init("98190102030405060708090a0b0c0d0e0f101112131415161718181819", Array(1...25)),
    .init("a0", [String: Int]()), .init("a26161016162820203", AB(a: 1, b: [2, 3])),
    .init("826161a161626163", TextThenMap()),
    .init("a56161614161626142616361436164614461656145", FiveLetters()),
    .init(
      "a56161614161626142616361436164614461656145",
      ["a": "A", "b": "B", "c": "C", "d": "D", "e": "E"]),
    .init("5f42010243030405ff", Data([1, 2, 3, 4, 5])),
    .init("7f657374726561646d696e67ff", "streaming"),
    .init("9fff", [Int]()),
    .init(
      "9f018202039f0405ffff",
      IntTree.node([.leaf(1), .node([.leaf(2), .leaf(3)]), .node([.leaf(4), .leaf(5)])])),
    .init(
      "9f01820203820405ff",
      [IntTree.leaf(1), .node([.leaf(2), .leaf(3)]), .node([.leaf(4), .leaf(5)])]),
    .init(
      "83018202039f0405ff",
      [IntTree.leaf(1), .node([.leaf(2), .leaf(3)]), .node([.leaf(4), .leaf(5)])]),
    .init(
      "83019f0203ff820405",
      [IntTree.leaf(1), .node([.leaf(2), .leaf(3)]), .node([.leaf(4), .leaf(5)])]),
    .init("9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff", Array(1...25)),
    .init("bf61610161629f0203ffff", AB(a: 1, b: [2, 3])),
    .init("826161bf61626163ff", TextThenMap()),
    .init("bf6346756ef563416d7421ff", FunAmt(Fun: true, Amt: -2)),
  ]

  @Test(arguments: appendixA)
  func decodesAppendixAIntoSwiftValues(testCase: DecodingCase) throws {
    #expect(try testCase.check(bytes(hex: testCase.hex)))
  }

  // MARK: Round trips

  @Test func nestedStatesRoundTrip() async throws {
    await propertyCheck(input: Generators.account) { account in
      for deterministic in [false, true] {
        let encoded = try CBOREncoder(deterministic: deterministic).encode(account)
        #expect(try CBORDecoder().decode(Account.self, from: encoded) == account)
        #expect(try CBORValue(decoding: encoded).encoded() == encoded)
      }
    }
  }

  @Test func actionsRoundTrip() async throws {
    await propertyCheck(count: 300, input: Generators.action.array(of: 0...8)) { actions in
      let encoded = try CBOREncoder().encode(actions)
      #expect(try CBORDecoder().decode([Action].self, from: encoded) == actions)
    }
  }

  @Test func optionalsAndNestedCollectionsRoundTrip() throws {
    struct Shapes: Codable, Equatable {
      var a: Int??
      var b: [String: [Int?]]
      var c: [[String: Action]]
      var d: Set<Int16>
      var e: [Int: [UInt8]]
      var f: Double?
      var g: Pair
      enum Pair: Codable, Equatable {
        case pair(Int, String)
        case none
      }
    }
    let values = [
      Shapes(
        a: .some(nil), b: ["x": [1, nil, 3]], c: [["m": .move(from: 1, to: 2)]], d: [1, -2],
        e: [3: [255]], f: nil, g: .pair(1, "a")),
      Shapes(a: 5, b: [:], c: [], d: [], e: [:], f: -0.0, g: .none),
      Shapes(
        a: nil, b: ["": []], c: [[:]], d: [.max], e: [-1: []], f: .infinity, g: .pair(.min, "")),
    ]
    for value in values {
      let encoded = try CBOREncoder().encode(value)
      let decoded = try CBORDecoder().decode(Shapes.self, from: encoded)
      // `Int??.some(nil)` encodes as null and decodes as nil, as with JSONEncoder.
      #expect(
        decoded.b == value.b && decoded.c == value.c && decoded.d == value.d && decoded.e == value.e
      )
      #expect(decoded.f?.bitPattern == value.f?.bitPattern && decoded.g == value.g)
      #expect(decoded.a == (value.a == .some(nil) ? nil : value.a))
    }
    let pair = try CBORValue(encoding: Shapes.Pair.pair(1, "a"))
    #expect(pair.description == #"{"pair": {"_0": 1, "_1": "a"}}"#)
  }

  @Test func decodesFromARawBufferSlice() throws {
    let records = try [Action.increment, .sampleTransaction].map { try CBOREncoder().encode($0) }
    let chunk = records.joined().map { $0 }
    let decoded = try chunk.withUnsafeBytes { raw in
      [
        try CBORDecoder().decode(
          Action.self, from: UnsafeRawBufferPointer(rebasing: raw[0..<records[0].count])),
        try CBORDecoder().decode(
          Action.self, from: UnsafeRawBufferPointer(rebasing: raw[records[0].count...])),
      ]
    }
    #expect(decoded == [.increment, .sampleTransaction])
  }

  // MARK: Numbers

  @Test func integersDecodeFromAnyWidthThatFits() throws {
    let decoder = CBORDecoder()
    #expect(try decoder.decode(UInt8.self, from: bytes(hex: "1b00000000000000ff")) == 255)
    #expect(try decoder.decode(Int8.self, from: bytes(hex: "387f")) == -128)
    #expect(try decoder.decode(Int64.self, from: bytes(hex: "3b7fffffffffffffff")) == .min)
    #expect(try decoder.decode(Int.self, from: bytes(hex: "d8181864")) == 100)  // a tag is skipped
    #expect(try decoder.decode(Double.self, from: bytes(hex: "1b0020000000000000")) == 0x1p53)
    #expect(try decoder.decode(Float.self, from: bytes(hex: "3903e7")) == -1000)
    #expect(try decoder.decode(Float.self, from: bytes(hex: "fb3ff8000000000000")) == 1.5)
  }

  @Test(arguments: [
    ("19012c", "UInt8"), ("1880", "Int8"), ("3880", "Int8"), ("20", "UInt"),
    ("3bffffffffffffffff", "Int"),
    ("1b7fffffffffffffff", "Int32"), ("1b0020000000000001", "Double"),
    ("fb3ff199999999999a", "Float"),
  ])
  func numbersThatDoNotFitAreDataCorrupted(hexInput: String, typeName: String) throws {
    let input = bytes(hex: hexInput)
    let error: DecodingError?
    switch typeName {
    case "UInt8": error = decodingError { try CBORDecoder().decode(UInt8.self, from: input) }
    case "Int8": error = decodingError { try CBORDecoder().decode(Int8.self, from: input) }
    case "UInt": error = decodingError { try CBORDecoder().decode(UInt.self, from: input) }
    case "Int": error = decodingError { try CBORDecoder().decode(Int.self, from: input) }
    case "Int32":
      error = decodingError { try CBORDecoder().decode([Int32].self, from: [0x81] + input) }
    case "Double": error = decodingError { try CBORDecoder().decode(Double.self, from: input) }
    default: error = decodingError { try CBORDecoder().decode(Float.self, from: input) }
    }
    guard case .dataCorrupted(let context)? = error else {
      Issue.record("expected dataCorrupted, got \(String(describing: error))")
      return
    }
    #expect(context.debugDescription.contains("byte offset"))
    #expect((context.underlyingError as? CBORError)?.code == .valueOutOfRange)
  }

  @Test func typesDoNotConvert() throws {
    #expect(throws: DecodingError.self) {
      try CBORDecoder().decode(Int.self, from: bytes(hex: "f94000"))
    }  // 2.0
    #expect(throws: DecodingError.self) {
      try CBORDecoder().decode(String.self, from: bytes(hex: "01"))
    }
    #expect(throws: DecodingError.self) {
      try CBORDecoder().decode(Bool.self, from: bytes(hex: "01"))
    }
    #expect(throws: DecodingError.self) {
      try CBORDecoder().decode(Data.self, from: bytes(hex: "6161"))
    }
    #expect(throws: DecodingError.self) {
      try CBORDecoder().decode([UInt8].self, from: bytes(hex: "4101"))
    }
    #expect(throws: DecodingError.self) {
      try CBORDecoder().decode(AB.self, from: bytes(hex: "80"))
    }
    #expect(try CBORDecoder().decode([UInt8].self, from: bytes(hex: "820102")) == [1, 2])
  }

  // MARK: Errors

  @Test func errorsCarryThePathAndTheByteOffset() throws {
    // {"a": 1, "b": [2, "x"]}: the second element of "b" is not an Int.
    let input = bytes(hex: "a2616101616282026178")
    let error = decodingError { try CBORDecoder().decode(AB.self, from: input) }
    guard case .typeMismatch(_, let context)? = error else {
      Issue.record("expected typeMismatch, got \(String(describing: error))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["b", "Index 1"])
    #expect(
      context.debugDescription == "Expected an integer but found a text string at byte offset 8.")
    #expect((context.underlyingError as? CBORError)?.offset == 8)

    let nested = bytes(hex: "a16e6164645472616e73616374696f6ea164696261" + "6e" + "6141")
    let missing = decodingError { try CBORDecoder().decode(Action.self, from: nested) }
    guard case .keyNotFound(let key, let missingContext)? = missing else {
      Issue.record("expected keyNotFound, got \(String(describing: missing))")
      return
    }
    #expect(key.stringValue == "amount")
    #expect(missingContext.codingPath.map(\.stringValue) == ["addTransaction"])
  }

  @Test func aShortArrayIsValueNotFound() throws {
    struct Pair: Decodable {
      init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        _ = try container.decode(Int.self)
        _ = try container.decode(Int.self)
      }
    }
    let error = decodingError { try CBORDecoder().decode(Pair.self, from: bytes(hex: "8101")) }
    guard case .valueNotFound(_, let context)? = error else {
      Issue.record("expected valueNotFound, got \(String(describing: error))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["Index 1"])
    #expect(context.debugDescription == "The array has no element at index 1 (byte offset 2).")
  }

  @Test func nullForANonOptionalIsValueNotFound() throws {
    let error = decodingError {
      try CBORDecoder().decode(AB.self, from: bytes(hex: "a26161f6616280"))
    }
    guard case .valueNotFound(_, let context)? = error else {
      Issue.record("expected valueNotFound, got \(String(describing: error))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["a"])
  }

  @Test func trailingBytesAreAnError() throws {
    let error = decodingError { try CBORDecoder().decode(Int.self, from: [0x01, 0x02]) }
    guard case .dataCorrupted(let context)? = error else {
      Issue.record("expected dataCorrupted, got \(String(describing: error))")
      return
    }
    #expect((context.underlyingError as? CBORError)?.code == .trailingBytes)
    #expect(context.debugDescription.contains("byte offset 1"))
  }

  @Test func unknownKeysAreIgnoredAndNullOrMissingOptionalsAreNil() throws {
    struct Partial: Codable, Equatable {
      var b: [Int]
      var z: Int?
    }
    let value = try CBORDecoder().decode(
      Partial.self, from: bytes(hex: "a3616101616282020361" + "7a" + "f6"))
    #expect(value == Partial(b: [2, 3], z: nil))
    #expect(
      try CBORDecoder().decode(Partial.self, from: bytes(hex: "a161628102"))
        == Partial(b: [2], z: nil))
  }

  @Test func keysInAnyOrderAndIndefiniteMapsDecode() throws {
    struct Many: Codable, Equatable { var a = 1, bb = 2, c = 3, dd = 4, e = 5 }
    let deterministic = try CBOREncoder(deterministic: true).encode(Many())
    #expect(try CBORDecoder().decode(Many.self, from: deterministic) == Many())
    let reversed = CBORValue.map(try CBORValue(encoding: Many()).mapValue!.reversed()).encoded()
    #expect(try CBORDecoder().decode(Many.self, from: reversed) == Many())
    // The same map with an indefinite length and a chunked key.
    let indefinite = bytes(hex: "bf 6161 01 7f 6162 6162 ff 02 6163 03 626464 04 6165 05 ff")
    #expect(try CBORDecoder().decode(Many.self, from: indefinite) == Many())
    #expect(try CBORDecoder().decode([String: Int].self, from: indefinite).count == 5)
  }

  // MARK: Hostile input

  /// Random bytes, and every truncation and single-byte change of valid encodings, yield
  /// errors (or, by chance, a value), never a trap or a runaway allocation.
  @Test func hostileInputNeverTraps() async throws {
    var samples: [[UInt8]] = RFC8949AppendixA.rows.map(\.encoded)
    samples.append(try CBOREncoder().encode(Action.sampleTransaction))
    samples.append(try CBOREncoder().encode([Action.increment, .move(from: -1, to: 1_000_000)]))
    for sample in samples {
      for length in 0..<sample.count {
        exercise(Array(sample.prefix(length)))
      }
      for index in sample.indices {
        for delta: UInt8 in [1, 0x20, 0x80, 0xff] {
          var changed = sample
          changed[index] &+= delta
          exercise(changed)
        }
      }
    }
    await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...40)) { random in
      exercise(random)
    }
    // Heads that claim huge lengths: errors, not reservations.
    for hexInput in [
      "5b0000010000000000", "7b7fffffffffffffff", "9b0000010000000000", "bb0000010000000000",
      "9a7fffffff01", "81" + String(repeating: "9f", count: 300),
    ] {
      exercise(bytes(hex: hexInput))
    }
  }

  private func exercise(_ input: [UInt8]) {
    _ = try? CBORValue(decoding: input)
    _ = try? CBORDecoder().decode(Action.self, from: input)
    _ = try? CBORDecoder().decode([Action].self, from: input)
    _ = try? CBORDecoder().decode(Account.self, from: input)
    _ = try? CBORDecoder().decode([String: Int8].self, from: input)
    _ = try? CBORDecoder().decode(IntTree.self, from: input)
    _ = try? CBORDecoder().decode(Data.self, from: input)
  }

  /// The decoder reads the caller's memory; a container kept beyond the call must find
  /// nothing to read rather than freed memory.
  @Test func aContainerKeptBeyondTheCallFindsNothing() throws {
    enum Keys: String, CodingKey { case a, b }
    struct Escaping: Decodable {
      let container: KeyedDecodingContainer<Keys>
      let decoder: any Decoder
      init(from decoder: any Decoder) throws {
        container = try decoder.container(keyedBy: Keys.self)
        self.decoder = try container.superDecoder(forKey: .b)
      }
    }
    let kept = try CBORDecoder().decode(Escaping.self, from: bytes(hex: "a26161016162a0"))
    #expect(throws: DecodingError.self) { try kept.container.decode(Int.self, forKey: .a) }
    #expect(kept.container.allKeys.isEmpty)
    #expect(throws: DecodingError.self) { try kept.decoder.container(keyedBy: Keys.self) }
  }

  @Test func deepNestingIsAnErrorNotAStackOverflow() throws {
    let deep = Array(repeating: UInt8(0x81), count: 100_000) + [0x00]
    let error = decodingError { try CBORDecoder().decode(IntTree.self, from: deep) }
    guard case .dataCorrupted(let context)? = error else {
      Issue.record("expected dataCorrupted, got \(String(describing: error))")
      return
    }
    #expect((context.underlyingError as? CBORError)?.code == .nestingTooDeep)
  }

  @Test func invalidUTF8IsAnError() throws {
    let error = decodingError {
      try CBORDecoder().decode([String].self, from: bytes(hex: "82616162c328"))
    }
    guard case .dataCorrupted(let context)? = error else {
      Issue.record("expected dataCorrupted, got \(String(describing: error))")
      return
    }
    #expect((context.underlyingError as? CBORError)?.code == .invalidUTF8)
    #expect((context.underlyingError as? CBORError)?.offset == 4)
  }
}

/// The `DecodingError` that `body` throws, or nil.
func decodingError<T>(_ body: () throws -> T) -> DecodingError? {
  do {
    _ = try body()
    return nil
  } catch {
    return error as? DecodingError
  }
}
