import Retrace

/// The banking workload: a person who opens a few accounts, then mostly pays small bills
/// from the checking account, receives a salary now and then, pays rent, and saves a little.
enum BankingWorkload {
  /// The first date a generated session uses: 2025-11-22T00:23:20Z.
  static let startDate = 1_763_771_000.0
  /// About half an hour between actions, so a thousand actions span three weeks.
  static let secondsPerStep = 1_800.0

  static let accountPlans: [(name: String, kind: AccountKind)] = [
    ("Daily Expenses", .checking), ("Savings", .savings), ("Investments", .investment),
    ("Holiday", .savings), ("Household", .checking), ("Pension", .investment),
    ("Car", .savings), ("Side Business", .checking),
  ]

  /// Everyday payees with their usual range of amounts, in cents.
  static let payees: [(name: String, amounts: ClosedRange<Int>)] = [
    ("Albert Heijn", 450...9_500), ("Jumbo", 300...7_500), ("Coffee Corner", 250...650),
    ("NS Reizen", 340...2_800), ("Shell", 3_500...9_000), ("Bol.com", 999...14_999),
    ("Internet provider", 2_900...2_900), ("Spotify", 1_199...1_199), ("Pharmacy", 500...4_500),
    ("Restaurant De Kas", 4_500...18_000), ("Gym", 3_500...3_500), ("Hema", 200...3_000),
  ]

  static let workload = Workload<BankingState, BankingAction> { state, step, random in
    let date =
      startDate + Double(step) * secondsPerStep + Double(Int.random(in: 0..<1_700, using: &random))
    let accounts = state.accounts
    let opensAccount =
      accounts.count < 3
      || (accounts.count < accountPlans.count && Int.random(in: 0..<500, using: &random) == 0)
    if opensAccount {
      let plan = accountPlans[accounts.count]
      return .addAccount(name: plan.name, kind: plan.kind, iban: makeIBAN(&random), date: date)
    }
    let checking = accounts[0].iban
    let roll = Int.random(in: 0..<1_000, using: &random)
    switch roll {
    case 0..<25:
      return .addTransaction(
        iban: checking, amount: Int.random(in: 285_000...345_000, using: &random),
        beneficiary: "Employer B.V.", date: date)
    case 25..<35:
      return .addTransaction(iban: checking, amount: -95_000, beneficiary: "Rent", date: date)
    case 35..<60:
      let savings = accounts[Int.random(in: 1..<accounts.count, using: &random)].iban
      return .addTransaction(
        iban: savings, amount: Int.random(in: 1...50, using: &random) * 1_000,
        beneficiary: "Transfer from Daily Expenses", date: date)
    case 62..<92:
      // Browsing: open an account, book from its sheet, go back.
      let visible = state.navigation.visibleRoute
      switch visible {
      case .accounts:
        return .navigation(
          action: .push(route: .account(iban: accounts.randomElement(using: &random)!.iban)))
      case .account(let iban):
        return Bool.random(using: &random)
          ? .navigation(action: .present(route: .newTransaction(iban: iban), style: .sheet))
          : .navigation(action: .pop)
      default:
        return .navigation(action: .dismiss)
      }
    case 60..<62 where accounts.count > 1:
      return .moveAccount(
        from: Int.random(in: 0..<accounts.count, using: &random),
        to: Int.random(in: 0..<accounts.count, using: &random))
    default:
      let payee = payees.randomElement(using: &random)!
      let iban = roll < 900 ? checking : accounts.randomElement(using: &random)!.iban
      return .addTransaction(
        iban: iban, amount: -Int.random(in: payee.amounts, using: &random),
        beneficiary: payee.name, date: date)
    }
  }

  /// A Dutch IBAN with valid check digits (ISO 13616, mod 97).
  static func makeIBAN(_ random: inout SeededRandom) -> String {
    let bank = ["ABNA", "INGB", "RABO", "TRIO", "SNSB"].randomElement(using: &random)!
    var account = ""
    for _ in 0..<10 { account.append(Character(String(Int.random(in: 0...9, using: &random)))) }
    return "NL" + ibanCheckDigits(country: "NL", bban: bank + account) + bank + account
  }

  static func ibanCheckDigits(country: String, bban: String) -> String {
    var remainder = 0
    for character in (bban + country + "00") {
      let value = character.isNumber ? Int(String(character))! : Int(character.asciiValue! - 55)
      remainder = (remainder * (value >= 10 ? 100 : 10) + value) % 97
    }
    let check = 98 - remainder
    return check < 10 ? "0\(check)" : "\(check)"
  }
}
