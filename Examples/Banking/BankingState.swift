import IdentifiedCollections
import RetraceCoordinator

/// The banking example's state: the accounts, in the order the user arranged them.
public struct BankingState: Codable, Hashable, Sendable {
  /// The accounts, identified by IBAN.
  public var accounts: IdentifiedArrayOf<Account>
  /// Which screen shows: the accounts list, an account, or a sheet.
  public var navigation: NavigationState<BankingRoute>

  /// Creates a banking state.
  ///
  /// - Parameters:
  ///   - accounts: The accounts that already exist.
  ///   - navigation: The screens; the accounts list by default.
  public init(
    accounts: IdentifiedArrayOf<Account> = [],
    navigation: NavigationState<BankingRoute> = NavigationState(root: .accounts)
  ) {
    self.accounts = accounts
    self.navigation = navigation
  }
}

/// A bank account: its name, IBAN, kind and transactions.
public struct Account: Codable, Hashable, Sendable, Identifiable {
  /// The name the user gave the account, such as "Daily Expenses".
  public var name: String
  /// The account's IBAN, which identifies it.
  public var iban: String
  /// What kind of account this is.
  public var kind: AccountKind
  /// The bookings, oldest first; they are final and never deleted. The ledger keeps their
  /// exact sum (``Ledger/total``) as it changes.
  public var transactions: Ledger
  /// The sum of the transactions' amounts, in cents, kept up to date by the reducer so that
  /// booking does not cost more as the account grows.
  public var balance: Int

  /// The account's identifier: its IBAN.
  public var id: String { iban }

  /// Creates an account.
  public init(
    name: String, iban: String, kind: AccountKind, transactions: [Transaction], balance: Int
  ) {
    self.name = name
    self.iban = iban
    self.kind = kind
    self.transactions = Ledger(transactions)
    self.balance = balance
  }
}

/// The kinds of account.
public enum AccountKind: String, Codable, Equatable, Sendable, CaseIterable {
  /// A current account for daily spending.
  case checking
  /// A savings account.
  case savings
  /// An investment account.
  case investment
}

/// A booking on an account.
public struct Transaction: Codable, Hashable, Sendable {
  /// The amount in cents: positive for money in, negative for money out.
  public var amount: Int
  /// Who was paid or who paid.
  public var beneficiary: String
  /// When it was booked, in seconds since 1970.
  public var date: Double

  /// Creates a transaction.
  public init(amount: Int, beneficiary: String, date: Double) {
    self.amount = amount
    self.beneficiary = beneficiary
    self.date = date
  }
}
