import Retrace
import RetraceCoordinator

/// The banking example's action schema history, and the upcaster that reads old sessions.
///
/// | version | change |
/// | --- | --- |
/// | 1 | the first release: `addTransaction` names its counterparty `payee` |
/// | 2 | `addTransaction`'s `payee` is renamed `beneficiary`, the name the ``Transaction`` and bank statements use |
///
/// A session recorded with version 1 holds `{"addTransaction":{"payee":"Hema",…}}`; the
/// upcaster renames the key before the action is decoded, so version 1 sessions replay
/// with today's reducer (`traces/banking-v1.trace`).
public enum BankingSchema {
  /// The current action schema version.
  public static let current = 2

  /// Rewrites an action recorded with `version` into the current shape.
  ///
  /// ```swift
  /// let old: CBORValue = ["addTransaction": ["iban": "NL…", "amount": -250, "payee": "Hema", "date": 0.0]]
  /// let new = try BankingSchema.upcast(old, fromVersion: 1)
  /// // ["addTransaction": ["iban": "NL…", "amount": -250, "date": 0.0, "beneficiary": "Hema"]]
  /// ```
  ///
  /// - Parameters:
  ///   - action: The encoded action.
  ///   - version: The schema version it was recorded with.
  /// - Returns: The action in the current shape.
  @Sendable public static func upcast(_ action: CBORValue, fromVersion version: Int) -> CBORValue {
    guard version < 2, action.caseName == "addTransaction", var payload = action.casePayload,
      let payee = payload.removeValue(forKey: "payee")
    else { return action }
    payload["beneficiary"] = payee
    return ["addTransaction": payload]
  }

  /// The action as schema `version` encoded it, or `nil` for a version that does not exist.
  @Sendable public static func legacyEncoding(of action: BankingAction, schemaVersion version: Int)
    -> (any Encodable & Sendable)?
  {
    version == 1 ? BankingActionV1(action) : nil
  }
}

/// The banking action as schema version 1 encoded it (``BankingSchema``): what the first
/// release recorded. Only tools write it, to reproduce version 1 sessions.
public enum BankingActionV1: Codable, Equatable, Sendable {
  case addAccount(name: String, kind: AccountKind, iban: String, date: Double)
  case addTransaction(iban: String, amount: Int, payee: String, date: Double)
  case moveAccount(from: Int, to: Int)
  case navigation(action: NavigationAction<BankingRoute>)

  /// Today's action in the version 1 shape.
  public init(_ action: BankingAction) {
    switch action {
    case .addAccount(let name, let kind, let iban, let date):
      self = .addAccount(name: name, kind: kind, iban: iban, date: date)
    case .addTransaction(let iban, let amount, let beneficiary, let date):
      self = .addTransaction(iban: iban, amount: amount, payee: beneficiary, date: date)
    case .moveAccount(let from, let to):
      self = .moveAccount(from: from, to: to)
    case .navigation(let action):
      self = .navigation(action: action)
    }
  }
}
