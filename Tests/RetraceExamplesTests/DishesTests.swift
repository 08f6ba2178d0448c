import Foundation
import IdentifiedCollections
import Retrace
import RetraceExamples
import RetraceTesting
import Testing

@MainActor
@Suite struct DishesTests {
  static let padThai = Dish(id: 1, name: "Pad Thai", cuisine: "Thai")
  static let carbonara = Dish(id: 2, name: "Carbonara", cuisine: "Italian")
  static let curry = Dish(id: 3, name: "Green Curry", cuisine: "Thai")

  func holds(_ state: DishesState) -> Bool {
    dishesDomain.invariant(named: "visible-matches-search")!.holds(state)
  }

  @Test func theVisibleListFollowsEveryChangeWhileASearchIsOn() async {
    let store = TestStore(initialState: DishesState(), reducer: DishesReducer())
    await store.send(.addDish(id: 1, name: "Pad Thai", cuisine: "Thai")) {
      $0.dishes = [Self.padThai]
    }
    await store.send(.addDish(id: 2, name: "Carbonara", cuisine: "Italian")) {
      $0.dishes.append(Self.carbonara)
    }
    await store.send(.search(term: "th")) { $0.searchTerm = "th" }
    #expect(store.state.visibleDishes == [Self.padThai])
    // Added, renamed and removed while searching: the visible list follows at once.
    await store.send(.addDish(id: 3, name: "Green Curry", cuisine: "Thai")) {
      $0.dishes.append(Self.curry)
    }
    #expect(store.state.visibleDishes == [Self.padThai, Self.curry])
    await store.send(.renameDish(id: 2, name: "Thai Basil Pasta")) {
      $0.dishes[id: 2]?.name = "Thai Basil Pasta"
    }
    #expect(store.state.visibleDishes.map(\.id) == [1, 2, 3])
    await store.send(.removeDish(id: 1)) { $0.dishes.remove(id: 1) }
    #expect(store.state.visibleDishes.map(\.id) == [2, 3])
    await store.send(.search(term: "")) { $0.searchTerm = "" }
    #expect(store.state.visibleDishes.map(\.id) == [2, 3])
    await store.finish()
  }

  @Test func anIdentifierAlreadyOnTheListIsIgnored() async {
    let store = TestStore(
      initialState: DishesState(dishes: [Self.padThai]), reducer: DishesReducer())
    await store.send(.addDish(id: 1, name: "Ramen", cuisine: "Japanese"))
    await store.send(.renameDish(id: 9, name: "Nothing"))
    await store.send(.removeDish(id: 9))
    await store.finish()
  }

  @Test func theSearchIgnoresCaseAndSurroundingSpacesAndReadsTheCuisine() {
    let state = DishesState(
      dishes: [Self.padThai, Self.carbonara, Self.curry], searchTerm: "  ITAL ")
    #expect(state.visibleDishes == [Self.carbonara])
    #expect(DishesState(dishes: [Self.padThai], searchTerm: "   ").visibleDishes == [Self.padThai])
    #expect(DishesState(dishes: [Self.padThai], searchTerm: "sushi").visibleDishes.isEmpty)
    #expect(Dish(id: 4, name: "Crème Brûlée", cuisine: "French").matches("CRÈME"))
  }

  @Test func theInvariantHoldsOnTheDerivedList() {
    #expect(holds(DishesState()))
    #expect(
      holds(DishesState(dishes: [Self.padThai, Self.carbonara, Self.curry], searchTerm: "thai")))
  }

  @Test func theSearchResultCheckRejectsAMissingAnExtraADuplicateOrAReorderedDish() {
    let dishes: IdentifiedArrayOf<Dish> = [Self.padThai, Self.carbonara, Self.curry]
    func isResult(_ visible: [Dish]) -> Bool {
      DishesState.isSearchResult(visible, of: dishes, for: "thai")
    }
    #expect(isResult([Self.padThai, Self.curry]))
    #expect(!isResult([Self.padThai]))
    #expect(!isResult([Self.padThai, Self.carbonara, Self.curry]))
    #expect(!isResult([Self.padThai, Self.curry, Self.curry]))
    #expect(!isResult([Self.curry, Self.padThai]))
    // A list stored beside the dishes and not updated on a rename: the bug derived state avoids.
    var renamed = dishes
    renamed[id: 1]?.name = "Pad Thai (vegan)"
    #expect(!DishesState.isSearchResult([Self.padThai, Self.curry], of: renamed, for: "thai"))
  }

  @Test func theWorkloadIsDeterministicAndPlaysEveryCase() {
    let (actions, final) = dishesDomain.generate(count: 1_000, seed: 2)
    #expect(dishesDomain.generate(count: 1_000, seed: 2).actions == actions)
    #expect(dishesDomain.generate(count: 1_000, seed: 3).actions != actions)
    #expect(Set(actions.map { actionCaseName(of: $0) }) == Set(dishesDomain.actionCases))
    #expect(holds(final))
    // Searches narrow the list at times: the session exercises the derived state.
    var state = dishesDomain.initialState
    var narrowed = 0
    for action in actions {
      _ = dishesDomain.reduce(into: &state, action: action)
      if state.visibleDishes.count < state.dishes.count { narrowed += 1 }
    }
    #expect(narrowed > 100)
  }

  @Test func actionsEncodeAsTheDocumentedJSON() throws {
    let json = #"{"addDish":{"id":7,"name":"Pad Thai","cuisine":"Thai"}}"#
    let action = DishesAction.addDish(id: 7, name: "Pad Thai", cuisine: "Thai")
    #expect(try JSONDecoder().decode(DishesAction.self, from: Data(json.utf8)) == action)
    #expect(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(action)) as? NSDictionary
        == JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
  }
}
