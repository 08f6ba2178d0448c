import Retrace

/// The reducer of a ``LoadableList``: `refresh` numbers a new load and starts it in an
/// effect, `cancel` cancels it, and a result lands only if it answers the load in flight.
///
/// The stocks example runs two of these, one for the quotes and one for the news, each in a
/// ``Scope`` of ``StocksReducer``.
public struct LoadableListReducer<Item: Codable & Hashable & Sendable>: Reducer, Sendable {
  /// Loads the items; a thrown error becomes `failed` with the error's description.
  public typealias Loader = @Sendable () async throws -> [Item]

  /// The identifier of the loading effect, for cancellation; different for each list of a
  /// store.
  public let effectID: String
  private let loader: Loader

  /// Creates the reducer.
  ///
  /// - Parameters:
  ///   - effectID: The identifier of the loading effect, unique among the store's lists.
  ///   - loader: Loads the items; it runs in an effect, never during a replay.
  public init(effectID: String, loader: @escaping Loader) {
    self.effectID = effectID
    self.loader = loader
  }

  /// Applies a list action.
  ///
  /// - Parameters:
  ///   - state: The list.
  ///   - action: The action.
  /// - Returns: The loading effect for `refresh`, its cancellation for `cancel`, otherwise
  ///   none.
  public func reduce(into state: inout LoadableList<Item>, action: LoadableListAction<Item>)
    -> Effect<LoadableListAction<Item>>
  {
    switch action {
    case .refresh:
      // At the end of Int, reachable only from a hostile snapshot, no new load starts.
      let (load, overflow) = state.latestLoad.addingReportingOverflow(1)
      if overflow { return .none }
      state.latestLoad = load
      state.status = .loading(load: load)
      let loader = self.loader
      return .run { send in
        await send(.loaded(load: load, items: try await loader()))
      } catch: { error, send in
        await send(.failed(load: load, message: String(describing: error)))
      }
      .cancellable(id: effectID, cancelInFlight: true)

    case .cancel:
      guard case .loading(let load) = state.status else { return .none }
      state.status = .cancelled(load: load)
      return .cancel(id: effectID)

    case .loaded(let load, let items):
      // A result for any other load (cancelled, or replaced by a newer one) is stale.
      guard state.status == .loading(load: load) else { return .none }
      state.items = items
      state.status = .loaded(load: load)
      return .none

    case .failed(let load, let message):
      guard state.status == .loading(load: load) else { return .none }
      state.status = .failed(load: load, message: message)
      return .none
    }
  }
}
