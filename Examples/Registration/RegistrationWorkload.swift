import Retrace

/// Realistic sessions for the registration domain: one person after another fills in the
/// form on a shared sign-up kiosk.
///
/// The generator plays the user: it types the first name, last name, username (the first
/// name and the last name's initial, lowercased) and a password one keystroke at a time,
/// slips on a key now and then and erases the slip, sometimes taps Register too early and
/// keeps typing after seeing the broken rules, and taps Register when the form looks done.
/// It answers every registration itself, as the service would: mostly with a new user's
/// identifier, sometimes with "username taken" (the user then adds a digit) or "did not
/// answer" (the user tries again). After a success the next person starts over; rarely the
/// user goes back and clears a field first (a late edit), which trips the reducer's planted
/// bug.
public enum RegistrationWorkload {
  /// The workload of ``registrationDomain``.
  public static let workload = Workload<RegistrationState, RegistrationAction> {
    state, _, random in
    next(state, random: &random)
  }

  /// First names with distinct initials, so that what is typed so far names one of them.
  static let firstNames = [
    "Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Giulia", "Hiro", "Ines", "Jonas",
    "Kofi", "Lena", "Mateo", "Noor", "Olga", "Priya", "Zoë",
  ]
  /// Last names with distinct initials.
  static let lastNames = [
    "Andersen", "Bakker", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad",
    "Ivanova", "Jansen", "Kowalski", "Larsen", "Moreau", "Nakamura", "Okafor", "Petrov",
  ]
  /// The keys a password is typed with.
  static let passwordKeys = Array("abcdefghijkmnopqrstuvwxyz23456789!?#")

  static func next(_ state: RegistrationState, random: inout SeededRandom) -> RegistrationAction {
    let roll = Int.random(in: 0..<100, using: &random)
    switch state.status {
    case .submitting:
      // The service answers first, as the effect would.
      if roll < 82 {
        let number = Int.random(in: 0x10_0000...0xff_ffff, using: &random)
        return .registrationSucceeded(userID: "U-" + String(number, radix: 16))
      }
      if roll < 94 {
        return .registrationFailed(message: "The username \(state.form.username) is taken.")
      }
      return .registrationFailed(message: "The registration service did not answer.")

    case .registered:
      if roll < 97 { return .startOver }
      // A late edit: back on the form after registering, the user clears a field.
      let field = RegistrationField.allCases.randomElement(using: &random)!
      return .edit(field: field, value: "")

    case .failed(let message):
      if message.hasSuffix("is taken.") {
        let digit = Int.random(in: 0...9, using: &random)
        return .edit(field: .username, value: state.form.username + String(digit))
      }
      return .register

    case .editing:
      return type(state, roll: roll, random: &random)
    }
  }

  /// The next keystroke on the first field that is not done, or Register when every field
  /// looks done.
  private static func type(_ state: RegistrationState, roll: Int, random: inout SeededRandom)
    -> RegistrationAction
  {
    let form = state.form
    for field in RegistrationField.allCases {
      let value = form[field]
      let next: String?
      switch field {
      case .firstName:
        next = nextKeystroke(value, toward: firstNames, random: &random)
      case .lastName:
        next = nextKeystroke(value, toward: lastNames, random: &random)
      case .username:
        next = nextUsernameKeystroke(value, form: form)
      case .password:
        let told = state.brokenRules.contains { $0.field == .password }
        let looksDone =
          value.count >= 12
          || (value.count >= 6 && roll >= 70 && !(told && value.count < 8))
        next = looksDone ? nil : value + String(passwordKeys.randomElement(using: &random)!)
      }
      guard let next else { continue }
      // Too early a tap on Register; it shows the broken rules.
      if roll < 3 { return .register }
      // A slip of the finger, which the next keystroke erases.
      if roll < 7 && field != .password { return .edit(field: field, value: value + "q") }
      return .edit(field: field, value: next)
    }
    return .register
  }

  /// The field's next text on the way to one of `names`: the first letter of a random name,
  /// the next letter of the name typed so far, the text without its last character after a
  /// slip, or `nil` when a whole name is typed.
  private static func nextKeystroke(
    _ value: String, toward names: [String], random: inout SeededRandom
  ) -> String? {
    if value.isEmpty { return String(names.randomElement(using: &random)!.first!) }
    guard let name = names.first(where: { $0.hasPrefix(value) }) else {
      return String(value.dropLast())
    }
    if name == value { return nil }
    return String(name.prefix(value.count + 1))
  }

  /// The username's next text: it is the first name and the last name's initial, lowercased,
  /// with the digits a user adds when the service says a username is taken.
  private static func nextUsernameKeystroke(_ value: String, form: RegistrationForm) -> String? {
    let base = (form.firstName + form.lastName.prefix(1)).lowercased()
    if value.hasPrefix(base) && value.dropFirst(base.count).allSatisfy(\.isNumber) { return nil }
    if base.hasPrefix(value) { return String(base.prefix(value.count + 1)) }
    return String(value.dropLast())
  }
}
