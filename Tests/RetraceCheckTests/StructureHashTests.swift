import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceCheck

/// The default fingerprint: a hash of what `encode(to:)` writes. Equal encodings must hash
/// equal, whatever order a dictionary's entries come in; different encodings must not.
@Suite struct StructureHashTests {
  struct Pair: Codable, Hashable { var a: Int, b: Int }
  struct Optionals: Codable { var a: Int?, b: Int? }
  struct Named: Codable { var first: String, second: String }
  struct Kinds: Codable { var value: Kind }
  enum Kind: Codable {
    case int(Int)
    case bool(Bool)
    case text(String)
    case none
  }

  @Test func equalValuesHashEqualAndAreDeterministic() throws {
    let state = RegistrationState(
      form: RegistrationForm(firstName: "Ada", username: "ada"),
      brokenRules: RegistrationForm(firstName: "Ada").brokenRules, status: .submitting)
    let copy = state
    #expect(try StructureHash.of(state) == StructureHash.of(copy))
    // A fixed seed: the same value has the same hash in every process.
    #expect(try StructureHash.of(Pair(a: 1, b: 2)) == StructureHash.of(Pair(a: 1, b: 2)))
  }

  @Test func aDictionaryHashesTheSameInAnyOrder() throws {
    let fresh = Dictionary(uniqueKeysWithValues: (0..<20).map { ("key\($0)", $0) })
    // The premise: an equal dictionary whose entries come in another order. The order
    // depends on the table's size and the process's hash seed: a larger table gives another
    // one, nearly always at the first size tried.
    var grown = fresh
    for capacity in (6...16).map({ 1 << $0 }) where Array(grown.keys) == Array(fresh.keys) {
      grown = [:]
      grown.reserveCapacity(capacity)
      for (key, value) in fresh { grown[key] = value }
    }
    #expect(grown == fresh)
    try #require(Array(grown.keys) != Array(fresh.keys))
    #expect(try StructureHash.of(grown) == StructureHash.of(fresh))
    var changed = fresh
    changed["key1"] = 5
    #expect(try StructureHash.of(changed) != StructureHash.of(fresh))
    // Keys that are different strings and the same number (a dictionary's coding key gives
    // both the `intValue` 1) are told apart, as the encoding tells them.
    #expect(try StructureHash.of(["1": 1, "01": 2]) != StructureHash.of(["1": 2, "01": 1]))
    #expect(try StructureHash.of([1: "a", 2: "b"]) != StructureHash.of([1: "b", 2: "a"]))
  }

