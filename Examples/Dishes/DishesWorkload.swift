import Retrace

/// Realistic sessions for the dishes domain.
///
/// The generator plays a cook keeping a menu: it adds dishes from a list of well-known ones
/// (also while a search is on), types searches one keystroke at a time and clears them,
/// renames dishes it sees (marking them vegan and back), and removes some it sees.
public enum DishesWorkload {
  /// The workload of ``dishesDomain``.
  public static let workload = Workload<DishesState, DishesAction> { state, step, random in
    next(state, step: step, random: &random)
  }

  /// Dishes the cook adds, with their cuisines.
  static let menu: [(name: String, cuisine: String)] = [
    ("Pad Thai", "Thai"), ("Green Curry", "Thai"), ("Tom Yum", "Thai"),
    ("Margherita", "Italian"), ("Carbonara", "Italian"), ("Risotto ai Funghi", "Italian"),
    ("Ramen", "Japanese"), ("Sushi", "Japanese"), ("Okonomiyaki", "Japanese"),
    ("Tacos al Pastor", "Mexican"), ("Enchiladas", "Mexican"), ("Butter Chicken", "Indian"),
    ("Dal Makhani", "Indian"), ("Masala Dosa", "Indian"), ("Falafel", "Lebanese"),
    ("Hummus", "Lebanese"), ("Bibimbap", "Korean"), ("Pho", "Vietnamese"),
    ("Bánh Mì", "Vietnamese"), ("Paella", "Spanish"), ("Gazpacho", "Spanish"),
    ("Moussaka", "Greek"), ("Stamppot", "Dutch"), ("Crème Brûlée", "French"),
    ("Ratatouille", "French"),
  ]
  /// What the cook searches for, typed a keystroke at a time. Some match a name, some a
  /// cuisine, some nothing, and one has spaces around it.
  static let searches = [
    "thai", "curry", "ital", "ramen", "mex", "Indian", "dal", "kor", "pho", "greek", "crème",
    "soup", "pa", " sushi ",
  ]
  static let vegan = " (vegan)"

  static func next(_ state: DishesState, step: Int, random: inout SeededRandom) -> DishesAction {
    if state.dishes.count < 5 { return add(state, step: step, random: &random) }
    let visible = state.visibleDishes
    switch Int.random(in: 0..<100, using: &random) {
    case 0..<15:
      return add(state, step: step, random: &random)
    case 15..<25 where !visible.isEmpty:
      let dish = visible.randomElement(using: &random)!
      let name =
        dish.name.hasSuffix(vegan) ? String(dish.name.dropLast(vegan.count)) : dish.name + vegan
      return .renameDish(id: dish.id, name: name)
    case 25..<33 where !visible.isEmpty && state.dishes.count > 8:
      return .removeDish(id: visible.randomElement(using: &random)!.id)
    case 33..<43 where !state.searchTerm.isEmpty:
      return .search(term: "")
    default:
      return .search(term: keystroke(state.searchTerm, random: &random))
    }
  }

  /// A dish from the menu that is not on the list yet, if there is one.
  private static func add(_ state: DishesState, step: Int, random: inout SeededRandom)
    -> DishesAction
  {
    let names = Set(state.dishes.map(\.name))
    let candidates = menu.filter { !names.contains($0.name) && !names.contains($0.name + vegan) }
    let pick = (candidates.isEmpty ? menu : candidates).randomElement(using: &random)!
    // The step makes a new identifier for every dish ever added.
    return .addDish(id: step + 1, name: pick.name, cuisine: pick.cuisine)
  }

  /// The search field's next text: the next letter of a search being typed, a new search's
  /// first letter, or an empty field after a whole search.
  private static func keystroke(_ term: String, random: inout SeededRandom) -> String {
    if term.isEmpty { return String(searches.randomElement(using: &random)!.prefix(1)) }
    if let search = searches.first(where: { $0.hasPrefix(term) && $0 != term }) {
      return String(search.prefix(term.count + 1))
    }
    return ""
  }
}
