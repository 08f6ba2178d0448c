/// A stock's quote.
public struct Quote: Codable, Hashable, Sendable, Identifiable {
  /// The ticker symbol, such as `AAPL`; it identifies the quote.
  public var symbol: String
  /// The last price, in cents.
  public var price: Int
  /// The change since the previous close, in hundredths of a percent (`-125` is -1.25%).
  public var change: Int

  /// The quote's identifier: its symbol.
  public var id: String { symbol }

  /// Creates a quote.
  ///
  /// - Parameters:
  ///   - symbol: The ticker symbol.
  ///   - price: The last price, in cents.
  ///   - change: The change since the previous close, in hundredths of a percent.
  public init(symbol: String, price: Int, change: Int) {
    self.symbol = symbol
    self.price = price
    self.change = change
  }

  /// The price as the list shows it, such as `234.12`.
  public var priceText: String { Self.hundredths(price, sign: false) }

  /// The change as the list shows it, such as `+0.85%` or `-1.25%`.
  public var changeText: String { Self.hundredths(change, sign: true) + "%" }

  /// `value` hundredths as a decimal with two digits after the point.
  private static func hundredths(_ value: Int, sign: Bool) -> String {
    let magnitude = value.magnitude
    let fraction = magnitude % 100
    let digits = "\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    if value < 0 { return "-" + digits }
    return sign ? "+" + digits : digits
  }

  /// A few quotes, for the example domain's loader and for previews.
  public static let samples: [Quote] = [
    Quote(symbol: "AAPL", price: 23_412, change: 85),
    Quote(symbol: "MSFT", price: 51_290, change: -32),
    Quote(symbol: "ASML", price: 71_005, change: 210),
  ]
}

/// A news article.
public struct Article: Codable, Hashable, Sendable, Identifiable {
  /// The article's identifier.
  public var id: Int
  /// The headline.
  public var headline: String
  /// Who published it.
  public var source: String

  /// Creates an article.
  ///
  /// - Parameters:
  ///   - id: The article's identifier.
  ///   - headline: The headline.
  ///   - source: Who published it.
  public init(id: Int, headline: String, source: String) {
    self.id = id
    self.headline = headline
    self.source = source
  }

  /// A few articles, for the example domain's loader and for previews.
  public static let samples: [Article] = [
    Article(id: 1, headline: "Chip makers rally on strong demand", source: "Markets Daily"),
    Article(id: 2, headline: "Central bank holds rates steady", source: "The Ledger"),
  ]
}

/// The stocks screen's state: two lists that load independently, the quotes and the top
/// news.
public struct StocksState: Codable, Hashable, Sendable {
  /// The stock quotes.
  public var quotes: LoadableList<Quote>
  /// The top news.
  public var news: LoadableList<Article>

  /// Creates a stocks state; by default neither list has loaded.
  ///
  /// - Parameters:
  ///   - quotes: The stock quotes.
  ///   - news: The top news.
  public init(
    quotes: LoadableList<Quote> = LoadableList(), news: LoadableList<Article> = LoadableList()
  ) {
    self.quotes = quotes
    self.news = news
  }
}
