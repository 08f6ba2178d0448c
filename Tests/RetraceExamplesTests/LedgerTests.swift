import CustomDump
import PropertyBased
import Retrace
import RetraceExamples
import Testing

/// `Ledger` keeps the exact sum of its amounts through every kind of change, and otherwise
/// behaves (encodes, compares, dumps) as the array of transactions it holds.
@Suite struct LedgerTests {
  func transaction(_ amount: Int) -> Transaction {
    Transaction(amount: amount, beneficiary: "x", date: 0)
  }

  func exactSum(_ ledger: Ledger) -> Int128 {
    ledger.reduce(0) { $0 + Int128($1.amount) }
  }

  @Test func theTotalIsTheSumAfterAnySequenceOfChanges() async {
    let amount = Gen.int(in: Int.min...Int.max)
    await propertyCheck(
      count: 200, input: Gen.int(in: 0...5).array(of: 0...40), amount.array(of: 40...40)
    ) {
      operations, amounts in
      var ledger: Ledger = [transaction(amounts[0]), transaction(amounts[1])]
      var mirror = Array(ledger)
      for (step, operation) in operations.enumerated() {
        let value = transaction(amounts[step % amounts.count])
        switch operation {
        case 0:
          ledger.append(value)
          mirror.append(value)
        case 1 where !mirror.isEmpty:
          let index = step % mirror.count
          ledger[index] = value
          mirror[index] = value
        case 2 where !mirror.isEmpty:
          let index = step % mirror.count
          ledger[index].amount &+= 7
          mirror[index].amount &+= 7
        case 3 where !mirror.isEmpty:
          let index = step % mirror.count
          #expect(ledger.remove(at: index) == mirror.remove(at: index))
        case 4:
          let bounds = 0..<min(2, mirror.count)
          ledger.replaceSubrange(bounds, with: [value, value, value])
          mirror.replaceSubrange(bounds, with: [value, value, value])
        case 5 where !mirror.isEmpty:
          ledger.swapAt(0, ledger.count - 1)
          mirror.swapAt(0, mirror.count - 1)
          ledger.sort { $0.amount < $1.amount }
          mirror.sort { $0.amount < $1.amount }
        default:
          ledger.removeAll()
          mirror.removeAll()
        }
        #expect(Array(ledger) == mirror)
        #expect(ledger.total == exactSum(ledger))
      }
    }
  }

  @Test func decodingSumsWhatItReads() throws {
    let ledger: Ledger = [transaction(.max), transaction(.max), transaction(-3)]
    let bytes = try CBOREncoder().encode(ledger)
    for decoded in [
      try CBORDecoder().decode(Ledger.self, from: bytes),
      try CBORDecoder(usesHandWrittenCode: false).decode(Ledger.self, from: bytes),
    ] {
      #expect(decoded == ledger)
      #expect(decoded.total == 2 * Int128(Int.max) - 3)
    }
  }

  @Test func aLedgerEncodesAndDumpsAsItsArray() throws {
    let transactions = [transaction(200_000), transaction(-2_900)]
    let ledger = Ledger(transactions)
    #expect(try CBOREncoder().encode(ledger) == CBOREncoder().encode(transactions))
    #expect(
      try CBOREncoder(deterministic: true, usesHandWrittenCode: false).encode(ledger)
        == CBOREncoder().encode(transactions))
    #expect(String(customDumping: ledger) == String(customDumping: transactions))
    var changed = ledger
    changed[1].amount = -3_000
    #expect(diff(ledger, changed) == diff(transactions, Array(changed)))
  }

  /// The invariant reads the ledger's total, so it catches a reducer that edits an old
  /// transaction behind the balance's back as surely as one that forgets the balance.
  @Test func theBalanceInvariantCatchesAnEditedOldTransaction() {
    let invariant = bankingDomain.invariant(named: "balance-matches-transactions")!
    var state = BankingState(accounts: [
      Account(
        name: "a", iban: "A", kind: .checking,
        transactions: [transaction(200_000), transaction(-5)], balance: 199_995)
    ])
    #expect(invariant.holds(state))
    state.accounts[0].transactions[0].amount += 1
    #expect(!invariant.holds(state))
    state.accounts[0].balance += 1
    #expect(invariant.holds(state))
  }
}
