import Retrace

/// The `dishes` domain: a list of dishes with a search field, whose visible list is derived
/// state.
public let dishesDomain = DomainDefinition(
  name: "dishes",
  summary: "A list of dishes with a search field; the visible list is derived, never stored.",
  initialState: DishesState(),
  reducer: DishesReducer(),
  sampleActions: DishesAction.samples,
  invariants: dishesInvariants,
  workload: DishesWorkload.workload,
  explorationActions: DishesExploration.actions,
  predicates: dishesPredicates,
  statesHashEveryField: true
)

/// The dishes domain's invariants.
public let dishesInvariants: [Invariant<DishesState>] = [
  Invariant(
    "visible-matches-search",
    "The visible dishes are exactly those whose name or cuisine contains the search term, in the list's order."
  ) {
    DishesState.isSearchResult($0.visibleDishes, of: $0.dishes, for: $0.searchTerm)
  }
]
