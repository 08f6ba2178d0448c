/// What a recorder may write of a domain's actions and state: for each field that holds
/// personal data, whether to keep it, replace it with a pseudonym, or drop it.
///
/// A field is named by its path in the encoded value (`docs/CODEC.md`), the keys joined by
/// dots: for an action, the case name, then the associated values' labels (`_0` for an
/// unlabelled one), as `retrace log --json` shows them; for the state, its properties, with
/// `*` for any element of an array (or any key of a dictionary). `**` stands for any number
/// of keys, so `**.iban` is every field called `iban`, however deep.
///
/// ```swift
/// let redaction = RedactionPolicy(
///   actions: [
///     "addTransaction.beneficiary": .pseudonymize,
///     "**.iban": .pseudonymizeKeepingPrefix(2),
///     "addAccount.name": .pseudonymize,
///   ],
///   state: [
///     "accounts.*.iban": .pseudonymizeKeepingPrefix(2),
///     "accounts.*.name": .pseudonymize,
///   ])
/// ```
///
/// A pseudonym is keyed (the recorder's secret key, which never leaves the device), the
/// same for the same value throughout a trace, and keeps the value's shape: each letter
/// becomes a letter of the same case, each digit a digit, anything else stays, so an IBAN
/// stays IBAN-shaped. A dropped value becomes a placeholder of its type: an empty string, 0,
/// `false`. The state rules name where the state keeps personal data that did not come from
/// an action, such as the initial state's; wherever a pseudonymized value from an action
/// lands in the state, its pseudonym replaces it (`docs/PRIVACY.md`).
public struct RedactionPolicy: Sendable, Equatable {
  /// What to do with a field.
  public enum Rule: Sendable, Equatable {
    /// Write it as it is.
    case keep
    /// Replace it with a keyed pseudonym of the same shape.
    case pseudonymize
    /// Replace it with a keyed pseudonym that keeps the first `count` characters, such as
    /// an IBAN's country code.
    case pseudonymizeKeepingPrefix(Int)
    /// Replace it with a placeholder of its type: an empty string, 0, `false`.
    case drop
  }

  /// The rules for action fields, by path.
  public var actions: [String: Rule]
  /// The rules for state fields, by path.
  public var state: [String: Rule]

  /// Creates a policy.
  ///
  /// - Parameters:
  ///   - actions: The rules for action fields, by path (`case.label`, with `*` and `**`).
  ///   - state: The rules for state fields, by path (`property.*.property`).
  public init(actions: [String: Rule], state: [String: Rule] = [:]) {
    self.actions = actions
    self.state = state
  }
}
