/// The dishes example's actions.
///
/// Encoded as Swift synthesizes them, for example
/// `{"addDish":{"id":7,"name":"Pad Thai","cuisine":"Thai"}}` or `{"search":{"term":"th"}}`.
public enum DishesAction: Codable, Equatable, Sendable {
  /// Adds a dish at the end of the list; an identifier already on the list is ignored.
  case addDish(id: Int, name: String, cuisine: String)
  /// Renames a dish, such as to fix a typo.
  case renameDish(id: Int, name: String)
  /// Removes a dish from the list.
  case removeDish(id: Int)
  /// The search field's whole new text (one keystroke, a paste, or empty to show all).
  case search(term: String)

  /// One action of each case, in the order tools list them.
  public static let samples: [DishesAction] = [
    .addDish(id: 0, name: "", cuisine: ""), .renameDish(id: 0, name: ""), .removeDish(id: 0),
    .search(term: ""),
  ]
}
