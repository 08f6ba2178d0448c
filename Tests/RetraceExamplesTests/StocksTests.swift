import Foundation
import Retrace
import RetraceExamples
import RetraceTesting
import Synchronization
import Testing

struct Offline: Error, CustomStringConvertible {
  var description: String { "offline" }
}

@MainActor
@Suite struct StocksTests {
  nonisolated static let apple = Quote(symbol: "AAPL", price: 23_412, change: 85)
  nonisolated static let article = Article(id: 1, headline: "Rates steady", source: "The Ledger")

  func holds(_ state: StocksState) -> Bool {
    stocksDomain.invariant(named: "no-stale-load")!.holds(state)
  }

  @Test func aRefreshLoadsInItsEffectAndTheResultLands() async {
    let store = TestStore(
      initialState: StocksState(),
      reducer: StocksReducer(quotes: { [Self.apple] }, news: { [Self.article] }))
    await store.send(.quotes(action: .refresh)) {
      $0.quotes.status = .loading(load: 1)
      $0.quotes.latestLoad = 1
    }
    await store.receive(.quotes(action: .loaded(load: 1, items: [Self.apple]))) {
      $0.quotes.items = [Self.apple]
      $0.quotes.status = .loaded(load: 1)
    }
    #expect(holds(store.state))
    await store.finish()
  }

  @Test func refreshAllLoadsBothListsInTheirOwnEffects() async {
    let newsMayAnswer = AsyncStream<Void>.makeStream()
    let store = TestStore(
      initialState: StocksState(),
      reducer: StocksReducer(
        quotes: { [Self.apple] },
        news: {
          // After the quotes, so that the order the test receives them in is fixed.
          for await _ in newsMayAnswer.stream { break }
          return [Self.article]
        }))
    await store.send(.refreshAll) {
      $0.quotes.status = .loading(load: 1)
      $0.quotes.latestLoad = 1
      $0.news.status = .loading(load: 1)
      $0.news.latestLoad = 1
    }
    await store.receive(.quotes(action: .loaded(load: 1, items: [Self.apple]))) {
      $0.quotes.items = [Self.apple]
      $0.quotes.status = .loaded(load: 1)
    }
    newsMayAnswer.continuation.yield()
    await store.receive(.news(action: .loaded(load: 1, items: [Self.article]))) {
      $0.news.items = [Self.article]
      $0.news.status = .loaded(load: 1)
    }
    await store.finish()
  }

  @Test func aFailureKeepsTheItemsAndShowsTheMessage() async {
    let loaded = LoadableList(items: [Self.apple], status: .loaded(load: 1), latestLoad: 1)
    let store = TestStore(
      initialState: StocksState(quotes: loaded),
      reducer: StocksReducer(quotes: { throw Offline() }, news: { [] }))
    await store.send(.quotes(action: .refresh)) {
      $0.quotes.status = .loading(load: 2)
      $0.quotes.latestLoad = 2
    }
    await store.receive(.quotes(action: .failed(load: 2, message: "offline"))) {
      $0.quotes.status = .failed(load: 2, message: "offline")
    }
    #expect(store.state.quotes.items == [Self.apple])
    #expect(holds(store.state))
    await store.finish()
  }

  @Test func cancellingARefreshCancelsItsEffect() async {
    let store = TestStore(
      initialState: StocksState(),
      reducer: StocksReducer(
        quotes: { [] },
        news: {
          try await Task.sleep(for: .seconds(30))
          return [Self.article]
        }))
    await store.send(.news(action: .refresh)) {
      $0.news.status = .loading(load: 1)
      $0.news.latestLoad = 1
    }
    await store.send(.news(action: .cancel)) { $0.news.status = .cancelled(load: 1) }
    // finish fails while an effect still runs.
    await store.finish()
    #expect(holds(store.state))
    // With nothing in flight, cancel does nothing.
    await store.send(.news(action: .cancel))
  }

