import RetraceCoordinator

/// The banking app's navigation, an example of what the module expresses:
/// an accounts list at the root, an account's transactions pushed, sheets for a new account
/// and a new transaction, and a transaction sheet only from an account's screen.
public enum BankingRoute: Routable {
  /// The list of accounts: the root.
  case accounts
  /// One account's transactions.
  case account(iban: String)
  /// The sheet that opens an account.
  case newAccount
  /// The sheet that books a transaction on an account.
  case newTransaction(iban: String)

  /// The route's node name in flow graphs.
  public var name: String {
    switch self {
    case .accounts: "accounts"
    case .account: "account"
    case .newAccount: "newAccount"
    case .newTransaction: "newTransaction"
    }
  }

  /// The banking app's flow rules: a transaction sheet only from an account's screen.
  public static let rules = FlowRules<BankingRoute>()
    .root("accounts")
    .allowPush(from: "accounts", to: "account")
    .allowPresent(from: "accounts", to: "newAccount")
    .allowPresent(from: "account", to: "newTransaction")

  /// Deep links such as `bank://accounts/NL91ABNA0417164300`.
  public static let links = RouteTable<BankingRoute>(scheme: "bank")
    .route(.accounts, pattern: "accounts")
    .route(
      "newAccount", pattern: "new", presentedAs: .sheet,
      build: { _ in .newAccount },
      parameters: { $0 == .newAccount ? [] : nil }
    )
    .route(
      "account", pattern: ":iban",
      build: { .account(iban: $0[0]) },
      parameters: { if case .account(let iban) = $0 { [iban] } else { nil } }
    )
    .route(
      "newTransaction", pattern: "transactions/new/:iban", presentedAs: .sheet,
      build: { .newTransaction(iban: $0[0]) },
      parameters: { if case .newTransaction(let iban) = $0 { [iban] } else { nil } }
    )
}
