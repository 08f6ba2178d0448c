import OrderedCollections
import Retrace

/// Runs a screen reducer on the state of the screen an action addresses, then the parent
/// reducer, and cancels the effects of the screens that left the stacks; see
/// ``Retrace/Reducer/forEachScreen(_:navigation:action:screen:)``.
public struct ForEachScreenReducer<Parent: Reducer, Route: Routable, Screen: Reducer>: Reducer
where Screen.State: Hashable & Codable & Sendable {
  @usableFromInline let parent: Parent
  @usableFromInline let toScreens:
    WritableKeyPath<Parent.State, ScreenStates<Route, Screen.State>> & Sendable
  @usableFromInline let toNavigation:
    WritableKeyPath<Parent.State, NavigationState<Route>> & Sendable
  @usableFromInline let toScreenAction:
    ActionCase<Parent.Action, (route: Route, action: Screen.Action)>
  @usableFromInline let screen: Screen

  @inlinable
  init(
    parent: Parent,
    toScreens: WritableKeyPath<Parent.State, ScreenStates<Route, Screen.State>> & Sendable,
    toNavigation: WritableKeyPath<Parent.State, NavigationState<Route>> & Sendable,
    toScreenAction: ActionCase<Parent.Action, (route: Route, action: Screen.Action)>,
    screen: Screen
  ) {
    self.parent = parent
    self.toScreens = toScreens
    self.toNavigation = toNavigation
    self.toScreenAction = toScreenAction
    self.screen = screen
  }

  /// Runs the screen reducer on the addressed screen (or reports the refusal), then the
  /// parent, then cancels the effects of the screens whose states the action dropped.
  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action>
  {
    var screenEffect = Effect<Parent.Action>.none
    if let (route, screenAction) = toScreenAction.extract(action) {
      screenEffect = reduceScreen(route, action: screenAction, in: &state)
    }
    // Holding the keys costs a retain; comparing them is a buffer identity check unless the
    // action added or dropped screens.
    let routesBefore = state[keyPath: toScreens].screens.keys
    let effect = screenEffect.merge(with: parent.reduce(into: &state, action: action))
    let screensAfter = state[keyPath: toScreens]
    if routesBefore == screensAfter.screens.keys { return effect }
    return effect.merge(with: cancelEffects(of: routesBefore, leaving: screensAfter))
  }

  @inlinable
  func reduceScreen(
    _ route: Route, action screenAction: Screen.Action, in state: inout Parent.State
  ) -> Effect<Parent.Action> {
    var navigation = state[keyPath: toNavigation]
    let effect = state[keyPath: toScreens].update(
      route, in: &navigation, action: Self.name(of: screenAction)
    ) {
      screen.reduce(into: &$0, action: screenAction)
    }
    state[keyPath: toNavigation] = navigation
    guard let effect, !effect.isNone else { return .none }
    let embed = toScreenAction.embed
    return effect.map { embed((route: route, action: $0)) }
      .cancellable(id: ScreenEffectID(screens: toScreens, route: route))
  }

  /// The effects that cancel the running effects of the screens in `routes` that have no
  /// state in `screens` any more.
  @usableFromInline
  func cancelEffects(
    of routes: OrderedSet<Route>, leaving screens: ScreenStates<Route, Screen.State>
  ) -> Effect<Parent.Action> {
    .merge(
      routes.filter { screens[$0] == nil }.map {
        .cancel(id: ScreenEffectID(screens: toScreens, route: $0))
      })
  }

  /// The name a refused screen action is reported under: its case name.
  @usableFromInline
  static func name(of action: Screen.Action) -> String {
    let description = String(describing: action)
    return String(description.prefix { $0 != "(" })
  }
}

extension ForEachScreenReducer: Sendable where Parent: Sendable, Screen: Sendable {}

/// The identifier under which a ``ForEachScreenReducer`` runs a screen's effects.
@usableFromInline
struct ScreenEffectID<Route: Routable>: Hashable, Sendable {
  @usableFromInline let screens: AnyKeyPath & Sendable
  @usableFromInline let route: Route

  @inlinable
  init(screens: AnyKeyPath & Sendable, route: Route) {
    self.screens = screens
    self.route = route
  }

  @inlinable
  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.screens == rhs.screens && lhs.route == rhs.route
  }

  @inlinable
  func hash(into hasher: inout Hasher) {
    hasher.combine(screens)
    hasher.combine(route)
  }
}

extension Reducer {
  /// Runs `screen` on the state of the screen an action addresses, and ends a screen's
  /// effects when its route leaves the stacks: Retrace's `StackState` and `forEach`.
  ///
  /// ```swift
  /// AppReducer()  // syncs `screens` with `navigation` on navigation actions
  ///   .forEachScreen(\.screens, navigation: \.navigation, action: .screen, screen: ScreenReducer())
  /// ```
  ///
  /// An action `(route, action)` runs the screen reducer in place on `route`'s screen state,
  /// then this reducer. An action for a route that is on no stack, or has no screen state,
  /// changes no screen and is refused as ``ScreenStates/update(_:in:action:_:)`` refuses it:
  /// ``NavigationRefusal/Reason/screenNotOnStack`` in ``NavigationState/lastRefusal``, under
  /// the screen action's case name; this reducer still sees it.
  ///
  /// The screen's effects are cancellable by its route. After this reducer ran, the effects
  /// of every screen whose state the action dropped (the route was popped, dismissed or reset
  /// away, and ``ScreenStates/sync(with:make:)`` dropped its state) are cancelled, including
  /// effects the action itself started. The screens' routes are compared before and after
  /// only when the action added or dropped screens.
  ///
  /// - Parameters:
  ///   - screens: Where the screen states live.
  ///   - navigation: Where the navigation state lives, for refusals.
  ///   - action: How screen actions, with the route they address, are embedded in this
  ///     reducer's actions.
  ///   - screen: The reducer to run on a screen's state.
  /// - Returns: A reducer that runs both.
  @inlinable
  public func forEachScreen<Route: Routable, Screen: Reducer>(
    _ screens: WritableKeyPath<State, ScreenStates<Route, Screen.State>> & Sendable,
    navigation: WritableKeyPath<State, NavigationState<Route>> & Sendable,
    action: ActionCase<Action, (route: Route, action: Screen.Action)>,
    screen: Screen
  ) -> ForEachScreenReducer<Self, Route, Screen> {
    ForEachScreenReducer(
      parent: self, toScreens: screens, toNavigation: navigation, toScreenAction: action,
      screen: screen)
  }
}
