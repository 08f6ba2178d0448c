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
  workload: RegistrationWorkload.workload
)

/// The registration domain's invariants.
public let registrationInvariants: [Invariant<RegistrationState>] = [
  Invariant(
    "registered-only-when-valid",
    "A registered user's form breaks no validation rule."
  ) {
    $0.registeredUserID == nil || $0.form.brokenRules.isEmpty
  }
]
