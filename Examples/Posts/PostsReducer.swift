import Retrace
import RetraceCoordinator

/// The posts example's reducer: navigation under ``PostsFlow/rules``, the screens beside
/// their routes, and loading as an effect whose result comes back as an action.
///
/// ```swift
/// let store = Store(initialState: PostsState(),
///                   reducer: PostsReducer(loader: { try await api.posts() }))
/// store.send(.load)                         // the list is loading; the loader runs
/// await store.waitForEffects()
/// store.state.loadedPosts                   // the loader's posts (via .postsLoaded)
/// store.send(.navigation(action: .push(route: .postDetail(id: 1))))
/// ```
///
/// Loading is cancellable: a new `load` or `retry` cancels the one in flight, whose result
/// is then dropped. Replaying a trace never runs the loader: the results are in the trace as
/// `postsLoaded` and `loadFailed` actions.
public struct PostsReducer: Reducer, Sendable {
  /// Loads the posts; thrown errors become `loadFailed` with the error's description.
  public typealias Loader = @Sendable () async throws -> [Post]

  /// The identifier of the loading effect, for cancellation.
  public static let loadEffectID = "posts.load"

  private let loader: Loader
  private let navigation = Scope(
    state: \PostsState.navigation,
    action: PostsAction.navigationCase,
    child: NavigationReducer(rules: PostsFlow.rules)
  )

  /// Creates the reducer.
  ///
  /// - Parameter loader: Loads the posts; it runs in an effect, never during a replay.
  public init(loader: @escaping Loader) {
    self.loader = loader
  }

  /// Applies a posts action.
  ///
  /// - Parameters:
  ///   - state: The posts state.
  ///   - action: The action.
  /// - Returns: The loading effect for `load` and `retry`, otherwise none.
  public func reduce(into state: inout PostsState, action: PostsAction) -> Effect<PostsAction> {
    switch action {
    case .navigation:
      _ = navigation.reduce(into: &state, action: action)
      state.screens.sync(with: state.navigation, make: PostsScreen.init(route:))
      return .none

    case .load, .retry:
      let started: Void? = state.screens.update(
        .postList, in: &state.navigation, action: action.name
      ) {
        $0 = .list(.loading)
      }
      guard started != nil else { return .none }
      let loader = self.loader
      return .run { send in
        do {
          let posts = try await loader()
          await send(.postsLoaded(posts: posts))
        } catch is CancellationError {
          // A newer load replaced this one; its result would be stale.
        } catch {
          await send(.loadFailed(message: String(describing: error)))
        }
      }
      .cancellable(id: Self.loadEffectID, cancelInFlight: true)

    case .postsLoaded(let posts):
      state.screens.update(.postList, in: &state.navigation, action: action.name) {
        $0 = .list(.display(posts: posts))
      }
      return .none

    case .loadFailed(let message):
      state.screens.update(.postList, in: &state.navigation, action: action.name) {
        $0 = .list(.error(message: message))
      }
      return .none

    case .toggleLike(let id):
      state.screens.update(.postDetail(id: id), in: &state.navigation, action: action.name) {
        screen in
        if case .detail(var detail) = screen {
          detail.isLiked.toggle()
          screen = .detail(detail)
        }
      }
      return .none
    }
  }
}
