import Foundation
import PropertyBased
import RetraceCBOR
import Testing

/// A Swift value and the bytes it must encode to.
struct EncodingCase: Sendable, CustomTestStringConvertible {
  let hex: String
  let testDescription: String
  let encode: @Sendable (CBOREncoder) throws -> [UInt8]

  init<T: Encodable & Sendable>(_ hex: String, _ value: T) {
    self.hex = hex
    self.testDescription = "\(T.self) \(value) = 0x\(hex)"
    self.encode = { try $0.encode(value) }
  }
}

/// `[1, [2, 3]]`-style nesting, which Swift can only express through a custom type.
indirect enum IntTree: Codable, Equatable, Sendable {
  case leaf(Int)
  case node([IntTree])

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .leaf(let value): try container.encode(value)
    case .node(let children): try container.encode(children)
    }
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let value = try? container.decode(Int.self) {
      self = .leaf(value)
    } else {
      self = .node(try container.decode([IntTree].self))
    }
  }
}

/// `{"a": 1, "b": [2, 3]}`
struct AB: Codable, Equatable, Sendable {
  var a: Int
  var b: [Int]
}

/// `["a", {"b": "c"}]`
struct TextThenMap: Codable, Equatable, Sendable {
  var text = "a"
  var map = ["b": "c"]

  func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(text)
    try container.encode(map)
  }

  init() {}

  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    text = try container.decode(String.self)
    map = try container.decode([String: String].self)
  }
}

/// `{"a": "A", "b": "B", "c": "C", "d": "D", "e": "E"}`
struct FiveLetters: Codable, Equatable, Sendable {
  var a = "A", b = "B", c = "C", d = "D", e = "E"
}

private enum Key: String, CodingKey { case a, b, c, x, y }

struct CBOREncoderTests {
  // MARK: RFC 8949 Appendix A from Swift values

  static let appendixA: [EncodingCase] = [
    .init("00", 0), .init("01", 1), .init("0a", 10), .init("17", 23), .init("1818", 24),
    .init("1819", 25), .init("1864", 100), .init("1903e8", 1000), .init("1a000f4240", 1_000_000),
    .init("1b000000e8d4a51000", 1_000_000_000_000), .init("1bffffffffffffffff", UInt64.max),
    .init("20", -1), .init("29", -10), .init("3863", -100), .init("3903e7", -1000),
    .init("f90000", 0.0), .init("f98000", -0.0), .init("f93c00", 1.0),
    .init("fb3ff199999999999a", 1.1),
    .init("f93e00", 1.5), .init("f97bff", 65504.0), .init("fa47c35000", 100000.0),
    .init("fa7f7fffff", 3.4028234663852886e+38), .init("fb7e37e43c8800759c", 1.0e+300),
    .init("f90001", 5.960464477539063e-8), .init("f90400", 0.00006103515625), .init("f9c400", -4.0),
    .init("fbc010666666666666", -4.1), .init("f97c00", Double.infinity),
    .init("f97e00", Double.nan),
    .init("f9fc00", -Double.infinity),
    .init("f4", false), .init("f5", true), .init("f6", Int?.none),
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
  ]

  @Test(arguments: appendixA)
  func encodesAppendixAFromSwiftValues(testCase: EncodingCase) throws {
    #expect(hex(try testCase.encode(CBOREncoder())) == testCase.hex)
    #expect(hex(try testCase.encode(CBOREncoder(deterministic: true))) == testCase.hex)
  }

