import Foundation
import Retrace
import RetraceExamples
import RetraceTesting
import Testing

@MainActor
@Suite struct RegistrationTests {
  static let valid = RegistrationForm(
    firstName: "Alice", lastName: "Andersen", username: "alicea", password: "correct horse")

  /// A store whose form is already filled in with `form`.
  func store(
    _ form: RegistrationForm = valid,
    registrar: @escaping RegistrationReducer.Registrar = { "U-\($0.username)" }
  ) -> TestStore<RegistrationState, RegistrationAction> {
    TestStore(
      initialState: RegistrationState(form: form),
      reducer: RegistrationReducer(registrar: registrar))
  }

  func holds(_ state: RegistrationState) -> Bool {
    registrationDomain.invariant(named: "registered-only-when-valid")!.holds(state)
  }

  @Test func anEditChangesOnlyItsField() async {
    let store = store(RegistrationForm())
    await store.send(.edit(field: .username, value: "al")) { $0.form.username = "al" }
    await store.send(.edit(field: .password, value: "p")) { $0.form.password = "p" }
    await store.finish()
  }

  @Test func registeringAnEmptyFormKeepsTheFourBrokenRulesAndSendsNothing() async {
    let store = store(RegistrationForm())
    await store.send(.register) {
      $0.brokenRules = [
        BrokenRule(field: .firstName, message: "Firstname should not be empty"),
        BrokenRule(field: .lastName, message: "Lastname should not be empty"),
        BrokenRule(field: .username, message: "Username should be at least 3 characters"),
        BrokenRule(field: .password, message: "Password should be at least 8 characters"),
      ]
    }
    await store.finish()
  }

  @Test func theLengthRulesCountCharactersAtTheirLimits() {
    var form = Self.valid
    form.username = "zoë"
    form.password = "12345678"
    #expect(form.brokenRules.isEmpty)
    form.username = "zo"
    form.password = "1234567"
    #expect(form.brokenRules.map(\.field) == [.username, .password])
  }

  @Test func aValidRegisterSendsTheFormAndTheServiceAnswersWithTheUser() async {
    let store = store()
    await store.send(.register) { $0.status = .submitting }
    await store.receive(.registrationSucceeded(userID: "U-alicea")) {
      $0.status = .registered(userID: "U-alicea")
    }
    await store.finish()
  }

  @Test func aRefusalComesBackAsRegistrationFailedWithTheMessage() async {
    let store = store(registrar: { _ in throw RegistrationError("The username alicea is taken.") })
    await store.send(.register) { $0.status = .submitting }
    await store.receive(.registrationFailed(message: "The username alicea is taken.")) {
      $0.status = .failed(message: "The username alicea is taken.")
    }
    // Fixing the field returns to editing, and the next register clears the old rules.
    await store.send(.edit(field: .username, value: "alicea2")) {
      $0.form.username = "alicea2"
      $0.status = .editing
    }
    await store.finish()
  }

  @Test func fixingTheBrokenRulesAndRegisteringAgainClearsThem() async {
    var form = Self.valid
    form.password = "short"
    let store = store(form)
    await store.send(.register) {
      $0.brokenRules = [
        BrokenRule(field: .password, message: "Password should be at least 8 characters")
      ]
    }
    await store.send(.edit(field: .password, value: "shortened")) { $0.form.password = "shortened" }
    await store.send(.register) {
      $0.brokenRules = []
      $0.status = .submitting
    }
    await store.receive(.registrationSucceeded(userID: "U-alicea")) {
      $0.status = .registered(userID: "U-alicea")
    }
    await store.finish()
  }

  @Test func anAnswerToNoRegistrationInFlightIsDropped() async {
    let store = store()
    await store.send(.registrationSucceeded(userID: "U-late"))
    await store.send(.registrationFailed(message: "late"))
    await store.finish()
  }

  @Test func startingOverEmptiesTheFormAndCancelsTheRegistrationInFlight() async {
    let store = store(registrar: { _ in
      try await Task.sleep(for: .seconds(30))
      return "U-too-late"
    })
    await store.send(.register) { $0.status = .submitting }
    await store.send(.startOver) { $0 = RegistrationState() }
    // finish fails while an effect still runs: the registration was cancelled.
    await store.finish()
    #expect(store.receivedActions.isEmpty)
  }

  /// The planted bug the tutorial finds: after a success, clearing a field leaves the user
  /// registered with a form that breaks a rule.
  @Test func theEditAfterRegisteringKeepsTheRegisteredStatusAndBreaksTheInvariant() async {
    let store = store()
    await store.send(.register) { $0.status = .submitting }
    await store.receive(.registrationSucceeded(userID: "U-alicea")) {
      $0.status = .registered(userID: "U-alicea")
    }
    #expect(holds(store.state))
    await store.send(.edit(field: .lastName, value: "")) { $0.form.lastName = "" }
    #expect(store.state.registeredUserID == "U-alicea")
    #expect(!holds(store.state))
    await store.finish()
  }

  @Test func theInvariantFailsOnlyForARegisteredUserWithABrokenRule() {
    var broken = Self.valid
    broken.firstName = ""
    #expect(holds(RegistrationState(form: Self.valid, status: .registered(userID: "U-1"))))
    #expect(holds(RegistrationState(form: broken)))
    #expect(holds(RegistrationState(form: broken, status: .failed(message: "no"))))
    #expect(holds(RegistrationState()))
    #expect(!holds(RegistrationState(form: broken, status: .registered(userID: "U-1"))))
    // It reads the fields themselves, not the rules the last register kept.
    #expect(
      !holds(RegistrationState(form: broken, brokenRules: [], status: .registered(userID: "U-1"))))
  }

  @Test func theWorkloadIsDeterministicAndPlaysEveryCase() {
    let (actions, _) = registrationDomain.generate(count: 1_500, seed: 3)
    #expect(registrationDomain.generate(count: 1_500, seed: 3).actions == actions)
    #expect(registrationDomain.generate(count: 1_500, seed: 4).actions != actions)
    let cases = Set(actions.map { actionCaseName(of: $0) })
    #expect(cases == Set(registrationDomain.actionCases))
    // Whole registrations happen: people get registered and start over.
    #expect(
      actions.filter { if case .registrationSucceeded = $0 { true } else { false } }.count > 10)
  }

  @Test func actionsEncodeAsTheDocumentedJSON() throws {
    let json = #"{"edit":{"field":"username","value":"alice"}}"#
    let action = RegistrationAction.edit(field: .username, value: "alice")
    #expect(try JSONDecoder().decode(RegistrationAction.self, from: Data(json.utf8)) == action)
    let encoded = try JSONEncoder().encode(action)
    #expect(
      try JSONSerialization.jsonObject(with: encoded) as? NSDictionary
        == JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
  }
}
