import IdentifiedCollections
import Retrace
import RetraceCoordinator

// Hand-written CBOR for the banking domain's hot types (see `CBOREncodable`): recording,
// replay and state hashes run an order of magnitude faster than through `Codable`. Keys
// are written in deterministic order (shorter first, then bytewise), so the bytes equal
// `CBOREncoder(deterministic: true)`'s; BankingCBORTests checks that on random values.
// Navigation actions use RetraceCoordinator's hand-written conformance, with the routes'
// below.

extension BankingAction: CBOREncodable, CBORDecodable {
  /// Writes `{"case": {label: value, …}}`, labels sorted.
  public func encode(to writer: inout CBORWriter) {
    switch self {
    case .addAccount(let name, let kind, let iban, let date):
      writer.writeCase("addAccount", fields: 4)
      writer.writeKey("date")
      writer.write(date)
      writer.writeKey("iban")
      writer.write(iban)
      writer.writeKey("kind")
      writer.write(kind)
      writer.writeKey("name")
      writer.write(name)
    case .addTransaction(let iban, let amount, let beneficiary, let date):
      writer.writeCase("addTransaction", fields: 4)
      writer.writeKey("date")
      writer.write(date)
      writer.writeKey("iban")
      writer.write(iban)
      writer.writeKey("amount")
      writer.write(amount)
      writer.writeKey("beneficiary")
      writer.write(beneficiary)
    case .moveAccount(let from, let to):
      writer.writeCase("moveAccount", fields: 2)
      writer.writeKey("to")
      writer.write(to)
      writer.writeKey("from")
      writer.write(from)
    case .navigation(let action):
      writer.writeCase("navigation", fields: 1)
      writer.writeKey("action")
      writer.write(action)
    }
  }

  /// Reads `{"case": {label: value, …}}`, labels in any order.
  public init(from reader: inout CBORReader) throws(CBORError) {
    let (name, fields) = try reader.readCase("an action")
    var date: Double?
    var iban: String?
    var amount: Int?
    var beneficiary: String?
    var accountName: String?
    var kind: AccountKind?
    var from: Int?
    var to: Int?
    var navigation: NavigationAction<BankingRoute>?
    for _ in 0..<fields {
      switch try reader.readKey() {
      case "date": date = try reader.read(Double.self)
      case "iban": iban = try reader.read(String.self)
      case "amount": amount = try reader.read(Int.self)
      case "beneficiary": beneficiary = try reader.read(String.self)
      case "name": accountName = try reader.read(String.self)
      case "kind": kind = try reader.read(AccountKind.self)
      case "from": from = try reader.read(Int.self)
      case "to": to = try reader.read(Int.self)
      case "action": navigation = try reader.read(NavigationAction<BankingRoute>.self)
      default: try reader.skip()
      }
    }
    switch name {
    case "addTransaction":
      guard let iban, let amount, let beneficiary, let date else {
        throw reader.missingKey("addTransaction")
      }
      self = .addTransaction(iban: iban, amount: amount, beneficiary: beneficiary, date: date)
    case "addAccount":
      guard let accountName, let kind, let iban, let date else {
        throw reader.missingKey("addAccount")
      }
      self = .addAccount(name: accountName, kind: kind, iban: iban, date: date)
    case "moveAccount":
      guard let from, let to else { throw reader.missingKey("moveAccount") }
      self = .moveAccount(from: from, to: to)
    case "navigation":
      guard let navigation else { throw reader.missingKey("action") }
      self = .navigation(action: navigation)
    default:
      throw reader.invalidValue("no banking action case '\(name)'")
    }
  }
}

extension BankingState: CBOREncodable, CBORDecodable {
  /// Writes `{"accounts": […], "navigation": {…}}`.
  public func encode(to writer: inout CBORWriter) {
    writer.writeMapHeader(count: 2)
    writer.writeKey("accounts")
    writer.write(accounts)
    // NavigationState's Codable conformance never throws.
    writer.writeKey("navigation")
    try? writer.encode(navigation)
  }

  /// Reads the accounts and the navigation state, in any order.
  public init(from reader: inout CBORReader) throws(CBORError) {
    var accounts: IdentifiedArrayOf<Account>?
    var navigation: NavigationState<BankingRoute>?
    for _ in 0..<(try reader.readMapHeader()) {
      switch try reader.readKey() {
      case "accounts": accounts = try reader.read(IdentifiedArrayOf<Account>.self)
      case "navigation": navigation = try reader.decode(NavigationState<BankingRoute>.self)
      default: try reader.skip()
      }
    }
    guard let accounts else { throw reader.missingKey("accounts") }
    guard let navigation else { throw reader.missingKey("navigation") }
    self.init(accounts: accounts, navigation: navigation)
  }
}

