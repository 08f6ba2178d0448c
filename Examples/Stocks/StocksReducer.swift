import Retrace

/// The stocks example's reducer: the quotes and the news, each a ``LoadableListReducer`` in a
/// ``Scope``, and `refreshAll`, which runs both lists' `refresh`.
///
/// ```swift
/// let store = Store(initialState: StocksState(),
///                   reducer: StocksReducer(quotes: { try await api.quotes() },
///                                          news: { try await api.topNews() }))
/// store.send(.refreshAll)   // both lists load, each in its own effect
/// ```
public struct StocksReducer: Reducer, Sendable {
  /// The identifier of the quotes' loading effect.
  public static let quotesEffectID = "stocks.quotes"
  /// The identifier of the news' loading effect.
  public static let newsEffectID = "stocks.news"

  private let quotes: Scope<StocksState, StocksAction, LoadableListReducer<Quote>>
  private let news: Scope<StocksState, StocksAction, LoadableListReducer<Article>>

  /// Creates the reducer.
  ///
  /// - Parameters:
  ///   - quotes: Loads the quotes; it runs in an effect, never during a replay.
  ///   - news: Loads the top news; it runs in an effect, never during a replay.
  public init(
    quotes: @escaping LoadableListReducer<Quote>.Loader,
    news: @escaping LoadableListReducer<Article>.Loader
  ) {
    self.quotes = Scope(
      state: \.quotes, action: StocksAction.quotesCase,
      child: LoadableListReducer(effectID: Self.quotesEffectID, loader: quotes))
    self.news = Scope(
      state: \.news, action: StocksAction.newsCase,
      child: LoadableListReducer(effectID: Self.newsEffectID, loader: news))
  }

  /// Applies a stocks action.
  ///
  /// - Parameters:
  ///   - state: The stocks state.
  ///   - action: The action.
  /// - Returns: The lists' loading effects and cancellations.
  public func reduce(into state: inout StocksState, action: StocksAction) -> Effect<StocksAction> {
    switch action {
    case .quotes:
      return quotes.reduce(into: &state, action: action)
    case .news:
      return news.reduce(into: &state, action: action)
    case .refreshAll:
      // Reduced here rather than sent back as two actions, so that a session records one
      // action for one pull, and a generated session needs no effects to be complete.
      let quotesEffect = quotes.reduce(into: &state, action: .quotes(action: .refresh))
      let newsEffect = news.reduce(into: &state, action: .news(action: .refresh))
      return quotesEffect.merge(with: newsEffect)
    }
  }
}