  @Test func aNewerRefreshReplacesTheLoadInFlight() async {
    let calls = Mutex(0)
    let store = TestStore(
      initialState: StocksState(),
      reducer: StocksReducer(
        quotes: {
          // The first load hangs until cancelled; the second answers at once.
          if calls.withLock({
            $0 += 1
            return $0
          }) == 1 {
            try await Task.sleep(for: .seconds(30))
          }
          return [Self.apple]
        },
        news: { [] }))
    await store.send(.quotes(action: .refresh)) {
      $0.quotes.status = .loading(load: 1)
      $0.quotes.latestLoad = 1
    }
    await store.send(.quotes(action: .refresh)) {
      $0.quotes.status = .loading(load: 2)
      $0.quotes.latestLoad = 2
    }
    await store.receive(.quotes(action: .loaded(load: 2, items: [Self.apple]))) {
      $0.quotes.items = [Self.apple]
      $0.quotes.status = .loaded(load: 2)
    }
    // The first load was cancelled: no effect is left running, and its result never came.
    await store.finish()
  }

  @Test func aStaleOrCancelledResultIsDropped() async {
    let store = TestStore(
      initialState: StocksState(
        quotes: LoadableList(status: .loading(load: 2), latestLoad: 2),
        news: LoadableList(status: .cancelled(load: 1), latestLoad: 1)),
      reducer: StocksReducer(quotes: { [] }, news: { [] }))
    await store.send(.quotes(action: .loaded(load: 1, items: [Self.apple])))
    await store.send(.quotes(action: .failed(load: 1, message: "late")))
    await store.send(.news(action: .loaded(load: 1, items: [Self.article])))
    await store.finish()
  }

  @Test func noStaleLoadFailsWhenAStatusIsAboutAnOlderLoad() {
    #expect(holds(StocksState()))
    #expect(holds(StocksState(quotes: LoadableList(status: .loading(load: 3), latestLoad: 3))))
    #expect(
      holds(StocksState(news: LoadableList(status: .cancelled(load: 2), latestLoad: 2))))
    // Load 1's result landed after load 2 started.
    #expect(
      !holds(
        StocksState(
          quotes: LoadableList(items: [Self.apple], status: .loaded(load: 1), latestLoad: 2))))
    #expect(
      !holds(
        StocksState(news: LoadableList(status: .failed(load: 1, message: "x"), latestLoad: 2))))
    #expect(!holds(StocksState(news: LoadableList(status: .notLoaded, latestLoad: 1))))
  }

  @Test func theWorkloadIsDeterministicAndItsLateResultsAreDropped() {
    let (actions, _) = stocksDomain.generate(count: 1_000, seed: 8)
    #expect(stocksDomain.generate(count: 1_000, seed: 8).actions == actions)
    #expect(stocksDomain.generate(count: 1_000, seed: 9).actions != actions)
    var state = stocksDomain.initialState
    var dropped = 0
    var cancels = 0
    for action in actions {
      let before = state
      _ = stocksDomain.reduce(into: &state, action: action)
      if case .quotes(.loaded) = action, state == before { dropped += 1 }
      if case .news(.loaded) = action, state == before { dropped += 1 }
      if case .news(.cancel) = action { cancels += 1 }
      #expect(holds(state))
    }
    #expect(dropped > 0)
    #expect(cancels > 0)
  }

  @Test func quotesShowPriceAndChangeWithTwoDecimals() {
    let quote = Quote(symbol: "SHEL", price: 3_005, change: -125)
    #expect(quote.priceText == "30.05")
    #expect(quote.changeText == "-1.25%")
    #expect(Quote(symbol: "X", price: 7, change: 5).changeText == "+0.05%")
    #expect(Quote(symbol: "X", price: 7, change: 0).priceText == "0.07")
    #expect(Quote(symbol: "X", price: 7, change: -9).changeText == "-0.09%")
  }

  @Test func actionsEncodeAsTheDocumentedJSON() throws {
    let json = #"{"news":{"action":{"failed":{"load":2,"message":"offline"}}}}"#
    let action = StocksAction.news(action: .failed(load: 2, message: "offline"))
    #expect(try JSONDecoder().decode(StocksAction.self, from: Data(json.utf8)) == action)
    #expect(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(action)) as? NSDictionary
        == JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
  }
}
