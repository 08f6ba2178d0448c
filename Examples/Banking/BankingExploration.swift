import Retrace
import RetraceCoordinator

/// What `retrace check` may send in a banking state: opening either of two accounts, a
/// salary, the rent and a small payment on each open account, moving an account to the top
/// of the list, and the navigation the visible screen offers (open an account, its
/// transaction sheet, the new-account sheet, back).
///
/// Like the workload, it books transactions whatever the screen shows. At most 10 actions
/// a state; balances grow without end, so ``constraint`` stops exploring a state with more
/// than 6 transactions: about 31,500 states, searched completely in about a second.
/// The overdraft that `non-negative-balance` catches (the reducer books the debit and a
/// penalty rather than refuse it) is 4 actions deep: an account and three rents.
public enum BankingExploration {
  /// The accounts that may be opened: name, kind and IBAN.
  public static let accounts: [(name: String, kind: AccountKind, iban: String)] = [
    ("Daily Expenses", .checking, "NL91ABNA0417164300"),
    ("Holiday", .savings, "NL20INGB0001234567"),
  ]

  /// The transactions that may be booked on each account: amount in cents and beneficiary.
  public static let transactions: [(amount: Int, beneficiary: String)] = [
    (300_000, "Employer B.V."), (-95_000, "Rent"), (-1_199, "Spotify"),
  ]

  /// The date of every booking: one date keeps states that differ only in when alike.
  public static let date = 1_763_771_000.0

  /// The actions that may be sent in `state`.
  @Sendable public static func actions(in state: BankingState) -> [BankingAction] {
    var actions: [BankingAction] = []
    for plan in accounts where state.accounts[id: plan.iban] == nil {
      actions.append(.addAccount(name: plan.name, kind: plan.kind, iban: plan.iban, date: date))
    }
    for account in state.accounts {
      for transaction in transactions {
        actions.append(
          .addTransaction(
            iban: account.iban, amount: transaction.amount, beneficiary: transaction.beneficiary,
            date: date))
      }
    }
    for from in state.accounts.indices.dropFirst() {
      actions.append(.moveAccount(from: from, to: 0))
    }
    switch state.navigation.visibleRoute {
    case .accounts:
      for account in state.accounts {
        actions.append(.navigation(action: .push(route: .account(iban: account.iban))))
      }
      actions.append(.navigation(action: .present(route: .newAccount, style: .sheet)))
    case .account(let iban):
      actions.append(.navigation(action: .pop))
      actions.append(
        .navigation(action: .present(route: .newTransaction(iban: iban), style: .sheet)))
    case .newAccount, .newTransaction:
      actions.append(.navigation(action: .dismiss))
    }
    return actions
  }

  /// Which states are explored further: at most 3 accounts and 6 transactions in all.
  @Sendable public static func constraint(_ state: BankingState) -> Bool {
    state.accounts.count <= 3 && state.accounts.reduce(0) { $0 + $1.transactions.count } <= 6
  }
}

/// The banking screens, by route name, that `shows-…` predicates name.
public let bankingScreens = ["accounts", "account", "newAccount", "newTransaction"]

/// Named conditions `retrace check --reach` can search for in a banking state: one for each
/// screen (`shows-account`, …) and these.
public let bankingPredicates: [StatePredicate<BankingState>] =
  [
    StatePredicate("two-accounts", "Two accounts are open.") { $0.accounts.count == 2 },
    StatePredicate("overdraft-penalty", "An overdraft penalty was booked.") {
      $0.accounts.contains { account in
        account.transactions.contains { $0.beneficiary == BankingReducer.overdraftBeneficiary }
      }
    },
    StatePredicate("savings-on-top", "A savings account is at the top of the list.") {
      $0.accounts.first?.kind == .savings
    },
  ] + NavigationChecks.screenPredicates(bankingScreens, navigation: { $0.navigation })