  @Test func valuesThatEncodeDifferentlyHashApart() throws {
    // Swapped fields, reordered and regrouped arrays.
    #expect(try StructureHash.of(Pair(a: 1, b: 2)) != StructureHash.of(Pair(a: 2, b: 1)))
    #expect(try StructureHash.of([1, 2]) != StructureHash.of([2, 1]))
    #expect(try StructureHash.of(["ab"]) != StructureHash.of(["a", "b"]))
    #expect(
      try StructureHash.of(Named(first: "ab", second: ""))
        != StructureHash.of(Named(first: "a", second: "b")))
    // An empty container is still there.
    #expect(try StructureHash.of([[Int]]()) != StructureHash.of([[Int]()]))
    #expect(try StructureHash.of([[Int]()]) != StructureHash.of([[Int](), []]))
    // A missing key, `nil` and zero.
    #expect(
      try StructureHash.of(Optionals(a: nil, b: nil)) != StructureHash.of(Optionals(a: 0, b: nil)))
    #expect(
      try StructureHash.of(Optionals(a: 1, b: nil)) != StructureHash.of(Optionals(a: nil, b: 1)))
    #expect(try StructureHash.of([Int?.none]) != StructureHash.of([Int?.some(0)]))
    // The same bits as different kinds.
    let kinds = try [Kind.int(0), .bool(false), .text(""), .none, .int(1), .bool(true)].map {
      try StructureHash.of(Kinds(value: $0))
    }
    #expect(Set(kinds).count == kinds.count)
    // Strings that share a prefix, differ in the last byte, or in length only.
    let strings = [
      "", "a", "b", "ab", "abcdefgh", "abcdefgi", "abcdefghi", "abcdefgh\0", "é", "e\u{301}",
    ]
    #expect(Set(try strings.map { try StructureHash.of($0) }).count == strings.count)
    // Floats by their bits: -0 and 0 differ, as their encodings do.
    #expect(try StructureHash.of(0.0) != StructureHash.of(-0.0))
    #expect(try StructureHash.of(Float(1)) != StructureHash.of(Double(1)))
  }

  @Test func integersOfEveryWidthAndTheirEdges() throws {
    let values: [UInt64] = try [
      StructureHash.of(Int.min), StructureHash.of(Int.max), StructureHash.of(-1),
      StructureHash.of(UInt64.max), StructureHash.of(Int128.max), StructureHash.of(Int128.min),
      StructureHash.of(UInt128.max), StructureHash.of(Int128(1) << 64), StructureHash.of(0),
    ]
    #expect(Set(values).count == values.count)
    #expect(try StructureHash.of(Int128(5)) != StructureHash.of(Int128(5) << 64))
  }

  struct Silent: Codable, Hashable {
    func encode(to encoder: any Encoder) throws {}
    init() {}
    init(from decoder: any Decoder) throws {}
  }
  enum Color: String, Codable, CaseIterable { case red, green, blue, cyan, magenta, yellow }
  indirect enum Chain: Codable {
    case end
    case link(Chain)
  }

  @Test func aSetOrADictionaryEncodedAsAnArrayHashesTheSameInAnyOrder() throws {
    // Equal sets list their elements in orders of their own (each instance has its own
    // seed): every one hashes the same.
    let sets = (0..<20).map { _ in Set((0..<12).shuffled()) }
    #expect(Set(sets.map { Array($0) }).count > 1)  // the premise: orders differ
    #expect(Set(try sets.map { try StructureHash.of($0) }).count == 1)
    #expect(try StructureHash.of(Set(0..<12)) != StructureHash.of(Set(0..<11)))
    // A dictionary whose keys are not strings or integers encodes as key, value, key, ….
    let dictionaries = (0..<20).map { _ in
      Dictionary(uniqueKeysWithValues: Color.allCases.shuffled().map { ($0, $0.rawValue.count) })
    }
    #expect(Set(try dictionaries.map { try StructureHash.of($0) }).count == 1)
    // Entries stay whole: swapped values, or swapped fields across elements, differ.
    #expect(
      try StructureHash.of([Color.red: 1, .green: 2])
        != StructureHash.of([Color.red: 2, .green: 1]))
    #expect(
      try StructureHash.of(Set([Pair(a: 1, b: 2), Pair(a: 3, b: 4)]))
        != StructureHash.of(Set([Pair(a: 1, b: 4), Pair(a: 3, b: 2)])))
  }

  @Test func aValueThatWritesNothingStillCounts() throws {
    #expect(try StructureHash.of(Silent?.none) != StructureHash.of(Silent?.some(Silent())))
    let lengths = try [[], [Silent()], [Silent(), Silent()]].map { try StructureHash.of($0) }
    #expect(Set(lengths).count == 3)
  }

  @Test func craftedInputsDoNotCollide() throws {
    // Strings whose second 8 bytes cancelled the first under a multiply-fold hash, and bits
    // that made a value's kind vanish: distinct under XXH64.
    let strings = ["~]AAAAAAg{%7&=2!", "IaAAAAAA>WxB%#z/", "S)BAAAAAxmGSv2t/"]
    #expect(Set(try strings.map { try StructureHash.of($0) }).count == 3)
    #expect(
      try StructureHash.of(Kinds(value: .int(589_684_135_938_649_225)))
        != StructureHash.of(Kinds(value: .text("")))
    )
    #expect(
      try StructureHash.of(Int(bitPattern: 0x082E_FA98_EC4E_6C89))
        != StructureHash.of(Double(bitPattern: 0x082E_FA98_EC4E_6C89)))
  }

  @Test func valuesNestedTooDeeplyAreAnErrorNotACrash() throws {
    var chain = Chain.end
    for _ in 0..<1_000 { chain = .link(chain) }
    #expect(throws: EncodingError.self) { try StructureHash.of(chain) }
    var shallow = Chain.end
    for _ in 0..<100 { shallow = .link(shallow) }
    _ = try StructureHash.of(shallow)
  }

  @Test func noTwoOfAMillionSmallStatesCollide() throws {
    // Every pair of values below 1,000 as a two-field struct: 10⁶ distinct encodings that
    // differ in few bits.
    var seen = Set<UInt64>(minimumCapacity: 1_000_000)
    for a in 0..<1_000 {
      for b in 0..<1_000 { seen.insert(try StructureHash.of(Pair(a: a, b: b))) }
    }
    #expect(seen.count == 1_000_000)
  }
}
