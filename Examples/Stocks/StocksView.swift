// The stocks screen in SwiftUI. SwiftUI exists only on Apple platforms, so this file is
// compiled there only; keep it a thin view: every change goes through an action.
#if canImport(SwiftUI)
  import Retrace
  import SwiftUI

  /// The stocks screen: the quotes and the top news, each with its loading, failed and
  /// cancelled states, refreshed together by pulling down.
  public struct StocksView: View {
    /// The store the screen reads and sends to.
    public let store: Store<StocksState, StocksAction>

    /// Creates the screen.
    ///
    /// - Parameter store: The store the screen reads and sends to.
    public init(store: Store<StocksState, StocksAction>) {
      self.store = store
    }

    /// The screen's content.
    public var body: some View {
      List {
        Section {
          ForEach(store.quotes.items) { quote in
            LabeledContent(quote.symbol) {
              Text(verbatim: "\(quote.priceText)  \(quote.changeText)")
            }
          }
        } header: {
          header("Stocks", store.quotes.status) { (action: LoadableListAction<Quote>) in
            store.send(.quotes(action: action))
          }
        }
        Section {
          ForEach(store.news.items) { article in
            VStack(alignment: .leading) {
              Text(article.headline)
              Text(article.source).font(.footnote).foregroundStyle(.secondary)
            }
          }
        } header: {
          header("Top news", store.news.status) { (action: LoadableListAction<Article>) in
            store.send(.news(action: action))
          }
        }
      }
      .refreshable { @MainActor in store.send(.refreshAll) }
      .task { @MainActor in store.send(.refreshAll) }
    }

    /// A section's title with its list's status: a spinner and Cancel while loading, the
    /// message and Retry after a failure, Retry after a cancel.
    private func header<Item>(
      _ title: String, _ status: LoadStatus, send: @escaping (LoadableListAction<Item>) -> Void
    ) -> some View {
      HStack {
        Text(title)
        Spacer()
        switch status {
        case .notLoaded, .loaded:
          EmptyView()
        case .loading:
          ProgressView()
          Button("Cancel") { send(.cancel) }
        case .failed(_, let message):
          Text(message).foregroundStyle(.red)
          Button("Retry") { send(.refresh) }
        case .cancelled:
          Button("Retry") { send(.refresh) }
        }
      }
    }
  }
#endif
