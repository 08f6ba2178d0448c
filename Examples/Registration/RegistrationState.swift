/// A field of the registration form.
public enum RegistrationField: String, Codable, CaseIterable, Hashable, Sendable {
  /// The user's first name.
  case firstName
  /// The user's last name.
  case lastName
  /// The name the user signs in with.
  case username
  /// The user's password.
  case password
}

/// A validation rule the form breaks: the field it is about and the message the screen shows
/// beside that field.
public struct BrokenRule: Codable, Hashable, Sendable {
  /// The field the rule is about.
  public var field: RegistrationField
  /// What the user must change, such as "Firstname should not be empty".
  public var message: String

  /// Creates a broken rule.
  ///
  /// - Parameters:
  ///   - field: The field the rule is about.
  ///   - message: What the user must change.
  public init(field: RegistrationField, message: String) {
    self.field = field
    self.message = message
  }
}

/// What the user typed into the registration form.
public struct RegistrationForm: Codable, Hashable, Sendable {
  /// The user's first name.
  public var firstName: String
  /// The user's last name.
  public var lastName: String
  /// The name the user signs in with.
  public var username: String
  /// The user's password.
  public var password: String

  /// The shortest username the form accepts.
  public static let minimumUsernameLength = 3
  /// The shortest password the form accepts.
  public static let minimumPasswordLength = 8

  /// Creates a form.
  ///
  /// - Parameters:
  ///   - firstName: The user's first name.
  ///   - lastName: The user's last name.
  ///   - username: The name the user signs in with.
  ///   - password: The user's password.
  public init(
    firstName: String = "", lastName: String = "", username: String = "", password: String = ""
  ) {
    self.firstName = firstName
    self.lastName = lastName
    self.username = username
    self.password = password
  }

  /// The value of one field.
  public subscript(field: RegistrationField) -> String {
    get {
      switch field {
      case .firstName: firstName
      case .lastName: lastName
      case .username: username
      case .password: password
      }
    }
    set {
      switch field {
      case .firstName: firstName = newValue
      case .lastName: lastName = newValue
      case .username: username = newValue
      case .password: password = newValue
      }
    }
  }

  /// The rules the form breaks now, in the order of the fields; empty when it is valid.
  ///
  /// Lengths count characters (`"née"` is three), as the user sees them.
  public var brokenRules: [BrokenRule] {
    var rules: [BrokenRule] = []
    if firstName.isEmpty {
      rules.append(BrokenRule(field: .firstName, message: "Firstname should not be empty"))
    }
    if lastName.isEmpty {
      rules.append(BrokenRule(field: .lastName, message: "Lastname should not be empty"))
    }
    if username.count < Self.minimumUsernameLength {
      rules.append(
        BrokenRule(
          field: .username,
          message: "Username should be at least \(Self.minimumUsernameLength) characters"))
    }
    if password.count < Self.minimumPasswordLength {
      rules.append(
        BrokenRule(
          field: .password,
          message: "Password should be at least \(Self.minimumPasswordLength) characters"))
    }
    return rules
  }
}

/// Where a registration stands.
///
/// Encoded as Swift synthesizes it: `{"editing":{}}`, `{"registered":{"userID":"U-1f3a"}}`.
public enum RegistrationStatus: Codable, Hashable, Sendable {
  /// The user is filling in the form.
  case editing
  /// The form was valid and was sent; the answer has not come yet.
  case submitting
  /// The registration succeeded and the user has this identifier.
  case registered(userID: String)
  /// The registration was refused or could not be sent, with a message for the user.
  case failed(message: String)
}

/// The registration screen's state: the form, the rules the last `register` found broken,
/// and where the registration stands.
public struct RegistrationState: Codable, Hashable, Sendable {
  /// What the user typed.
  public var form: RegistrationForm
  /// The rules the form broke when the user last tapped Register, shown beside the fields
  /// until the next tap.
  public var brokenRules: [BrokenRule]
  /// Where the registration stands.
  public var status: RegistrationStatus

  /// Creates a registration state; the default is an empty form that nobody has submitted.
  ///
  /// - Parameters:
  ///   - form: What the user typed.
  ///   - brokenRules: The rules the last `register` found broken.
  ///   - status: Where the registration stands.
  public init(
    form: RegistrationForm = RegistrationForm(), brokenRules: [BrokenRule] = [],
    status: RegistrationStatus = .editing
  ) {
    self.form = form
    self.brokenRules = brokenRules
    self.status = status
  }

  /// The identifier of the registered user, or `nil` while nobody is registered.
  public var registeredUserID: String? {
    if case .registered(let userID) = status { userID } else { nil }
  }
}
