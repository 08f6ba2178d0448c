import Retrace

/// The dishes example's reducer: it changes the list and the search term, and nothing else,
/// since what the screen shows is derived from those two (``DishesState/visibleDishes``).
public struct DishesReducer: Reducer, Sendable {
  /// Creates the reducer.
  public init() {}

  /// Applies a dishes action.
  ///
  /// - Parameters:
  ///   - state: The dishes state.
  ///   - action: The action.
  /// - Returns: No effect.
  public func reduce(into state: inout DishesState, action: DishesAction) -> Effect<DishesAction> {
    switch action {
    case .addDish(let id, let name, let cuisine):
      if state.dishes[id: id] == nil {
        state.dishes.append(Dish(id: id, name: name, cuisine: cuisine))
      }
    case .renameDish(let id, let name):
      state.dishes[id: id]?.name = name
    case .removeDish(let id):
      state.dishes.remove(id: id)
    case .search(let term):
      state.searchTerm = term
    }
    return .none
  }
}
