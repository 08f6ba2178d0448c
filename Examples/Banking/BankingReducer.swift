import Retrace
import RetraceCoordinator

/// The banking example's reducer, with the seed app's domain rules.
public struct BankingReducer: Reducer, Sendable {
  /// The opening deposit every new account receives, in cents.
  public static let openingDeposit = 200_000
  /// The beneficiary of the opening deposit.
  public static let openingBeneficiary = "Initial Balance"
  /// The penalty booked when a debit leaves the balance below zero, in cents.
  public static let overdraftPenalty = -1_500
  /// The beneficiary of the overdraft penalty.
  public static let overdraftBeneficiary = "Overdraft penalty"

  private let navigation = NavigationReducer(rules: BankingRoute.rules)

  /// Creates the reducer.
  public init() {}

  /// Applies a banking action.
  public func reduce(into state: inout BankingState, action: BankingAction) -> Effect<BankingAction>
  {
    switch action {
    case .addAccount(let name, let kind, let iban, let date):
      guard state.accounts.index(id: iban) == nil else { return .none }
      let deposit = Transaction(
        amount: Self.openingDeposit, beneficiary: Self.openingBeneficiary, date: date)
      state.accounts.append(
        Account(
          name: name, iban: iban, kind: kind, transactions: [deposit], balance: deposit.amount))

    case .addTransaction(let iban, let amount, let beneficiary, let date):
      guard let index = state.accounts.index(id: iban) else { return .none }
      // One in-place access to the account: no copy of it or of its transactions, so the
      // cost does not grow with the state (reading a field through IdentifiedArray's
      // subscript copies the whole account first).
      state.accounts[index].receive(amount: amount, beneficiary: beneficiary, date: date)

    case .moveAccount(let from, let to):
      let indices = state.accounts.indices
      guard indices.contains(from), indices.contains(to) else { return .none }
      let account = state.accounts.remove(at: from)
      state.accounts.insert(account, at: to)

    case .navigation(let action):
      _ = navigation.reduce(into: &state.navigation, action: action)
    }
    return .none
  }
}

extension Account {
  /// Books a transaction and, when a debit leaves the balance below zero, the overdraft
  /// penalty.
  ///
  /// A transaction that would overflow the balance exists only in a damaged or hostile
  /// trace; it is refused (nothing changes), like one for an unknown account, because a
  /// reducer must not trap on what it replays.
  fileprivate mutating func receive(amount: Int, beneficiary: String, date: Double) {
    let (after, overflow) = balance.addingReportingOverflow(amount)
    guard !overflow,
      !(amount < 0 && after < 0
        && after.addingReportingOverflow(BankingReducer.overdraftPenalty).overflow)
    else { return }
    book(Transaction(amount: amount, beneficiary: beneficiary, date: date))
    if amount < 0 && balance < 0 {
      book(
        Transaction(
          amount: BankingReducer.overdraftPenalty, beneficiary: BankingReducer.overdraftBeneficiary,
          date: date))
    }
  }

  fileprivate mutating func book(_ transaction: Transaction) {
    transactions.append(transaction)
    balance += transaction.amount
  }
}

/// The banking reducer with one change: every payment (a debit other than the overdraft
/// penalty) also books a 0.25 fee. The reducer of ``bankingWithFeesDomain``.
public struct BankingWithFeesReducer: Reducer, Sendable {
  /// The fee booked with every payment, in cents.
  public static let paymentFee = -25
  /// The beneficiary of the fee.
  public static let feeBeneficiary = "Payment fee"

  private let base = BankingReducer()

  /// Creates the reducer.
  public init() {}

  /// Applies a banking action, then books the fee after a payment.
  public func reduce(into state: inout BankingState, action: BankingAction) -> Effect<BankingAction>
  {
    _ = base.reduce(into: &state, action: action)
    if case .addTransaction(let iban, let amount, _, let date) = action, amount < 0,
      let index = state.accounts.index(id: iban)
    {
      state.accounts[index].book(
        Transaction(amount: Self.paymentFee, beneficiary: Self.feeBeneficiary, date: date))
    }
    return .none
  }
}
