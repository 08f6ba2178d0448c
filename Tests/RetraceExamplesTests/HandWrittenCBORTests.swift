import IdentifiedCollections
import PropertyBased
import Retrace
import RetraceCoordinator
import RetraceExamples
import Testing

/// The contract of a hand-written CBOR conformance (`CBOREncodable`, `CBORDecodable`):
/// the same bytes as `Codable` in deterministic mode, and the same values back, from its
/// own bytes and from `Codable`'s declaration-order bytes.
@Suite struct HandWrittenCBORTests {
  static let codable = CBOREncoder(deterministic: true, usesHandWrittenCode: false)
  static let codableDefault = CBOREncoder(deterministic: false, usesHandWrittenCode: false)
  static let fast = CBOREncoder()

  func checkContract<T: CBOREncodable & CBORDecodable & Equatable>(_ value: T) throws {
    let expected = try Self.codable.encode(value)
    let written = try Self.fast.encode(value)
    #expect(written == expected, "\(value)")
    #expect(try CBORDecoder().decode(T.self, from: written) == value)
    // Declaration order, as another writer (or an older Retrace) may have written it.
    #expect(try CBORDecoder().decode(T.self, from: Self.codableDefault.encode(value)) == value)
  }

  @Test func bankingSessionsEncodeAsCodableDoes() async throws {
    await propertyCheck(count: 15, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 0...600)) {
      seed, count in
      var random = SeededRandom(seed: seed)
      var state = bankingDomain.initialState
      for step in 0..<count {
        let action = bankingDomain.workload!.next(state, step, &random)
        do { try checkContract(action) } catch { Issue.record(error) }
        _ = bankingDomain.reduce(into: &state, action: action)
      }
      do { try checkContract(state) } catch { Issue.record(error) }
    }
  }

  @Test(arguments: [
    BankingAction.addTransaction(iban: "", amount: .min, beneficiary: "Zoë 🏦 Ñandú", date: -0.0),
    .addTransaction(
      iban: "NL91ABNA0417164300", amount: .max, beneficiary: String(repeating: "x", count: 300),
      date: 1e300),
    .addAccount(name: "", kind: .investment, iban: "X", date: .infinity),
    .moveAccount(from: -1, to: 1 << 40),
    .navigation(action: .push(route: .account(iban: "NL91"))),
    .navigation(action: .present(route: .newTransaction(iban: "NL91"), style: .sheet)),
    .navigation(action: .present(route: .newAccount, style: .fullScreen)),
    .navigation(action: .push(route: .accounts)),
    .navigation(action: .pop),
    .navigation(action: .popTo(route: .accounts)),
    .navigation(action: .popToRoot),
    .navigation(action: .dismiss),
    .navigation(action: .selectTab(tab: "")),
    .navigation(
      action: .setPath(
        path: RoutePath(
          tab: "main", stack: [.accounts, .account(iban: "NL91")],
          presentations: [Presentation(style: .sheet, stack: [.newTransaction(iban: "NL91")])]))),
    .navigation(action: .setPath(path: RoutePath(stack: []))),
  ])
  func edgeCaseActionsEncodeAsCodableDoes(action: BankingAction) throws {
    try checkContract(action)
  }

  @Test func counterEncodesAsCodableDoes() throws {
    for action in CounterAction.allCases { try checkContract(action) }
    for count in [0, 1, -1, 23, 24, -25, 1 << 33, .min, .max] {
      try checkContract(CounterState(count: count))
    }
  }

  /// Input the hand-written decoder does not take falls back to `Decodable`, which
  /// accepts it or reports it.
  @Test func decodingFallsBackToCodable() throws {
    // An integer where the transaction's date (a Double) is expected: Codable takes it.
    let integerDate: CBORValue = [
      "addTransaction": ["iban": "A", "amount": 5, "beneficiary": "b", "date": 7]
    ]
    #expect(
      try CBORDecoder().decode(BankingAction.self, from: integerDate.encoded())
        == .addTransaction(iban: "A", amount: 5, beneficiary: "b", date: 7))
    // A missing field: both paths refuse it, with Codable's message.
    let missing: CBORValue = ["addTransaction": ["iban": "A", "amount": 5]]
    #expect(throws: DecodingError.self) {
      try CBORDecoder().decode(BankingAction.self, from: missing.encoded())
    }
    // An unknown case.
    let unknown: CBORValue = ["closeAccount": ["iban": "A"]]
    #expect(throws: DecodingError.self) {
      try CBORDecoder().decode(BankingAction.self, from: unknown.encoded())
    }
    // Duplicate account IBANs are refused, as IdentifiedArray's Decodable refuses them.
    let account = Account(name: "a", iban: "A", kind: .savings, transactions: [], balance: 0)
    let twice = try CBOREncoder().encode([account, account])
    #expect(throws: DecodingError.self) {
      try CBORDecoder().decode(IdentifiedArrayOf<Account>.self, from: twice)
    }
  }

  @Test func unknownKeysAreSkipped() throws {
    let extra: CBORValue = ["moveAccount": ["from": 1, "to": 2, "note": ["x": [1, 2, 3]]]]
    #expect(
      try CBORDecoder().decode(BankingAction.self, from: extra.encoded())
        == .moveAccount(from: 1, to: 2))
  }
}
