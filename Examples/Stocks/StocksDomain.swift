import Retrace

/// The `stocks` domain: one screen of stock quotes and top news, two lists that load with
/// effects and show loading, loaded, failed and cancelled states.
///
/// Its loaders return ``Quote/samples`` and ``Article/samples``; replays never run them,
/// since the results are recorded as `loaded` and `failed` actions.
public let stocksDomain = DomainDefinition(
  name: "stocks",
  summary: "Stock quotes and top news on one screen, two lists that load, fail and cancel.",
  initialState: StocksState(),
  reducer: StocksReducer(quotes: { Quote.samples }, news: { Article.samples }),
  sampleActions: StocksAction.samples,
  invariants: stocksInvariants,
  workload: StocksWorkload.workload,
  explorationActions: StocksExploration.actions,
  stateConstraint: StocksExploration.constraint,
  predicates: stocksPredicates,
  statesHashEveryField: true
)

/// The stocks domain's invariants.
public let stocksInvariants: [Invariant<StocksState>] = [
  Invariant(
    "no-stale-load",
    "Each list's status is about its latest load: a load's result never lands after a newer load started."
  ) {
    $0.quotes.statusIsAboutLatestLoad && $0.news.statusIsAboutLatestLoad
  }
]
