import Retrace

/// Realistic sessions for the stocks domain.
///
/// The generator plays a user watching the screen and the services answering it: it opens
/// the screen (`refreshAll`), answers each load in flight (mostly with quotes or articles,
/// sometimes with a failure), refreshes one list or both, sometimes pulls to refresh again
/// while a load is in flight (which replaces it), cancels a slow refresh now and then, and
/// rarely lets a replaced load's result arrive late, which the reducer drops.
public enum StocksWorkload {
  /// The workload of ``stocksDomain``.
  public static let workload = Workload<StocksState, StocksAction> { state, step, random in
    next(state, step: step, random: &random)
  }

  /// The symbols on the list, with their prices in cents around which quotes move.
  static let symbols: [(symbol: String, price: Int)] = [
    ("AAPL", 23_400), ("MSFT", 51_300), ("ASML", 71_000), ("NVDA", 18_200), ("SAP", 24_100),
    ("TSLA", 42_800), ("ADYEN", 150_600), ("SHEL", 3_050),
  ]
  static let headlines = [
    "Chip makers rally on strong demand", "Central bank holds rates steady",
    "Oil slips as supply rises", "Payments firm beats forecasts", "Carmaker recalls sedans",
    "Index closes at a record high", "Software giant opens new data centre",
    "Regulators question merger",
  ]
  static let sources = ["Markets Daily", "The Ledger", "Ticker Wire"]
  static let failures = [
    "The network connection was lost.", "The request timed out.",
    "The server returned status 503.",
  ]

  static func next(_ state: StocksState, step: Int, random: inout SeededRandom) -> StocksAction {
    if step == 0 { return .refreshAll }
    let roll = Int.random(in: 0..<100, using: &random)
    let quotesLoading = state.quotes.isLoading
    let newsLoading = state.news.isLoading
    // Nothing in flight: a pull to refresh both, or a tap on one list's refresh.
    if !quotesLoading && !newsLoading && roll < 35 { return .refreshAll }
    // Which list acts: a loading one first, since its answer is due.
    let quotesAct = quotesLoading == newsLoading ? Bool.random(using: &random) : quotesLoading
    if quotesAct {
      return .quotes(
        action: act(on: state.quotes, roll: roll, random: &random) { random in
          makeQuotes(step: step, random: &random)
        })
    }
    return .news(
      action: act(on: state.news, roll: roll, random: &random) { random in
        makeArticles(step: step, random: &random)
      })
  }

  /// One list's next action: an answer to its load in flight, or a refresh.
  private static func act<Item>(
    on list: LoadableList<Item>, roll: Int, random: inout SeededRandom,
    items: (inout SeededRandom) -> [Item]
  ) -> LoadableListAction<Item> {
    guard case .loading(let load) = list.status else { return .refresh }
    switch roll {
    case 0..<74: return .loaded(load: load, items: items(&random))
    case 74..<84: return .failed(load: load, message: failures.randomElement(using: &random)!)
    case 84..<90: return .cancel
    case 90..<96: return .refresh
    default:
      // A late result of the load this one replaced, which the reducer drops.
      if load > 1 { return .loaded(load: load - 1, items: items(&random)) }
      return .loaded(load: load, items: items(&random))
    }
  }

  /// Quotes for every symbol, each a little above or below its usual price.
  private static func makeQuotes(step: Int, random: inout SeededRandom) -> [Quote] {
    symbols.map { symbol, price in
      let change = Int.random(in: -300...300, using: &random)
      return Quote(symbol: symbol, price: price + price * change / 10_000, change: change)
    }
  }

  /// Three to five articles, the newest with identifiers that grow with the step.
  private static func makeArticles(step: Int, random: inout SeededRandom) -> [Article] {
    (0..<Int.random(in: 3...5, using: &random)).map { offset in
      Article(
        id: step * 10 + offset, headline: headlines.randomElement(using: &random)!,
        source: sources.randomElement(using: &random)!)
    }
  }
}
