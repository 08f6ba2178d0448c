import Foundation
import PropertyBased
import Testing

@testable import RetraceCBOR

struct StateHashTests {
  struct DayNight: Codable, Equatable {
    var count: Int
    var name: String
    var history: [Int]
    var ratio: Double
    var flags: [String: Bool]
  }

  static let state = DayNight(
    count: 3, name: "day", history: [1, -2, 300], ratio: 0.5, flags: ["night": false, "day": true])

  /// The deterministic CBOR of ``state``, as Python's cbor2 writes it:
  /// `cbor2.dumps({"count": 3, "name": "day", "history": [1, -2, 300], "ratio": 0.5,
  /// "flags": {"night": False, "day": True}}, canonical=True)`.
  static let stateCBOR = bytes(
    hex: "a5 646e616d65 63646179 65636f756e74 03 65666c616773 a2 63646179 f5 656e69676874 f4"
      + " 65726174696f f93800 67686973746f7279 83 01 21 19012c")

  /// `xxhash.xxh64(cbor2.dumps(value, canonical=True)).hexdigest()` for the value above,
  /// computed with Python's xxhash 4.1 and cbor2.
  static let stateHash: UInt64 = 0x5980_ef00_7fcd_aa29

  @Test func hashOfAFixedStateIsAFixedConstant() throws {
    let hash = try StateHash(of: Self.state)
    #expect(hash == StateHash(rawValue: Self.stateHash))
    #expect(hash.description == "5980ef007fcdaa29")
  }

  @Test func hashIsXXH64OfTheDeterministicEncoding() throws {
    #expect(try CBOREncoder(deterministic: true).encode(Self.state) == Self.stateCBOR)
    #expect(XXH64.hash(Self.stateCBOR, seed: 0) == Self.stateHash)
  }

  @Test func anotherStateMatchesPython() throws {
    // cbor2.dumps({"a": 1.1, "list": [{"x": "é"}, {}], "big": 2**64 - 1, "neg": -2**63}, canonical=True)
    struct Other: Encodable {
      struct X: Encodable { var x: String? }
      var list = [X(x: "\u{e9}"), X(x: nil)]
      var neg = Int64.min
      var big = UInt64.max
      var a = 1.1
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(list, forKey: .list)
        try container.encode(neg, forKey: .neg)
        try container.encode(big, forKey: .big)
        try container.encode(a, forKey: .a)
      }
      enum CodingKeys: CodingKey { case list, neg, big, a }
    }
    #expect(
      hex(try CBOREncoder(deterministic: true).encode(Other()))
        == "a46161fb3ff199999999999a636269671bffffffffffffffff636e65673b7fffffffffffffff646c69737482a1617862c3a9a0"
    )
    #expect(try StateHash(of: Other()).description == "fe51c5abf7801fce")
  }

  @Test func keyOrderDoesNotMatter() async throws {
    await propertyCheck(input: zip(Generators.text, Gen.int()).array(of: 0...30)) { pairs in
      let forward = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
      var other = [String: Int](minimumCapacity: 512)
      for (key, value) in Array(forward).reversed() { other[key] = value }
      let first = try StateHash(of: forward)
      let second = try StateHash(of: other)
      #expect(first == second)
    }
  }

  @Test func differentStatesHashDifferently() throws {
    var changed = Self.state
    changed.history.append(0)
    #expect(try StateHash(of: changed) != StateHash(of: Self.state))
    var renamed = Self.state
    renamed.flags = ["Night": false, "day": true]
    #expect(try StateHash(of: renamed) != StateHash(of: Self.state))
  }

  @Test(arguments: [
    (UInt64(0), "0000000000000000"), (1, "0000000000000001"), (0xabc, "0000000000000abc"),
    (.max, "ffffffffffffffff"),
  ])
  func descriptionIsSixteenLowercaseHexDigits(rawValue: UInt64, text: String) {
    #expect(StateHash(rawValue: rawValue).description == text)
  }

  @Test func codableAsAnUnsignedInteger() throws {
    let hash = StateHash(rawValue: Self.stateHash)
    let encoded = try CBOREncoder().encode(hash)
    #expect(hex(encoded) == "1b5980ef007fcdaa29")
    #expect(try CBORDecoder().decode(StateHash.self, from: encoded) == hash)
  }
}
