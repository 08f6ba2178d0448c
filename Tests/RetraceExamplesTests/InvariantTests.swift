import IdentifiedCollections
import Retrace
import Testing

@testable import RetraceExamples

@Suite struct InvariantTests {
  func account(_ iban: String, _ amounts: [Int], balance: Int? = nil) -> Account {
    Account(
      name: iban, iban: iban, kind: .checking,
      transactions: amounts.enumerated().map {
        Transaction(
          amount: $0.element, beneficiary: $0.offset == 0 ? "Initial Balance" : "x",
          date: Double($0.offset))
      },
      balance: balance ?? amounts.reduce(0, +))
  }

  func holds(_ name: String, _ state: BankingState) -> Bool {
    bankingDomain.invariant(named: name)!.holds(state)
  }

  @Test func aHealthyStateObeysEveryInvariant() {
    let state = BankingState(accounts: [account("A", [200_000, -5]), account("B", [200_000])])
    for invariant in bankingDomain.invariants {
      #expect(invariant.holds(state), "\(invariant.name)")
    }
  }

  @Test func balanceMatchesTransactionsCatchesADriftedBalance() {
    #expect(
      !holds(
        "balance-matches-transactions",
        BankingState(accounts: [account("A", [200_000, -5], balance: 200_000)])))
  }

  @Test func nonNegativeBalanceCatchesAnOverdraft() {
    #expect(
      !holds("non-negative-balance", BankingState(accounts: [account("A", [200_000, -200_001])])))
  }

  @Test func uniqueIBANCatchesTheSameIBANWrittenDifferently() {
    let state = BankingState(accounts: [
      account("NL91ABNA0417164300", [200_000]), account("nl91 abna 0417 1643 00", [200_000]),
    ])
    #expect(!holds("unique-iban", state))
    // Both already in normal form (the path that makes no new strings), and non-ASCII.
    #expect(
      holds(
        "unique-iban",
        BankingState(accounts: [
          account("NL91ABNA0417164300", [200_000]), account("NL91ABNA0417164301", [200_000]),
        ])))
    #expect(
      !holds(
        "unique-iban",
        BankingState(accounts: [
          account("DE89370400440532013000", [200_000]),
          account("de89370400440532013000", [200_000]),
        ])))
    #expect(
      !holds(
        "unique-iban",
        BankingState(accounts: [account("ÉX1", [200_000]), account("éx 1", [200_000])])))
  }

  @Test func openingDepositCatchesAMissingDeposit() {
    #expect(!holds("opening-deposit", BankingState(accounts: [account("A", [100])])))
    #expect(!holds("opening-deposit", BankingState(accounts: [account("A", [])])))
  }

  @Test func counterNonNegativeCatchesANegativeCount() {
    let invariant = counterDomain.invariant(named: "non-negative")!
    #expect(invariant.holds(CounterState(count: 0)))
    #expect(!invariant.holds(CounterState(count: -1)))
  }
}