  @Test func sortsADictionaryLikeAppendixA() throws {
    let letters = ["e": "E", "c": "C", "a": "A", "d": "D", "b": "B"]
    #expect(
      hex(try CBOREncoder(deterministic: true).encode(letters))
        == "a56161614161626142616361436164614461656145")
  }

  // MARK: Numbers

  @Test func integersOfEveryWidthUseTheShortestHead() throws {
    let encoder = CBOREncoder()
    #expect(try encoder.encode(UInt8(24)) == [0x18, 0x18])
    #expect(try encoder.encode(Int8.min) == [0x38, 0x7f])
    #expect(try encoder.encode(Int16(1000)) == [0x19, 0x03, 0xe8])
    #expect(try encoder.encode(UInt16.max) == [0x19, 0xff, 0xff])
    #expect(try encoder.encode(Int32.min) == [0x3a, 0x7f, 0xff, 0xff, 0xff])
    #expect(try encoder.encode(UInt32(1_000_000)) == [0x1a, 0x00, 0x0f, 0x42, 0x40])
    #expect(try encoder.encode(Int64.min) == bytes(hex: "3b7fffffffffffffff"))
    #expect(try encoder.encode(Int.max) == bytes(hex: "1b7fffffffffffffff"))
    #expect(try encoder.encode(UInt(4_294_967_296)) == bytes(hex: "1b0000000100000000"))
  }

  @Test func floatsUseTheShortestExactWidth() throws {
    let encoder = CBOREncoder()
    #expect(try encoder.encode(Float(100000)) == bytes(hex: "fa47c35000"))
    #expect(try encoder.encode(Float.greatestFiniteMagnitude) == bytes(hex: "fa7f7fffff"))
    #expect(try encoder.encode(Float(-4)) == bytes(hex: "f9c400"))
    #expect(try encoder.encode(Float.nan) == bytes(hex: "f97e00"))
    #expect(try encoder.encode(-Double.nan) == bytes(hex: "f97e00"))
    #expect(try encoder.encode(Double(bitPattern: 0x7ff0_0000_0000_0001)) == bytes(hex: "f97e00"))
    #expect(try encoder.encode(Float(0.1)) == bytes(hex: "fa3dcccccd"))
    #expect(try encoder.encode(Double.leastNonzeroMagnitude) == bytes(hex: "fb0000000000000001"))
    #expect(try encoder.encode(Double(Float.leastNonzeroMagnitude)) == bytes(hex: "fa00000001"))
    #expect(try encoder.encode(65520.0) == bytes(hex: "fa477ff000"))  // rounds to infinity in half
    #expect(try encoder.encode(0x1p-25) == bytes(hex: "fa33000000"))  // below half's smallest
    #expect(try encoder.encode(3 * 0x1p-24) == bytes(hex: "f90003"))  // a half subnormal
  }

  #if !(os(macOS) && arch(x86_64))
    /// Every half-precision value encodes in three bytes with its own bits; NaNs become
    /// the canonical NaN.
    @Test func everyHalfPrecisionValueEncodesAsHalf() throws {
      let encoder = CBOREncoder()
      for bits in UInt16.min...UInt16.max {
        let half = Float16(bitPattern: bits)
        let expected: [UInt8] =
          half.isNaN ? [0xf9, 0x7e, 0x00] : [0xf9, UInt8(bits >> 8), UInt8(bits & 0xff)]
        let encoded = try encoder.encode(Double(half))
        if encoded != expected {
          Issue.record("half 0x\(String(bits, radix: 16)) (\(half)) encoded as \(hex(encoded))")
          return
        }
      }
    }
  #endif

  /// Any bit pattern (subnormals, infinities and NaNs included) survives the trip, except
  /// that every NaN becomes the canonical one.
  @Test func randomFloatsKeepTheirBits() async throws {
    await propertyCheck(input: Gen.uint64().map { Double(bitPattern: $0) }) { value in
      let encoded = try CBOREncoder().encode(value)
      let decoded = try CBORDecoder().decode(Double.self, from: encoded)
      if value.isNaN {
        #expect(encoded == [0xf9, 0x7e, 0x00] && decoded.isNaN)
      } else {
        #expect(decoded.bitPattern == value.bitPattern)
        #expect(encoded.count <= (Double(Float(value)) == value ? 5 : 9))
      }
    }
    await propertyCheck(input: Gen.uint32().map { Float(bitPattern: $0) }) { value in
      let encoded = try CBOREncoder().encode(value)
      let decoded = try CBORDecoder().decode(Float.self, from: encoded)
      #expect(encoded.count <= 5)
      #expect(value.isNaN ? decoded.isNaN : decoded.bitPattern == value.bitPattern)
    }
  }

  // MARK: Enums and the JSON that users see

  @Test func enumCasesEncodeAsSwiftSynthesizesThem() throws {
    let encoder = CBOREncoder()
    #expect(hex(try encoder.encode(Action.increment)) == "a169696e6372656d656e74a0")
    #expect(
      hex(try encoder.encode(Action.move(from: 1, to: 2))) == "a1646d6f7665a26466726f6d0162746f02")
    let transaction = try CBORValue(decoding: encoder.encode(Action.sampleTransaction))
    #expect(
      transaction.jsonText
        == #"{"addTransaction":{"iban":"DE89370400440532013000","amount":12345,"beneficiary":"Jane Doe","date":1718000000.25}}"#
    )
    let sorted = try CBORValue(
      decoding: CBOREncoder(deterministic: true).encode(Action.sampleTransaction))
    #expect(
      sorted.jsonText
        == #"{"addTransaction":{"date":1718000000.25,"iban":"DE89370400440532013000","amount":12345,"beneficiary":"Jane Doe"}}"#
    )
  }

  static let jsonActions: [Action] = [
    .increment, .sampleTransaction, .move(from: 1, to: -2),
    .addTransaction(
      iban: "", amount: .min, beneficiary: "Zo\u{eb} \"Z\" \\ / \n\t\u{1}", date: -0.5),
    .addTransaction(iban: "x", amount: .max, beneficiary: "\u{1f600}", date: 1e300),
  ]

  /// CBOR → CBORValue → JSON gives what JSONEncoder writes for the same value: the CBOR
  /// mapping and the JSON mapping of `Codable` agree.
  @Test(arguments: jsonActions)
  func jsonOfTheEncodingMatchesJSONEncoder(action: Action) throws {
    let json = JSONEncoder()
    json.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let expected = String(decoding: try json.encode(action), as: UTF8.self)
    for deterministic in [true, false] {
      let value = try CBORValue(decoding: CBOREncoder(deterministic: deterministic).encode(action))
      #expect(value.jsonText(sortingKeys: true) == expected)
    }
  }

  @Test func jsonOfANestedStateMatchesJSONEncoder() async throws {
    await propertyCheck(count: 50, input: Generators.account) { account in
      var account = account
      account.checksum = Data()  // JSONEncoder writes Data as base64, not base64url
      // `jsonText` spells a Float with Double's digits (0.1 as 0.10000000149011612).
      account.ratio = 1.25
      let json = JSONEncoder()
      json.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      let expected = String(decoding: try json.encode(account), as: UTF8.self)
      let value = try CBORValue(decoding: CBOREncoder(deterministic: true).encode(account))
      #expect(value.jsonText(sortingKeys: true) == expected)
      #expect(try JSONDecoder().decode(Account.self, from: Data(value.jsonText.utf8)) == account)
    }
  }

  // MARK: Deterministic mode

  @Test func dictionariesEncodeIdenticallyWhateverTheInsertionOrder() async throws {
    let pairs = zip(Generators.text, Gen.int()).array(of: 0...40)
    await propertyCheck(input: pairs) { pairs in
      var forward: [String: Int] = [:]
      for (key, value) in pairs { forward[key] = value }
      // Same content, different capacity and insertion order: a different iteration order.
      var backward = [String: Int](minimumCapacity: 256)
      for (key, value) in Array(forward).reversed() { backward[key] = value }

      let encoder = CBOREncoder(deterministic: true)
      let encoded = try encoder.encode(forward)
      #expect(try encoder.encode(backward) == encoded)

      // The order is RFC 8949 §4.2.1's: by the bytes of the encoded keys.
      let expected = CBORValue.map(
        forward.map {
          CBORValue.Pair(.textString($0.key), CBORValue(integerLiteral: Int64($0.value)))
        }
        .sorted { $0.key.encoded().lexicographicallyPrecedes($1.key.encoded()) })
      #expect(encoded == expected.encoded())
    }
  }

  @Test func deterministicModeSortsNestedMapsShorterKeysFirst() throws {
    struct Keys: Encodable { var bb = 1, a = 2, aaa = 3, b = ["z": 1, "y": 2] }
    let value = try CBORValue(decoding: CBOREncoder(deterministic: true).encode(Keys()))
    #expect(value.description == #"{"a": 2, "b": {"y": 2, "z": 1}, "bb": 1, "aaa": 3}"#)
    let unsorted = try CBORValue(decoding: CBOREncoder().encode(Keys()))
    #expect(unsorted.mapValue?.map(\.key) == ["bb", "a", "aaa", "b"])
  }

  /// Sets and dictionaries with non-String keys encode as arrays in hash order, which
  /// changes from process to process; deterministic mode sorts them.
  @Test func deterministicModeSortsSetsAndDictionaryPairs() async throws {
    let encoder = CBOREncoder(deterministic: true)
    #expect(hex(try encoder.encode(Set([300, 2, -1, 10]))) == "84020a19012c20")
    struct Point: Codable, Hashable { var x: Int }
    let byPoint: [Point: String] = [Point(x: 2): "b", Point(x: 1): "a"]
    #expect(try CBORValue(decoding: encoder.encode(byPoint)) == [["x": 1], "a", ["x": 2], "b"])
    struct Holder: Codable, Equatable {
      var tags: Set<String>
      var flags: [Bool: Int8]
    }

    await propertyCheck(input: Generators.text.array(of: 0...30)) { words in
      let forward = Set(words)
      var other = Set<String>(minimumCapacity: 300)
      for word in words.reversed() { other.insert(word) }
      let flags: [Bool: Int8] = [true: 1, false: 0]
      var otherFlags = [Bool: Int8](minimumCapacity: 64)
      otherFlags[false] = 0
      otherFlags[true] = 1
      let first = try encoder.encode(Holder(tags: forward, flags: flags))
      let second = try encoder.encode(Holder(tags: other, flags: otherFlags))
      #expect(first == second)
      #expect(
        try CBORDecoder().decode(Holder.self, from: first) == Holder(tags: forward, flags: flags))
      let elements = try CBORValue(decoding: first)["tags"]?.arrayValue ?? []
      #expect(
        elements.map { $0.encoded() }
          == elements.map { $0.encoded() }.sorted { $0.lexicographicallyPrecedes($1) })
    }
  }

  @Test func deterministicModeRejectsDuplicateKeys() throws {
    struct Duplicate: Encodable {
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(1, forKey: .b)
        try container.encode(2, forKey: .a)
        try container.encode(3, forKey: .b)
      }
    }
    #expect(throws: EncodingError.self) { try CBOREncoder(deterministic: true).encode(Duplicate()) }
    #expect(
      try CBORValue(decoding: CBOREncoder().encode(Duplicate()))
        == .map([.init("b", 1), .init("a", 2), .init("b", 3)]))
  }

  // MARK: The hand-written writer

  /// `CBORWriter` copies text of up to 32 bytes with overlapping loads and stores rather
  /// than `memcpy`: every length on each side of those branches (0, 1-3, 4-7, 8-16, 17-32, longer)
  /// must come out byte for byte as the `Codable` encoder writes it, after other bytes too.
  @Test(arguments: [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 18, 23, 24, 31, 32, 33, 40, 300])
  func theWriterCopiesTextOfEveryLengthExactly(length: Int) throws {
    let text = String((0..<length).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
    let accented = String(text.dropLast(min(2, length))) + (length >= 2 ? "é" : "")
    var writer = CBORWriter(capacity: 1)
    writer.write(7)
    writer.write(text)
    writer.write(accented)
    writer.write(text)
    let expected =
      try CBOREncoder().encode(7) + CBOREncoder().encode(text) + CBOREncoder().encode(accented)
      + CBOREncoder().encode(text)
    #expect(writer.bytes == expected)
    #expect(writer.byteCount == expected.count)
  }

  // MARK: Containers

  @Test(arguments: [0, 1, 23, 24, 255, 256, 65535, 65536])
  func headersGrowWhenAContainerCloses(count: Int) throws {
    let numbers = (0..<count).map { $0 % 30 }
    let expectedArray = CBORValue.array(numbers.map { .unsigned(UInt64($0)) })
    let nested = [[1], numbers, [2]]
    #expect(
      try CBOREncoder().encode(nested) == CBORValue.array([[1], expectedArray, [2]]).encoded())

    let dictionary = Dictionary(uniqueKeysWithValues: numbers.indices.map { ("k\($0)", $0) })
    let encoded = try CBOREncoder(deterministic: true).encode(["outer": dictionary])
    let decoded = try CBORDecoder().decode([String: [String: Int]].self, from: encoded)
    #expect(decoded == ["outer": dictionary])
    #expect(try CBORValue(decoding: encoded)["outer"]?.mapValue?.count == count)
  }

  @Test func nestedAndReusedContainers() throws {
    struct Shapes: Encodable {
      func encode(to encoder: any Encoder) throws {
        var first = encoder.container(keyedBy: Key.self)
        try first.encode(1, forKey: .a)
        var list = first.nestedUnkeyedContainer(forKey: .b)
        try list.encode(true)
        var inner = list.nestedContainer(keyedBy: Key.self)
        try inner.encodeNil(forKey: .x)
        try list.encode("after")
        var again = encoder.container(keyedBy: Key.self)  // the same map, as JSONEncoder allows
        try again.encode(Data([7]), forKey: .c)
      }
    }
    let value = try CBORValue(decoding: CBOREncoder().encode(Shapes()))
    #expect(value == ["a": 1, "b": [true, ["x": nil], "after"], "c": .byteString([7])])
  }

  @Test func superEncoderWritesTheSuperclassUnderSuper() throws {
    let value = try CBORValue(decoding: CBOREncoder().encode(Derived()))
    #expect(value == ["y": 2, "super": ["x": 1], "empty": [:], "list": [["x": 1]]])
  }

  /// The encoder reads coding paths back from its output; they must match what
  /// JSONEncoder would report.
  @Test func errorsCarryTheCodingPath() throws {
    struct Failing: Encodable {
      func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
          0, .init(codingPath: encoder.codingPath, debugDescription: "path"))
      }
    }
    struct Inner: Encodable {
      var x = 1
      var bad: [String: Failing] = ["k": Failing()]
    }
    struct Outer: Encodable {
      var a = 1
      var list = [Inner(), Inner()]
    }
    for encoder in [CBOREncoder(), CBOREncoder(deterministic: true)] {
      do {
        _ = try encoder.encode(Outer())
        Issue.record("expected an error")
      } catch EncodingError.invalidValue(_, let context) {
        #expect(context.codingPath.map(\.stringValue) == ["list", "Index 0", "bad", "k"])
      }
    }

    struct Nested: Encodable {
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(1, forKey: .a)
        var list = container.nestedUnkeyedContainer(forKey: .b)
        try list.encode(2)
        var inner = list.nestedContainer(keyedBy: Key.self)
        #expect(inner.codingPath.map(\.stringValue) == ["top", "b", "Index 1"])
        try inner.encode(Failing(), forKey: .c)
      }
    }
    #expect {
      try CBOREncoder().encode(["top": Nested()])
    } throws: { error in
      guard case EncodingError.invalidValue(_, let context) = error else { return false }
      return context.codingPath.map(\.stringValue) == ["top", "b", "Index 1", "c"]
    }
  }

  @Test func aValueThatEncodesNothing() throws {
    struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
    #expect(throws: EncodingError.self) { try CBOREncoder().encode(Nothing()) }
    #expect(try CBOREncoder().encode([Nothing()]) == [0x81, 0xa0])
  }

  @Test func writingToAFinishedContainerThrows() throws {
    struct Interleaved: Encodable {
      func encode(to encoder: any Encoder) throws {
        var outer = encoder.container(keyedBy: Key.self)
        var first = outer.nestedUnkeyedContainer(forKey: .a)
        try outer.encode(1, forKey: .b)
        try first.encode(2)  // its parent has moved on
      }
    }
    #expect(throws: EncodingError.self) { try CBOREncoder().encode(Interleaved()) }

    struct UsesParentInsideChild: Encodable {
      struct Child: Encodable {
        let parent: KeyedEncodingContainer<Key>
        func encode(to encoder: any Encoder) throws {
          var parent = parent
          try parent.encode(1, forKey: .x)
        }
      }
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(Child(parent: container), forKey: .a)
      }
    }
    #expect(throws: EncodingError.self) { try CBOREncoder().encode(UsesParentInsideChild()) }
  }

  /// The encoder's frames live on the top-level call's stack; a container kept beyond the
  /// call must fail cleanly, not touch that memory.
  @Test func aContainerKeptBeyondTheCallThrows() throws {
    final class Stash { var container: KeyedEncodingContainer<Key>? }
    struct Escaping: Encodable {
      let stash: Stash
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(1, forKey: .a)
        stash.container = container
      }
    }
    let stash = Stash()
    #expect(try CBOREncoder().encode(Escaping(stash: stash)) == bytes(hex: "a1616101"))
    var kept = try #require(stash.container)
    #expect(throws: EncodingError.self) { try kept.encode(2, forKey: .b) }
    var nested = kept.nestedContainer(keyedBy: Key.self, forKey: .c)
    #expect(throws: EncodingError.self) { try nested.encode(3, forKey: .x) }
    _ = kept.superEncoder().container(keyedBy: Key.self)
  }

  @Test func nestingIsLimitedToWhatTheDecoderAccepts() throws {
    struct Deep: Encodable {
      let depth: Int
      func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if depth > 0 { try container.encode(Deep(depth: depth - 1)) }
      }
    }
    let deepest = try CBOREncoder().encode(Deep(depth: 255))  // 256 nested arrays
    #expect(deepest.count == 256)
    #expect(try CBORValue(decoding: deepest).encoded() == deepest)
    #expect(throws: EncodingError.self) { try CBOREncoder().encode(Deep(depth: 256)) }
  }

  // MARK: Buffers

  @Test func appendsToABufferAndLeavesItAloneOnError() throws {
    struct Failing: Encodable {
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode("partial", forKey: .a)
        throw CancellationError()
      }
    }
    let encoder = CBOREncoder()
    var buffer: [UInt8] = [0xaa]
    try encoder.encode(1, appendingTo: &buffer)
    try encoder.encode(["a"], appendingTo: &buffer)
    #expect(buffer == [0xaa, 0x01, 0x81, 0x61, 0x61])
    #expect(throws: CancellationError.self) { try encoder.encode(Failing(), appendingTo: &buffer) }
    #expect(buffer == [0xaa, 0x01, 0x81, 0x61, 0x61])

    buffer.removeAll(keepingCapacity: true)
    buffer.reserveCapacity(4096)
    let storage = buffer.withUnsafeBufferPointer { $0.baseAddress }
    for _ in 0..<20 { try encoder.encode(Action.sampleTransaction, appendingTo: &buffer) }
    #expect(buffer.withUnsafeBufferPointer { $0.baseAddress } == storage)
    #expect(buffer.count == 20 * (try encoder.encode(Action.sampleTransaction)).count)
  }

  @Test func dataIsAByteStringAndByteArraysAreArrays() throws {
    #expect(try CBOREncoder().encode(Data([1, 2])) == [0x42, 0x01, 0x02])
    #expect(try CBOREncoder().encode([UInt8]([1, 2])) == [0x82, 0x01, 0x02])
    struct Blob: Encodable { var data = Data([0xff]) }
    #expect(try CBOREncoder().encode(Blob()) == bytes(hex: "a1646461746141ff"))
  }
}

private class Base: Encodable {
  var x = 1
  enum CodingKeys: String, CodingKey { case x }
}

private final class Derived: Base {
  var y = 2
  enum Keys: String, CodingKey { case y, empty, list }

  override func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(y, forKey: .y)
    try super.encode(to: container.superEncoder())
    _ = container.superEncoder(forKey: .empty)
    var list = container.nestedUnkeyedContainer(forKey: .list)
    try super.encode(to: list.superEncoder())
  }
}
