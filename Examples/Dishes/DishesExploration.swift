import Retrace

/// What `retrace check` may send in a dishes state: adding each of three dishes not on the
/// list, renaming a dish on it (to its other name), removing one, and typing one of four
/// search terms (empty, a cuisine, one with spaces and capitals, one that matches nothing).
///
/// At most 9 actions a state. The lists of up to three dishes, in any order, with either
/// name each, times the four terms make 316 states, searched completely in well under a
/// second.
public enum DishesExploration {
  /// The dishes that may be added: identifier, name, the other name a rename gives, and
  /// cuisine.
  public static let dishes: [(id: Int, name: String, otherName: String, cuisine: String)] = [
    (1, "Pad Thai", "Pad See Ew", "Thai"),
    (2, "Margherita", "Marinara", "Italian"),
    (3, "Green curry", "Red curry", "Thai"),
  ]

  /// The search terms that may be typed.
  public static let terms = ["", "thai", "  CURRY ", "sushi"]

  /// The actions that may be sent in `state`.
  @Sendable public static func actions(in state: DishesState) -> [DishesAction] {
    var actions: [DishesAction] = []
    for dish in dishes {
      if let current = state.dishes[id: dish.id] {
        let name = current.name == dish.name ? dish.otherName : dish.name
        actions.append(.renameDish(id: dish.id, name: name))
        actions.append(.removeDish(id: dish.id))
      } else {
        actions.append(.addDish(id: dish.id, name: dish.name, cuisine: dish.cuisine))
      }
    }
    for term in terms where term != state.searchTerm {
      actions.append(.search(term: term))
    }
    return actions
  }
}

/// Named conditions `retrace check --reach` can search for in a dishes state.
public let dishesPredicates: [StatePredicate<DishesState>] = [
  StatePredicate("search-hides-a-dish", "The search hides a dish on the list.") {
    $0.visibleDishes.count < $0.dishes.count
  },
  StatePredicate("renamed-match", "A renamed dish is shown by a search that is on.") { state in
    !state.searchTerm.isEmpty
      && state.visibleDishes.contains { dish in
        DishesExploration.dishes.contains { $0.id == dish.id && $0.otherName == dish.name }
      }
  },
]