extension Account: CBOREncodable, CBORDecodable {
  /// Writes the account's five fields, keys sorted.
  public func encode(to writer: inout CBORWriter) {
    writer.writeMapHeader(count: 5)
    writer.writeKey("iban")
    writer.write(iban)
    writer.writeKey("kind")
    writer.write(kind)
    writer.writeKey("name")
    writer.write(name)
    writer.writeKey("balance")
    writer.write(balance)
    writer.writeKey("transactions")
    writer.write(transactions)
  }

  /// Reads the account's five fields, in any order.
  public init(from reader: inout CBORReader) throws(CBORError) {
    var iban: String?
    var kind: AccountKind?
    var name: String?
    var balance: Int?
    var transactions: [Transaction]?
    for _ in 0..<(try reader.readMapHeader()) {
      switch try reader.readKey() {
      case "iban": iban = try reader.read(String.self)
      case "kind": kind = try reader.read(AccountKind.self)
      case "name": name = try reader.read(String.self)
      case "balance": balance = try reader.read(Int.self)
      case "transactions": transactions = try reader.read([Transaction].self)
      default: try reader.skip()
      }
    }
    guard let iban, let kind, let name, let balance, let transactions else {
      throw reader.missingKey("account field")
    }
    self.init(name: name, iban: iban, kind: kind, transactions: transactions, balance: balance)
  }
}

extension Transaction: CBOREncodable, CBORDecodable {
  /// Writes `{"date": …, "amount": …, "beneficiary": …}`.
  public func encode(to writer: inout CBORWriter) {
    writer.writeMapHeader(count: 3)
    writer.writeKey("date")
    writer.write(date)
    writer.writeKey("amount")
    writer.write(amount)
    writer.writeKey("beneficiary")
    writer.write(beneficiary)
  }

  /// Reads the three fields, in any order.
  public init(from reader: inout CBORReader) throws(CBORError) {
    var date: Double?
    var amount: Int?
    var beneficiary: String?
    for _ in 0..<(try reader.readMapHeader()) {
      switch try reader.readKey() {
      case "date": date = try reader.read(Double.self)
      case "amount": amount = try reader.read(Int.self)
      case "beneficiary": beneficiary = try reader.read(String.self)
      default: try reader.skip()
      }
    }
    guard let date, let amount, let beneficiary else {
      throw reader.missingKey("transaction field")
    }
    self.init(amount: amount, beneficiary: beneficiary, date: date)
  }
}

extension Ledger: CBOREncodable, CBORDecodable {
  /// Writes the transactions as an array, as `[Transaction]` does.
  public func encode(to writer: inout CBORWriter) { writer.write(transactions) }

  /// Reads an array of transactions and sums them.
  public init(from reader: inout CBORReader) throws(CBORError) {
    self.init(try reader.read([Transaction].self))
  }
}

extension AccountKind: CBOREncodable, CBORDecodable {
  /// Writes the raw value.
  public func encode(to writer: inout CBORWriter) { writer.write(rawValue) }

  /// Reads a raw value.
  public init(from reader: inout CBORReader) throws(CBORError) {
    let raw = try reader.read(String.self)
    guard let kind = AccountKind(rawValue: raw) else {
      throw reader.invalidValue("no account kind '\(raw)'")
    }
    self = kind
  }
}

extension BankingRoute: CBOREncodable, CBORDecodable {
  /// Writes `{"case": {label: value}}`, as `Codable` does.
  public func encode(to writer: inout CBORWriter) {
    switch self {
    case .accounts:
      writer.writeCase("accounts", fields: 0)
    case .account(let iban):
      writer.writeCase("account", fields: 1)
      writer.writeKey("iban")
      writer.write(iban)
    case .newAccount:
      writer.writeCase("newAccount", fields: 0)
    case .newTransaction(let iban):
      writer.writeCase("newTransaction", fields: 1)
      writer.writeKey("iban")
      writer.write(iban)
    }
  }

  /// Reads `{"case": {label: value}}`.
  public init(from reader: inout CBORReader) throws(CBORError) {
    let (name, fields) = try reader.readCase("a route")
    var iban: String?
    for _ in 0..<fields {
      switch try reader.readKey() {
      case "iban": iban = try reader.read(String.self)
      default: try reader.skip()
      }
    }
    switch name {
    case "accounts": self = .accounts
    case "account":
      guard let iban else { throw reader.missingKey("iban") }
      self = .account(iban: iban)
    case "newAccount": self = .newAccount
    case "newTransaction":
      guard let iban else { throw reader.missingKey("iban") }
      self = .newTransaction(iban: iban)
    default:
      throw reader.invalidValue("no banking route '\(name)'")
    }
  }
}
