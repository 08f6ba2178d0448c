import Retrace
import RetraceCoordinator

/// The `banking` domain: accounts, transactions, an overdraft penalty and navigation.
public let bankingDomain = DomainDefinition(
  name: "banking",
  summary: "Accounts with an opening deposit, transactions and an overdraft penalty.",
  actionSchemaVersion: BankingSchema.current,
  initialState: BankingState(),
  reducer: BankingReducer(),
  actionCases: ["addAccount", "addTransaction", "moveAccount", "navigation"],
  invariants: bankingInvariants,
  workload: BankingWorkload.workload,
  upcaster: BankingSchema.upcast,
  legacyEncoder: BankingSchema.legacyEncoding,
  redaction: bankingRedaction,
  displayFormats: bankingDisplayFormats,
  explorationActions: BankingExploration.actions,
  stateConstraint: BankingExploration.constraint,
  predicates: bankingPredicates,
  statesHashEveryField: true
)

/// How tools show the banking state's numbers: amounts and balances, in cents, as euros;
/// transaction dates, in seconds since 1970, as dates.
public let bankingDisplayFormats: [String: DisplayFormat] = [
  "accounts.*.balance": .money(currencyCode: "EUR", minorUnits: 2),
  "accounts.*.transactions.*.amount": .money(currencyCode: "EUR", minorUnits: 2),
  "accounts.*.transactions.*.date": .date(.epochSeconds),
]

/// What a recording with a redaction key writes of a banking session: account names, IBANs
/// and beneficiaries become keyed pseudonyms (an IBAN keeps its country code, so it still
/// reads as one); amounts, dates and account kinds are kept, so balances, overdrafts and
/// their invariants replay as recorded.
public let bankingRedaction = RedactionPolicy(
  actions: [
    "**.iban": .pseudonymizeKeepingPrefix(2),
    "addAccount.name": .pseudonymize,
    "addTransaction.beneficiary": .pseudonymize,
  ],
  state: [
    "accounts.*.iban": .pseudonymizeKeepingPrefix(2),
    "accounts.*.name": .pseudonymize,
    "accounts.*.transactions.*.beneficiary": .pseudonymize,
  ])

/// The `banking-with-fees` domain: the banking domain with a changed reducer, as a next
/// release might ship it, that charges a 0.25 fee on every payment (``BankingWithFeesReducer``).
///
/// It exists to show what replaying old sessions against changed code reports:
/// `retrace replay traces/banking-session.trace --verify --as banking-with-fees` finds the
/// first recorded state hash the changed reducer no longer reproduces (exit 1).
public let bankingWithFeesDomain = DomainDefinition(
  name: "banking-with-fees",
  summary: "The banking domain with a changed reducer that charges a 0.25 fee on every payment.",
  actionSchemaVersion: BankingSchema.current,
  initialState: BankingState(),
  reducer: BankingWithFeesReducer(),
  actionCases: ["addAccount", "addTransaction", "moveAccount", "navigation"],
  invariants: bankingInvariants,
  workload: BankingWorkload.workload,
  upcaster: BankingSchema.upcast,
  legacyEncoder: BankingSchema.legacyEncoding,
  displayFormats: bankingDisplayFormats
)

/// The banking domain's invariants.
public let bankingInvariants: [Invariant<BankingState>] = [
  Invariant(
    "balance-matches-transactions", "Every account's balance is the sum of its transactions."
  ) {
    // The ledger keeps the exact sum through every change (see `Ledger`), so this costs the
    // same after the millionth transaction as after the first: bisect checks it after every
    // action. A hostile snapshot whose amounts sum past Int.max has a total no balance equals.
    $0.accounts.allSatisfy { $0.transactions.total == Int128($0.balance) }
  },
  Invariant("non-negative-balance", "No account's balance is below zero.") {
    $0.accounts.allSatisfy { $0.balance >= 0 }
  },
  Invariant("unique-iban", "No two accounts share an IBAN, ignoring spaces and letter case.") {
    var seen = Set<String>(minimumCapacity: $0.accounts.count)
    return $0.accounts.allSatisfy { seen.insert(normalizedIBAN($0.iban)).inserted }
  },
  Invariant("valid-navigation", "Every stack starts at a root and every move obeys the flow rules.")
  {
    $0.navigation.isValid(under: BankingRoute.rules)
  },
  Invariant("opening-deposit", "Every account's first transaction is the 2,000.00 opening deposit.")
  {
    $0.accounts.allSatisfy {
      $0.transactions.first.map {
        $0.amount == BankingReducer.openingDeposit
          && $0.beneficiary == BankingReducer.openingBeneficiary
      } ?? false
    }
  },
  NavigationChecks.returnsToRoot(
    reducer: BankingReducer(), navigation: { $0.navigation },
    action: { .navigation(action: $0) }),
]

/// An IBAN without spaces, in capitals: the form in which two IBANs are compared.
func normalizedIBAN(_ iban: String) -> String {
  // Already in that form (ASCII, no space, no small letter), as IBANs nearly always are:
  // the same string, without making two new ones. `bisect` checks this after every action.
  if iban.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x20 && !(0x61...0x7A).contains($0) }) {
    return iban
  }
  return String(iban.filter { $0 != " " }).uppercased()
}
