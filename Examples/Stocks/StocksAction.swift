import Retrace

/// The stocks example's actions: each list's own actions, and a refresh of both.
///
/// Encoded with labelled values, for example `{"quotes":{"action":{"refresh":{}}}}`,
/// `{"news":{"action":{"failed":{"load":2,"message":"offline"}}}}` or `{"refreshAll":{}}`.
public enum StocksAction: Codable, Equatable, Sendable {
  /// An action of the quotes list.
  case quotes(action: LoadableListAction<Quote>)
  /// An action of the news list.
  case news(action: LoadableListAction<Article>)
  /// Pull to refresh: refreshes both lists.
  case refreshAll

  /// One action of each case, in the order tools list them.
  public static let samples: [StocksAction] = [
    .quotes(action: .refresh), .news(action: .refresh), .refreshAll,
  ]

  /// How quotes actions are embedded in stocks actions, for ``Retrace/Scope``.
  public static let quotesCase = ActionCase<StocksAction, LoadableListAction<Quote>>(
    embed: { .quotes(action: $0) },
    extract: { if case .quotes(let action) = $0 { action } else { nil } }
  )

  /// How news actions are embedded in stocks actions, for ``Retrace/Scope``.
  public static let newsCase = ActionCase<StocksAction, LoadableListAction<Article>>(
    embed: { .news(action: $0) },
    extract: { if case .news(let action) = $0 { action } else { nil } }
  )
}
