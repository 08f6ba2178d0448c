/// The registration example's actions.
///
/// Encoded as Swift synthesizes them, for example
/// `{"edit":{"field":"username","value":"alice"}}`, `{"register":{}}` or
/// `{"registrationSucceeded":{"userID":"U-5a0c91"}}`.
public enum RegistrationAction: Codable, Equatable, Sendable {
  /// The user changed a field; `value` is the field's whole new text (one keystroke, a
  /// paste or a cleared field).
  case edit(field: RegistrationField, value: String)
  /// The user tapped Register: the form is validated and, when valid, sent.
  case register
  /// The registration service accepted the form and created the user `userID`.
  case registrationSucceeded(userID: String)
  /// The registration service refused the form or could not be reached.
  case registrationFailed(message: String)
  /// The user tapped "Register someone else": the form is emptied and a registration in
  /// flight is abandoned.
  case startOver

  /// One action of each case, in the order tools list them.
  public static let samples: [RegistrationAction] = [
    .edit(field: .firstName, value: ""), .register, .registrationSucceeded(userID: ""),
    .registrationFailed(message: ""), .startOver,
  ]
}
