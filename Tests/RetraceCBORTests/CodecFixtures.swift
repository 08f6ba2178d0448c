import Foundation
import PropertyBased
import RetraceCBOR

/// An action type shaped like the banking and counter examples: a case without payload,
/// one with labelled values, one with small integers.
enum Action: Codable, Equatable, Hashable, Sendable {
  case increment
  case addTransaction(iban: String, amount: Int, beneficiary: String, date: Double)
  case move(from: Int, to: Int)
}

extension Action {
  static let sampleTransaction = Action.addTransaction(
    iban: "DE89370400440532013000", amount: 12_345, beneficiary: "Jane Doe", date: 1_718_000_000.25)
}

/// A nested state with every shape the codec maps: structs, enums with and without raw
/// values, optionals, arrays, dictionaries with `String` and `Int` keys, `Data`, floats
/// and integers of several widths.
struct Account: Codable, Equatable, Sendable {
  enum Kind: String, Codable, Sendable { case checking, savings, investment }

  var name: String
  var iban: String
  var kind: Kind
  var balance: Int64
  var overdraft: Int?
  var tags: [String]
  var limits: [String: Double]
  var notes: [Int: String]
  var lastAction: Action?
  var history: [Action]
  var matrix: [[UInt16]]
  var ratio: Float
  var checksum: Data
  var tiny: Int8
  var huge: UInt64
}

/// Generators for property tests.
enum Generators {
  /// Text with any Unicode scalar, surrogates excluded.
  static let text = Gen<Character>.oneOf(
    Gen.character(in: "\u{0}"..."\u{7f}"),
    Gen.character(in: "\u{80}"..."\u{d7ff}"),
    Gen.character(in: "\u{e000}"..."\u{10ffff}")
  ).array(of: 0...12).map { String($0) }

  static let finiteDouble = Gen.double(in: -1e300...1e300)

  static let action = Gen<Action>.oneOf(
    Gen.always(Action.increment),
    zip(text, Gen.int(), text, finiteDouble).map { iban, amount, beneficiary, date in
      Action.addTransaction(iban: iban, amount: amount, beneficiary: beneficiary, date: date)
    },
    zip(Gen.int(in: -30...30), Gen.int()).map { from, to in Action.move(from: from, to: to) }
  )

  static let account = zip(
    zip(
      text, Gen.letterOrNumber.string(of: 0...34),
      Gen<Account.Kind?>.element(of: [Account.Kind.checking, .savings, .investment]), Gen.int64()),
    zip(
      Gen.int().optional, text.array(of: 0...4), zip(text, finiteDouble).dictionary(ofAtMost: 0...4)
    ),
    zip(zip(Gen.int(), text).dictionary(ofAtMost: 0...3), action.optional, action.array(of: 0...5)),
    zip(
      Gen.uint16().array(of: 0...3).array(of: 0...3), Gen.float(in: -1e30...1e30),
      Gen.uint8().array(of: 0...20)),
    zip(Gen.int8(), Gen.uint64())
  ).map { a, b, c, d, e in
    Account(
      name: a.0, iban: a.1, kind: a.2 ?? .checking, balance: a.3,
      overdraft: b.0, tags: b.1, limits: b.2,
      notes: c.0, lastAction: c.1, history: c.2,
      matrix: d.0, ratio: d.1, checksum: Data(d.2),
      tiny: e.0, huge: e.1)
  }
}
