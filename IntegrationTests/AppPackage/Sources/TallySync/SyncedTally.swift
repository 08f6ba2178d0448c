import Retrace
import RetraceDependencies
import TallyApp

/// Where a tally is saved: a server, reached through `@Dependency(\.tallyServer)`.
public struct TallyServer: Sendable {
  /// Saves a count; returns the time the server stored it.
  public var save: @Sendable (_ count: Int) async throws -> Double

  /// Creates a server from its endpoint.
  public init(save: @escaping @Sendable (_ count: Int) async throws -> Double) {
    self.save = save
  }
}

extension TallyServer: DependencyKey {
  /// The app has no server of its own in this package: it pretends.
  public static let liveValue = TallyServer { _ in 0 }
}

extension DependencyValues {
  /// The tally's server.
  public var tallyServer: TallyServer {
    get { self[TallyServer.self] }
    set { self[TallyServer.self] = newValue }
  }
}

/// A tally that is saved to the server a second after the last change.
public struct SyncedTally: Codable, Equatable, Sendable {
  public var tally = Tally()
  public var savedCount: Int?
  public init() {}
}

/// The synced tally's actions: the tally's own, and the server's answer.
public enum SyncedTallyAction: Codable, Equatable, Sendable {
  case tally(TallyAction)
  case saved(count: Int)

  /// How the tally's actions are embedded.
  public static let tallyCase = ActionCase<SyncedTallyAction, TallyAction>(
    embed: { .tally($0) }, extract: { if case .tally(let action) = $0 { action } else { nil } })
}

/// Runs the tally's reducer on its part of the state and saves it, debounced.
public struct SyncedTallyReducer: Reducer, Sendable {
  public init() {}

  let tally = Scope(
    state: \SyncedTally.tally, action: SyncedTallyAction.tallyCase, child: TallyReducer())

  public func reduce(into state: inout SyncedTally, action: SyncedTallyAction) -> Effect<
    SyncedTallyAction
  > {
    @Dependency(\.tallyServer) var server
    @Dependency(\.continuousClock) var clock
    switch action {
    case .tally:
      let effect = tally.reduce(into: &state, action: action)
      let count = state.tally.count
      return effect.merge(
        with: .run { send in
          _ = try await server.save(count)
          await send(.saved(count: count))
        } catch: { _, _ in
        }
        .debounce(id: "save", for: .seconds(1), clock: clock))
    case .saved(let count):
      state.savedCount = count
      return .none
    }
  }
}
