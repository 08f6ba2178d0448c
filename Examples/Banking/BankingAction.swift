import RetraceCoordinator

/// The banking example's actions.
///
/// ```json
/// {"addAccount":{"name":"Daily Expenses","kind":"checking","iban":"NL91ABNA0417164300","date":1763771000.5}}
/// {"addTransaction":{"iban":"NL91ABNA0417164300","amount":-2900,"beneficiary":"Internet provider","date":1763771100.0}}
/// {"moveAccount":{"from":2,"to":0}}
/// {"navigation":{"action":{"push":{"route":{"account":{"iban":"NL91ABNA0417164300"}}}}}}
/// ```
public enum BankingAction: Codable, Equatable, Sendable {
  /// Opens an account with the 2,000.00 opening deposit, booked at `date`. An IBAN that
  /// already exists leaves the state unchanged.
  case addAccount(name: String, kind: AccountKind, iban: String, date: Double)
  /// Books a transaction of `amount` cents. An unknown IBAN leaves the state unchanged. A
  /// debit that leaves the balance below zero also books a -15.00 overdraft penalty.
  case addTransaction(iban: String, amount: Int, beneficiary: String, date: Double)
  /// Moves the account at index `from` to index `to`. An index out of range leaves the
  /// state unchanged.
  case moveAccount(from: Int, to: Int)
  /// Moves between screens under ``BankingRoute/rules``; a forbidden move is refused and
  /// reported in the navigation state.
  case navigation(action: NavigationAction<BankingRoute>)
}
