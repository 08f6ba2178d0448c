import Retrace

/// An error a registration service reports, with the message the screen shows.
public struct RegistrationError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The message for the user, such as "The username alice is taken.".
  public var message: String

  /// Creates an error.
  ///
  /// - Parameter message: The message for the user.
  public init(_ message: String) {
    self.message = message
  }

  /// The message.
  public var description: String { message }
}

/// The registration example's reducer: fields edited one keystroke at a time, validation on
/// Register, and the registration sent in an effect whose answer comes back as an action.
///
/// ```swift
/// let store = Store(initialState: RegistrationState(),
///                   reducer: RegistrationReducer(registrar: { form in try await api.register(form) }))
/// store.send(.register)            // an empty form: four broken rules, nothing sent
/// store.state.brokenRules.count    // 4
/// ```
///
/// It holds a planted bug, for the tutorial to find: an edit returns the status to
/// ``RegistrationStatus/editing`` only after a failure. An edit after a successful
/// registration leaves the status ``RegistrationStatus/registered(userID:)``, so clearing a
/// field then leaves a registered user with a form that breaks a rule, which the
/// `registered-only-when-valid` invariant catches. The fix: every edit sets the
/// status to editing and cancels a registration in flight.
public struct RegistrationReducer: Reducer, Sendable {
  /// Registers the user the form describes and returns the new user's identifier; a thrown
  /// error becomes `registrationFailed` with the error's description.
  public typealias Registrar = @Sendable (RegistrationForm) async throws -> String

  /// The identifier of the registering effect, for cancellation.
  public static let registerEffectID = "registration.register"

  private let registrar: Registrar

  /// Creates the reducer.
  ///
  /// - Parameter registrar: Sends a valid form to the registration service; it runs in an
  ///   effect, never during a replay.
  public init(registrar: @escaping Registrar) {
    self.registrar = registrar
  }

  /// Applies a registration action.
  ///
  /// - Parameters:
  ///   - state: The registration state.
  ///   - action: The action.
  /// - Returns: The registering effect for a valid `register`, its cancellation for
  ///   `startOver`, otherwise none.
  public func reduce(into state: inout RegistrationState, action: RegistrationAction) -> Effect<
    RegistrationAction
  > {
    switch action {
    case .edit(let field, let value):
      state.form[field] = value
      // The planted bug (see the type's documentation): only a failure goes back to editing.
      if case .failed = state.status { state.status = .editing }
      return .none

    case .register:
      // The Register button is disabled while a registration is in flight.
      if state.status == .submitting { return .none }
      state.brokenRules = state.form.brokenRules
      guard state.brokenRules.isEmpty else {
        state.status = .editing
        return .none
      }
      state.status = .submitting
      let form = state.form
      let registrar = self.registrar
      return .run { send in
        await send(.registrationSucceeded(userID: try await registrar(form)))
      } catch: { error, send in
        await send(.registrationFailed(message: String(describing: error)))
      }
      .cancellable(id: Self.registerEffectID, cancelInFlight: true)

    case .registrationSucceeded(let userID):
      // An answer to a registration that was abandoned is dropped.
      guard state.status == .submitting else { return .none }
      state.status = .registered(userID: userID)
      return .none

    case .registrationFailed(let message):
      guard state.status == .submitting else { return .none }
      state.status = .failed(message: message)
      return .none

    case .startOver:
      state = RegistrationState()
      return .cancel(id: Self.registerEffectID)
    }
  }
}
