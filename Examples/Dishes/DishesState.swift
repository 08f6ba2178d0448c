import IdentifiedCollections

/// A dish on the menu.
public struct Dish: Codable, Hashable, Sendable, Identifiable {
  /// The dish's identifier, which actions name it by.
  public var id: Int
  /// The dish's name, such as "Pad Thai".
  public var name: String
  /// The kitchen it comes from, such as "Thai".
  public var cuisine: String

  /// Creates a dish.
  ///
  /// - Parameters:
  ///   - id: The dish's identifier.
  ///   - name: The dish's name.
  ///   - cuisine: The kitchen it comes from.
  public init(id: Int, name: String, cuisine: String) {
    self.id = id
    self.name = name
    self.cuisine = cuisine
  }

  /// Whether the dish matches a search term: the term, without surrounding spaces, is empty
  /// or is part of the dish's name or cuisine, ignoring letter case.
  ///
  /// - Parameter term: What the user typed into the search field.
  /// - Returns: Whether the search shows the dish.
  public func matches(_ term: String) -> Bool {
    let needle = DishesState.searchKey(term)
    return needle.isEmpty || name.lowercased().contains(needle)
      || cuisine.lowercased().contains(needle)
  }
}

/// The dishes screen's state: the list and the search term. What the screen shows,
/// ``visibleDishes``, is computed from the two and never stored.
public struct DishesState: Codable, Hashable, Sendable {
  /// Every dish, in the order they were added.
  public var dishes: IdentifiedArrayOf<Dish>
  /// What the user typed into the search field, as typed.
  public var searchTerm: String

  /// Creates a dishes state.
  ///
  /// - Parameters:
  ///   - dishes: The dishes on the list.
  ///   - searchTerm: The search field's text.
  public init(dishes: IdentifiedArrayOf<Dish> = [], searchTerm: String = "") {
    self.dishes = dishes
    self.searchTerm = searchTerm
  }

  /// The dishes the search shows, in the list's order: all of them for an empty term.
  ///
  /// Derived on every read rather than stored, so that it cannot disagree with ``dishes``
  /// and ``searchTerm``: adding, renaming or removing a dish while a search is on shows at
  /// once.
  public var visibleDishes: [Dish] {
    let key = Self.searchKey(searchTerm)
    if key.isEmpty { return Array(dishes) }
    return dishes.filter { $0.matches(key) }
  }

  /// Whether `visible` is what the search shows: exactly the dishes of `dishes` that match
  /// `term`, each once, in the order of `dishes`. The `visible-matches-search` invariant
  /// checks ``visibleDishes`` with it.
  ///
  /// - Parameters:
  ///   - visible: A list the screen would show.
  ///   - dishes: All the dishes.
  ///   - term: The search term.
  /// - Returns: Whether `visible` is the search's result.
  public static func isSearchResult(
    _ visible: [Dish], of dishes: IdentifiedArrayOf<Dish>, for term: String
  ) -> Bool {
    var next = visible.startIndex
    for dish in dishes where dish.matches(term) {
      guard next < visible.endIndex, visible[next] == dish else { return false }
      next += 1
    }
    return next == visible.endIndex
  }

  /// The term as the search compares it: without surrounding spaces, lowercased.
  static func searchKey(_ term: String) -> String {
    var key = Substring(term)
    while key.first == " " { key.removeFirst() }
    while key.last == " " { key.removeLast() }
    return key.lowercased()
  }
}
