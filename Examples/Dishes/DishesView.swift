// The dishes screen in SwiftUI. SwiftUI exists only on Apple platforms, so this file is
// compiled there only; keep it a thin view: every change goes through an action.
#if canImport(SwiftUI)
  import Retrace
  import SwiftUI

  /// The dishes screen: a searchable list that shows the dishes the search matches.
  public struct DishesView: View {
    /// The store the screen reads and sends to.
    public let store: Store<DishesState, DishesAction>

    /// Creates the screen.
    ///
    /// - Parameter store: The store the screen reads and sends to.
    public init(store: Store<DishesState, DishesAction>) {
      self.store = store
    }

    /// The screen's content.
    public var body: some View {
      List {
        ForEach(store.visibleDishes) { dish in
          VStack(alignment: .leading) {
            Text(dish.name)
            Text(dish.cuisine).font(.footnote).foregroundStyle(.secondary)
          }
        }
        .onDelete { offsets in
          let visible = store.visibleDishes
          for offset in offsets { store.send(.removeDish(id: visible[offset].id)) }
        }
      }
      .searchable(text: searchTerm)
    }

    /// A binding that reads the search term from the store and sends `search` for every
    /// change.
    private var searchTerm: Binding<String> {
      let store = self.store
      return Binding(
        get: { MainActor.assumeIsolated { store.searchTerm } },
        set: { term in MainActor.assumeIsolated { store.send(.search(term: term)) } }
      )
    }
  }
#endif
