// The parcel screen in SwiftUI. SwiftUI exists only on Apple platforms, so this file is
// compiled there only; keep it a thin view: every change goes through an action.
#if canImport(SwiftUI)
  import Retrace
  import SwiftUI

  /// The parcel screen: the summary line, the recipient's fields and the contents.
  ///
  /// The outside model's changes reach it through the store, where an
  /// ``Retrace/ExternalModelAdapter`` records them; the view only reads the store.
  public struct PackageView: View {
    /// The store the screen reads and sends to.
    public let store: Store<PackageState, PackageAction>
    @SwiftUI.State private var newItem = ""

    /// Creates the screen.
    ///
    /// - Parameter store: The store the screen reads and sends to.
    public init(store: Store<PackageState, PackageAction>) {
      self.store = store
    }

    /// The screen's content.
    public var body: some View {
      Form {
        Section {
          Text(store.summary).font(.headline)
        }
        Section("Recipient") {
          TextField("First name", text: text(.firstName))
          TextField("Last name", text: text(.lastName))
          TextField("Postal address", text: text(.postalAddress))
        }
        Section("Contents") {
          ForEach(Array(store.parcel.contents.enumerated()), id: \.offset) { item in
            Text(item.element)
          }
          .onDelete { offsets in
            for index in offsets.sorted(by: >) { store.send(.removeItem(index: index)) }
          }
          HStack {
            TextField("Item", text: $newItem)
            Button("Add") {
              store.send(.addItem(name: newItem))
              newItem = ""
            }
            .disabled(newItem.isEmpty)
          }
        }
      }
    }

    /// A binding that reads a recipient field from the store and sends `edit` for every
    /// change.
    private func text(_ field: RecipientField) -> Binding<String> {
      let store = self.store
      return Binding(
        get: { MainActor.assumeIsolated { store.parcel.recipient[field] } },
        set: { value in
          MainActor.assumeIsolated { store.send(.edit(field: field, value: value)) }
        }
      )
    }
  }
#endif
