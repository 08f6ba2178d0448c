import Retrace

/// What `retrace check` may send in a stocks state: pull to refresh, and for each list its
/// refresh, and while it loads its cancel, the loader's two answers to the load in flight,
/// and a late answer to the load before it (a result that arrives after a newer load
/// started, which the reducer must drop).
///
/// At most 11 actions a state. Load numbers grow with every refresh, so ``constraint``
/// stops exploring a list past its third load: 441 states, searched completely in well
/// under a second.
public enum StocksExploration {
  /// The loader's failure message.
  public static let failure = "The network connection was lost."

  /// The actions that may be sent in `state`.
  @Sendable public static func actions(in state: StocksState) -> [StocksAction] {
    [.refreshAll]
      + listActions(state.quotes, items: Quote.samples).map { .quotes(action: $0) }
      + listActions(state.news, items: Article.samples).map { .news(action: $0) }
  }

  /// Which states are explored further: each list at most at its third load.
  @Sendable public static func constraint(_ state: StocksState) -> Bool {
    state.quotes.latestLoad <= 3 && state.news.latestLoad <= 3
  }

  private static func listActions<Item>(_ list: LoadableList<Item>, items: [Item])
    -> [LoadableListAction<Item>]
  {
    var actions: [LoadableListAction<Item>] = [.refresh]
    if list.isLoading {
      actions.append(.cancel)
      actions.append(.loaded(load: list.latestLoad, items: items))
      actions.append(.failed(load: list.latestLoad, message: failure))
      if list.latestLoad > 1 {
        actions.append(.loaded(load: list.latestLoad - 1, items: items))
      }
    }
    return actions
  }
}

/// Named conditions `retrace check --reach` can search for in a stocks state.
public let stocksPredicates: [StatePredicate<StocksState>] = [
  StatePredicate("both-loaded", "Both lists show their latest load.") {
    if case .loaded = $0.quotes.status, case .loaded = $0.news.status { true } else { false }
  },
  StatePredicate("failed-after-loading", "The quotes failed to refresh after a load succeeded.") {
    if case .failed = $0.quotes.status { !$0.quotes.items.isEmpty } else { false }
  },
]
