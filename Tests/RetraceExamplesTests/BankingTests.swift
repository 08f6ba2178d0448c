import Foundation
import Retrace
import Testing

@testable import RetraceExamples

@Suite struct BankingTests {
  let iban = "NL91ABNA0417164300"
  let reducer = BankingReducer()

  func reduce(_ actions: [BankingAction], from state: BankingState = BankingState()) -> BankingState
  {
    var state = state
    for action in actions { _ = reducer.reduce(into: &state, action: action) }
    return state
  }

  func open(_ iban: String, name: String = "Daily Expenses") -> BankingAction {
    .addAccount(name: name, kind: .checking, iban: iban, date: 1_763_771_000.5)
  }

  @Test func openingAnAccountBooksTheOpeningDeposit() {
    let state = reduce([open(iban)])
    let account = state.accounts[id: iban]
    #expect(account?.name == "Daily Expenses")
    #expect(account?.kind == .checking)
    #expect(
      account?.transactions == [
        Transaction(amount: 200_000, beneficiary: "Initial Balance", date: 1_763_771_000.5)
      ])
    #expect(account?.balance == 200_000)
  }

  @Test func anExistingIBANLeavesStateUnchanged() {
    let once = reduce([open(iban)])
    #expect(reduce([open(iban, name: "Other")], from: once) == once)
  }

  @Test func aTransactionIsBookedAndChangesTheBalance() {
    let state = reduce([
      open(iban),
      .addTransaction(
        iban: iban, amount: -2_900, beneficiary: "Internet provider", date: 1_763_771_100),
    ])
    #expect(
      state.accounts[id: iban]?.transactions.last
        == Transaction(amount: -2_900, beneficiary: "Internet provider", date: 1_763_771_100))
    #expect(state.accounts[id: iban]?.balance == 197_100)
  }

  @Test func anUnknownIBANLeavesStateUnchanged() {
    let state = reduce([open(iban)])
    #expect(
      reduce([.addTransaction(iban: "XX00", amount: 5, beneficiary: "x", date: 1)], from: state)
        == state)
  }

  @Test func aDebitBelowZeroAlsoBooksTheOverdraftPenalty() {
    let state = reduce([
      open(iban),
      .addTransaction(iban: iban, amount: -200_100, beneficiary: "Car dealer", date: 5),
    ])
    let account = state.accounts[id: iban]!
    #expect(
      account.transactions.suffix(2) == [
        Transaction(amount: -200_100, beneficiary: "Car dealer", date: 5),
        Transaction(amount: -1_500, beneficiary: "Overdraft penalty", date: 5),
      ])
    #expect(account.balance == -1_600)
  }

  @Test func aCreditWhileBelowZeroBooksNoPenalty() {
    let state = reduce([
      open(iban),
      .addTransaction(iban: iban, amount: -200_100, beneficiary: "Car dealer", date: 5),
      .addTransaction(iban: iban, amount: 100, beneficiary: "Refund", date: 6),
    ])
    #expect(state.accounts[id: iban]!.transactions.count == 4)
    #expect(state.accounts[id: iban]!.balance == -1_500)
  }

  @Test func aDebitThatStaysAtZeroBooksNoPenalty() {
    let state = reduce([
      open(iban), .addTransaction(iban: iban, amount: -200_000, beneficiary: "All", date: 5),
    ])
    #expect(state.accounts[id: iban]!.balance == 0)
    #expect(state.accounts[id: iban]!.transactions.count == 2)
  }

  @Test func moveAccountReordersAndIgnoresIndicesOutOfRange() {
    let three = reduce([open("A1"), open("B2"), open("C3")])
    let moved = reduce([.moveAccount(from: 2, to: 0)], from: three)
    #expect(moved.accounts.ids.elements == ["C3", "A1", "B2"])
    #expect(reduce([.moveAccount(from: 3, to: 0)], from: three) == three)
    #expect(reduce([.moveAccount(from: 0, to: -1)], from: three) == three)
  }

  /// The JSON forms documented in the README, each with the value it means.
  static let documentedJSON: [(String, BankingAction)] = [
    (
      #"{"addAccount":{"name":"Daily Expenses","kind":"checking","iban":"NL91ABNA0417164300","date":1763771000.5}}"#,
      .addAccount(
        name: "Daily Expenses", kind: .checking, iban: "NL91ABNA0417164300", date: 1_763_771_000.5)
    ),
    (
      #"{"addTransaction":{"iban":"NL91ABNA0417164300","amount":-2900,"beneficiary":"Internet provider","date":1763771100.0}}"#,
      .addTransaction(
        iban: "NL91ABNA0417164300", amount: -2_900, beneficiary: "Internet provider",
        date: 1_763_771_100)
    ),
    (#"{"moveAccount":{"from":2,"to":0}}"#, .moveAccount(from: 2, to: 0)),
  ]

  @Test(arguments: 0..<documentedJSON.count)
  func actionsEncodeAsTheDocumentedJSON(index: Int) throws {
    let (json, action) = Self.documentedJSON[index]
    // The documented JSON decodes to the action...
    #expect(try JSONDecoder().decode(BankingAction.self, from: Data(json.utf8)) == action)
    // ...and the action encodes to the same JSON object (key order aside: JSON objects are unordered).
    let encoded = try JSONEncoder().encode(action)
    let lhs = try JSONSerialization.jsonObject(with: encoded) as? NSDictionary
    let rhs = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary
    #expect(lhs != nil && lhs == rhs)
  }

  @Test func navigationFollowsTheFlowRules() {
    var state = reduce([open(iban)])
    _ = reducer.reduce(
      into: &state,
      action: .navigation(action: .present(route: .newTransaction(iban: iban), style: .sheet)))
    #expect(state.navigation.visibleRoute == .accounts)
    #expect(state.navigation.lastRefusal != nil)
    _ = reducer.reduce(
      into: &state, action: .navigation(action: .push(route: .account(iban: iban))))
    _ = reducer.reduce(
      into: &state,
      action: .navigation(action: .present(route: .newTransaction(iban: iban), style: .sheet)))
    #expect(state.navigation.visibleRoute == .newTransaction(iban: iban))
    #expect(state.navigation.lastRefusal == nil)
    #expect(bankingDomain.invariant(named: "valid-navigation")!.holds(state))
  }

  @Test func generatedIBANsHaveValidCheckDigits() {
    #expect(BankingWorkload.ibanCheckDigits(country: "NL", bban: "ABNA0417164300") == "91")
    var random = SeededRandom(seed: 7)
    for _ in 0..<50 {
      let iban = BankingWorkload.makeIBAN(&random)
      #expect(iban.count == 18)
      #expect(
        BankingWorkload.ibanCheckDigits(country: "NL", bban: String(iban.dropFirst(4)))
          == String(iban.dropFirst(2).prefix(2)))
    }
  }

  @Test func theWorkloadOpensAccountsThenBooksWithIncreasingDates() {
    let (actions, state) = bankingDomain.generate(count: 2_000, seed: 1)
    var lastDate = -Double.infinity
    var cases: [String: Int] = [:]
    for action in actions {
      switch action {
      case .addAccount(_, _, _, let date), .addTransaction(_, _, _, let date):
        #expect(date > lastDate)
        lastDate = date
      case .moveAccount, .navigation: break
      }
      cases[String(describing: action).prefix { $0 != "(" }.description, default: 0] += 1
    }
    #expect(state.accounts.count >= 3)
    #expect(cases["addTransaction", default: 0] > 1_700)
    #expect(cases["navigation", default: 0] > 20)
    for invariant in bankingDomain.invariants where invariant.name != "non-negative-balance" {
      #expect(invariant.holds(state), "\(invariant.name)")
    }
    #expect(bankingDomain.invariant(named: "balance-matches-transactions")!.holds(state))
  }
}
