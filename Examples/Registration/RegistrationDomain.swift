import Retrace

/// The `registration` domain: the classic MVVM registration screen (first name, last name,
/// username, password), with validation, a registering effect, and a planted bug that the
/// `registered-only-when-valid` invariant catches (``RegistrationReducer``).
///
/// Its registrar accepts every form and names the user after the username; replays never
/// run it, since the answers are recorded as `registrationSucceeded` and
/// `registrationFailed` actions.
public let registrationDomain = DomainDefinition(
  name: "registration",
  summary: "A registration form with validation rules and a registering effect.",
  initialState: RegistrationState(),
  reducer: RegistrationReducer(registrar: { form in "U-\(form.username)" }),
  sampleActions: RegistrationAction.samples,
  invariants: registrationInvariants,
  workload: RegistrationWorkload.workload,
  redaction: registrationRedaction,
  explorationActions: RegistrationExploration.actions,
  predicates: registrationPredicates,
  statesHashEveryField: true
)

/// What a recording with a redaction key writes of a registration session: every value typed
/// into the form (names, username, password), the messages that repeat a username, and the
/// user IDs made from one, as keyed pseudonyms. A pseudonym keeps a value's length and
/// which characters are letters or digits, so the validation rules (not empty, at least 3
/// or 8 characters) judge the redacted session as they judged the real one.
public let registrationRedaction = RedactionPolicy(
  actions: [
    "edit.value": .pseudonymize,
    "registrationFailed.message": .pseudonymize,
    "registrationSucceeded.userID": .pseudonymizeKeepingPrefix(2),
  ],
  state: [
    "form.firstName": .pseudonymize,
    "form.lastName": .pseudonymize,
    "form.username": .pseudonymize,
    "form.password": .pseudonymize,
  ])

/// The registration domain's invariants.
public let registrationInvariants: [Invariant<RegistrationState>] = [
  Invariant(
    "registered-only-when-valid",
    "A registered user's form breaks no validation rule."
  ) {
    $0.registeredUserID == nil || $0.form.brokenRules.isEmpty
  }
]
