import Foundation
import Retrace
import RetraceExamples
import Testing

/// The banking action schema's history: version 1 actions upcast to today's, and the
/// fee-charging variant differs from the banking reducer only by its fees.
@Suite struct BankingSchemaTests {
  let iban = "NL91ABNA0417164300"

  @Test func aVersionOneActionUpcastsToTodaysShape() throws {
    let old: CBORValue = [
      "addTransaction": [
        "iban": .textString(iban), "amount": -250, "payee": "Hema", "date": 1_763_771_100.0,
      ]
    ]
    let upcast = try bankingDomain.upcast(old, fromVersion: 1)
    #expect(
      try upcast.decode(as: BankingAction.self)
        == .addTransaction(iban: iban, amount: -250, beneficiary: "Hema", date: 1_763_771_100))
    // Today's actions pass through unchanged.
    let current = try CBORValue(encoding: BankingAction.moveAccount(from: 1, to: 0))
    #expect(try bankingDomain.upcast(current, fromVersion: 1) == current)
    #expect(try bankingDomain.upcast(upcast, fromVersion: 2) == upcast)
  }

  @Test(arguments: [UInt64(3), 7, 33])
  func theLegacyEncodingIsTheUpcastersInverse(seed: UInt64) throws {
    let (actions, _) = bankingDomain.generate(count: 300, seed: seed)
    for action in actions {
      let legacy = try #require(bankingDomain.legacyEncoding(of: action, schemaVersion: 1))
      let upcast = try bankingDomain.upcast(try CBORValue(encoding: legacy), fromVersion: 1)
      #expect(try upcast.decode(as: BankingAction.self) == action)
    }
    #expect(bankingDomain.legacyEncoding(of: actions[0], schemaVersion: 0) == nil)
    #expect(bankingDomain.actionSchemaVersion == 2)
  }

  @Test func theFeeVariantBooksAFeeWithEveryPaymentOnly() {
    let open = BankingAction.addAccount(
      name: "Daily Expenses", kind: .checking, iban: iban, date: 0)
    let pay = BankingAction.addTransaction(iban: iban, amount: -1_000, beneficiary: "Hema", date: 1)
    let salary = BankingAction.addTransaction(
      iban: iban, amount: 5_000, beneficiary: "Employer B.V.", date: 2)
    var plain = bankingDomain.initialState
    var withFees = bankingWithFeesDomain.initialState
    for action in [open, pay, salary] {
      _ = bankingDomain.reduce(into: &plain, action: action)
      _ = bankingWithFeesDomain.reduce(into: &withFees, action: action)
    }
    #expect(withFees.accounts[id: iban]?.balance == plain.accounts[id: iban]!.balance - 25)
    #expect(
      withFees.accounts[id: iban]?.transactions.map(\.beneficiary) == [
        "Initial Balance", "Hema", "Payment fee", "Employer B.V.",
      ])
    #expect(bankingWithFeesDomain.invariant(named: "balance-matches-transactions")!.holds(withFees))
  }
}
