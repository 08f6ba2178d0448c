import Retrace
import RetraceCoordinator
import Synchronization
import Testing

/// A gate an effect waits behind, so that a test decides when the effect would send.
final class ScreenGate: Sendable {
  private let isOpen = Mutex(false)

  func open() { isOpen.withLock { $0 = true } }

  /// Waits until the gate opens; throws when the waiting effect is cancelled.
  func pass() async throws {
    while !isOpen.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
  }
}

enum ShopRoute: Routable {
  case home
  case item(id: Int)

  var name: String {
    switch self {
    case .home: "home"
    case .item: "item"
    }
  }
}

struct ItemScreen: Hashable, Codable, Sendable {
  var id: Int
  var loads = 0
}

enum ItemAction: Sendable {
  case load
  case loaded
}

struct ShopState: Equatable, Sendable {
  var navigation = NavigationState(root: ShopRoute.home)
  var screens = ScreenStates<ShopRoute, ItemScreen>()
}

enum ShopAction: Sendable {
  case navigation(NavigationAction<ShopRoute>)
  case screen(route: ShopRoute, action: ItemAction)

  static let navigationCase = ActionCase<ShopAction, NavigationAction<ShopRoute>>(
    embed: { .navigation($0) },
    extract: { if case .navigation(let action) = $0 { action } else { nil } })
  static let screenCase = ActionCase<ShopAction, (route: ShopRoute, action: ItemAction)>(
    embed: { .screen(route: $0.route, action: $0.action) },
    extract: { if case .screen(let route, let action) = $0 { (route, action) } else { nil } })
}

func itemScreen(_ route: ShopRoute) -> ItemScreen? {
  if case .item(let id) = route { ItemScreen(id: id) } else { nil }
}

/// An item screen whose `load` waits behind `gate`, then reports `loaded`.
struct ItemReducer: Reducer {
  let gate: ScreenGate

  func reduce(into state: inout ItemScreen, action: ItemAction) -> Effect<ItemAction> {
    switch action {
    case .load:
      return .run { [gate] send in
        try await gate.pass()
        await send(.loaded)
      }
    case .loaded:
      state.loads += 1
      return .none
    }
  }
}

@Suite("Screen effects")
@MainActor
struct ForEachScreenTests {
  let gate = ScreenGate()

  func makeStore() -> Store<ShopState, ShopAction> {
    let navigation = Scope(
      state: \ShopState.navigation, action: ShopAction.navigationCase,
      child: NavigationReducer<ShopRoute>())
    let app = Reduce<ShopState, ShopAction> { state, action in
      if case .navigation(let action) = action {
        _ = navigation.reduce(into: &state, action: .navigation(action))
        state.screens.sync(with: state.navigation, make: itemScreen)
      }
      return .none
    }
    .forEachScreen(
      \.screens, navigation: \.navigation, action: ShopAction.screenCase,
      screen: ItemReducer(gate: gate))
    return Store(initialState: ShopState(), reducer: app)
  }

  @Test func aPoppedScreensEffectIsCancelled() async {
    let store = makeStore()
    store.send(.navigation(.push(route: .item(id: 1))))
    store.send(.screen(route: .item(id: 1), action: .load))
    #expect(store.runningEffectCount == 1)
    store.send(.navigation(.pop))
    gate.open()
    await store.waitForEffects()
    // Had the effect run on, its `loaded` would have been refused: the screen is gone.
    #expect(store.state.navigation.refusalCount == 0)
    #expect(store.state.screens.count == 0)
  }

  @Test func aScreenStillOnTheStackKeepsItsEffect() async {
    let store = makeStore()
    store.send(.navigation(.push(route: .item(id: 1))))
    store.send(.screen(route: .item(id: 1), action: .load))
    store.send(.navigation(.push(route: .item(id: 2))))
    store.send(.screen(route: .item(id: 2), action: .load))
    store.send(.navigation(.pop))
    gate.open()
    await store.waitForEffects()
    #expect(store.state.screens[.item(id: 1)]?.loads == 1)
    #expect(store.state.screens[.item(id: 2)] == nil)
    #expect(store.state.navigation.refusalCount == 0)
  }

  @Test func aDismissedScreensEffectIsCancelled() async {
    let store = makeStore()
    store.send(.navigation(.present(route: .item(id: 5), style: .sheet)))
    store.send(.screen(route: .item(id: 5), action: .load))
    store.send(.navigation(.dismiss))
    gate.open()
    await store.waitForEffects()
    #expect(store.state.navigation.refusalCount == 0)
    #expect(store.state.screens.count == 0)
  }

  @Test func anActionForAScreenOnNoStackIsRefusedAndStartsNothing() async {
    let store = makeStore()
    store.send(.screen(route: .item(id: 3), action: .load))
    #expect(store.runningEffectCount == 0)
    #expect(store.state.screens.count == 0)
    #expect(
      store.state.navigation.lastRefusal
        == NavigationRefusal(
          action: "load", reason: .screenNotOnStack, from: .home, to: .item(id: 3)))
    store.send(.navigation(.push(route: .item(id: 3))))
    store.send(.screen(route: .item(id: 3), action: .load))
    #expect(store.state.navigation.lastRefusal == nil)
    gate.open()
    await store.waitForEffects()
    #expect(store.state.screens[.item(id: 3)]?.loads == 1)
  }
}
