import Retrace

/// What `retrace check` may send in a registration state: the edits a user makes (each
/// field cleared, too short, or valid), Register, Start over, and the registering effect's
/// two answers while a registration is in flight.
///
/// Three values a field is enough to break or satisfy each validation rule; the space is
/// 3⁴ forms times the statuses and the rules last shown, about 12,000 states, searched
/// completely in well under a second. The planted bug (``RegistrationReducer``) is 7 actions
/// deep: four edits, Register, its success, and an edit that breaks a rule.
public enum RegistrationExploration {
  /// The values an edit may set, by field: empty, too short and valid.
  public static let values: [RegistrationField: [String]] = [
    .firstName: ["", "A", "Ada"],
    .lastName: ["", "L", "Lovelace"],
    .username: ["", "ad", "ada"],
    .password: ["", "secret", "analytical"],
  ]

  /// The actions that may be sent in `state`.
  @Sendable public static func actions(in state: RegistrationState) -> [RegistrationAction] {
    var actions: [RegistrationAction] = []
    for field in RegistrationField.allCases {
      for value in values[field] ?? [] where value != state.form[field] {
        actions.append(.edit(field: field, value: value))
      }
    }
    actions.append(.register)
    actions.append(.startOver)
    if state.status == .submitting {
      actions.append(.registrationSucceeded(userID: "U-\(state.form.username)"))
      actions.append(.registrationFailed(message: "The service could not be reached."))
    }
    return actions
  }
}

/// Named conditions `retrace check --reach` can search for in a registration state.
public let registrationPredicates: [StatePredicate<RegistrationState>] = [
  StatePredicate("registered", "A user is registered.") { $0.registeredUserID != nil },
  StatePredicate("failed", "The last registration failed.") {
    if case .failed = $0.status { true } else { false }
  },
  StatePredicate(
    "submitting-empty-form", "A registration is in flight while the form shown is empty."
  ) {
    $0.status == .submitting && $0.form == RegistrationForm()
  },
]
