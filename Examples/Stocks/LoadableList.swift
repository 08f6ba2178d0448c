/// Where a list's latest load stands.
///
/// Every load has a number, one more than the load before it; the status is always about the
/// latest load started, which is what the `no-stale-load` invariant checks.
public enum LoadStatus: Codable, Hashable, Sendable {
  /// Nothing was loaded yet.
  case notLoaded
  /// Load `load` is in flight; the list shows the items of the last load that succeeded.
  case loading(load: Int)
  /// Load `load` succeeded; the list shows its items.
  case loaded(load: Int)
  /// Load `load` failed with `message`; the list shows the items of the last load that
  /// succeeded.
  case failed(load: Int, message: String)
  /// Load `load` was cancelled before it answered; the list shows the items of the last load
  /// that succeeded.
  case cancelled(load: Int)

  /// The number of the load the status is about, or `nil` before the first load.
  public var load: Int? {
    switch self {
    case .notLoaded: nil
    case .loading(let load), .loaded(let load), .failed(let load, _), .cancelled(let load): load
    }
  }
}

/// A list that loads with an effect: the items it shows and where its latest load stands.
///
/// Items stay on screen through a refresh, a failure and a cancel, as in a pull-to-refresh
/// list; only a successful load replaces them.
public struct LoadableList<Item: Codable & Hashable & Sendable>: Codable, Hashable, Sendable {
  /// The items of the last load that succeeded; empty before the first.
  public var items: [Item]
  /// Where the latest load stands.
  public var status: LoadStatus
  /// The number of the latest load started; 0 before the first.
  public var latestLoad: Int

  /// Creates a list.
  ///
  /// - Parameters:
  ///   - items: The items shown.
  ///   - status: Where the latest load stands.
  ///   - latestLoad: The number of the latest load started.
  public init(items: [Item] = [], status: LoadStatus = .notLoaded, latestLoad: Int = 0) {
    self.items = items
    self.status = status
    self.latestLoad = latestLoad
  }

  /// Whether a load is in flight.
  public var isLoading: Bool {
    if case .loading = status { true } else { false }
  }

  /// Whether the status is about the latest load started (and there is none before the
  /// first): the `no-stale-load` rule for one list. A result that landed after a newer load
  /// started would leave a status about an older load.
  public var statusIsAboutLatestLoad: Bool {
    status.load == (latestLoad == 0 ? nil : latestLoad)
  }
}

/// The actions of a ``LoadableList``.
///
/// Encoded as Swift synthesizes them: `{"refresh":{}}`,
/// `{"loaded":{"load":3,"items":[…]}}`, `{"failed":{"load":3,"message":"offline"}}`.
public enum LoadableListAction<Item: Codable & Hashable & Sendable>: Codable, Hashable, Sendable {
  /// Starts a new load; a load in flight is cancelled, and its result will be dropped.
  case refresh
  /// Cancels the load in flight, if there is one.
  case cancel
  /// The result of load `load`: the items.
  case loaded(load: Int, items: [Item])
  /// The failure of load `load`, with a message for the user.
  case failed(load: Int, message: String)
}
