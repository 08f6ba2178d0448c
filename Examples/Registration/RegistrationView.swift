// The registration screen in SwiftUI. SwiftUI exists only on Apple platforms, so this file is
// compiled there only; keep it a thin view: every change goes through an action.
#if canImport(SwiftUI)
  import Retrace
  import SwiftUI

  /// The registration screen: the four fields, the broken rules beside them, a Register
  /// button, and where the registration stands.
  public struct RegistrationView: View {
    /// The store the screen reads and sends to.
    public let store: Store<RegistrationState, RegistrationAction>

    /// Creates the screen.
    ///
    /// - Parameter store: The store the screen reads and sends to.
    public init(store: Store<RegistrationState, RegistrationAction>) {
      self.store = store
    }

    /// The screen's content.
    public var body: some View {
      Form {
        Section {
          field("First name", .firstName)
          field("Last name", .lastName)
          field("Username", .username)
          SecureField("Password", text: text(.password))
          rules(for: .password)
        }
        Section {
          Button("Register") { store.send(.register) }
            .disabled(store.status == .submitting)
          switch store.status {
          case .editing: EmptyView()
          case .submitting: ProgressView()
          case .registered(let userID): Text("Registered as \(userID)")
          case .failed(let message): Text(message).foregroundStyle(.red)
          }
          Button("Register someone else") { store.send(.startOver) }
        }
      }
    }

    private func field(_ title: String, _ field: RegistrationField) -> some View {
      VStack(alignment: .leading) {
        TextField(title, text: text(field))
        rules(for: field)
      }
    }

    private func rules(for field: RegistrationField) -> some View {
      ForEach(store.brokenRules.filter { $0.field == field }, id: \.self) { rule in
        Text(rule.message).font(.footnote).foregroundStyle(.red)
      }
    }

    /// A binding that reads the field from the store and sends `edit` for every change.
    private func text(_ field: RegistrationField) -> Binding<String> {
      let store = self.store
      return Binding(
        get: { MainActor.assumeIsolated { store.form[field] } },
        set: { value in
          MainActor.assumeIsolated { store.send(.edit(field: field, value: value)) }
        }
      )
    }
  }
#endif
