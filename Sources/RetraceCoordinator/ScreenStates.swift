import OrderedCollections

/// The states of the screens on the navigation stacks, kept beside their routes.
///
/// A screen's state (a post list that is loading, displaying or failed) exists exactly while
/// its route is on a stack: ``sync(with:make:)`` creates it when the route arrives and drops
/// it when the route leaves. An action addressed to a screen goes through
/// ``update(_:in:action:_:)``, which refuses (and reports in
/// ``NavigationState/lastRefusal``) an action for a screen that is on no stack.
///
/// ```swift
/// struct AppState: Codable, Equatable, Sendable {
///   var navigation = NavigationState(root: AppRoute.postList)
///   var screens = ScreenStates<AppRoute, AppScreen>()
/// }
///
/// // In the app's reducer:
/// case .navigation:
///   state.screens.sync(with: state.navigation, make: AppScreen.init(route:))
/// case .postsLoaded(let posts):
///   state.screens.update(.postList, in: &state.navigation, action: "postsLoaded") {
///     $0 = .postList(.display(posts: posts))
///   }
/// ```
///
/// Screens are keyed by route value, so one route that appears on two stacks (or twice on
/// one) shares one screen state, which is dropped when its last occurrence leaves. The
/// order of the screens is the order in which their routes arrived, which keeps encoding
/// and state hashes deterministic.
public struct ScreenStates<Route: Routable, Screen: Hashable & Codable & Sendable>: Hashable,
  Sendable
{
  @usableFromInline var _screens: OrderedDictionary<Route, Screen>

  /// The screen states by route, in the order the routes arrived.
  @inlinable public var screens: OrderedDictionary<Route, Screen> { _screens }

  /// Creates an empty collection; call ``sync(with:make:)`` to create the initial screens.
  public init() {
    self._screens = [:]
  }

  /// Creates the screen states for the routes already on `navigation`'s stacks.
  ///
  /// - Parameters:
  ///   - navigation: The navigation state.
  ///   - make: The initial state of a route's screen, or `nil` for a route without one.
  public init(for navigation: NavigationState<Route>, make: (Route) -> Screen?) {
    self._screens = [:]
    sync(with: navigation, make: make)
  }

  /// The state of `route`'s screen, if it has one.
  @inlinable
  public subscript(route: Route) -> Screen? {
    _screens[route]
  }

  /// The number of screen states.
  @inlinable public var count: Int { _screens.count }

  /// Brings the screen states in step with the stacks: drops the states of routes that left
  /// every stack and creates the states of routes that arrived.
  ///
  /// Call it after every navigation action. It walks the stacks and the screens once and
  /// allocates only for the screens it creates.
  ///
  /// - Parameters:
  ///   - navigation: The navigation state after the action.
  ///   - make: The initial state of a route's screen, or `nil` for a route without one.
  @inlinable
  public mutating func sync(with navigation: NavigationState<Route>, make: (Route) -> Screen?) {
    var index = 0
    while index < _screens.count {
      if navigation.contains(_screens.keys[index]) {
        index += 1
      } else {
        _screens.remove(at: index)
      }
    }
    for tab in navigation.tabs {
      addMissing(tab.stack, make: make)
    }
    for presentation in navigation.presentations {
      addMissing(presentation.stack, make: make)
    }
  }

  @inlinable
  mutating func addMissing(_ stack: [Route], make: (Route) -> Screen?) {
    for route in stack where _screens[route] == nil {
      if let screen = make(route) { _screens[route] = screen }
    }
  }

  /// Runs `body` on the state of `route`'s screen, or reports that the screen is not there.
  ///
  /// When `route` is on a stack and has a screen state, `body` changes it in place,
  /// ``NavigationState/lastRefusal`` is cleared, and `body`'s result is returned. Otherwise
  /// nothing changes but the refusal: ``NavigationRefusal/Reason/screenNotOnStack`` with
  /// `action` as the action's name, reported in `navigation`, and the result is `nil`.
  ///
  /// ```swift
  /// case .toggleLike(let id):
  ///   state.screens.update(.postDetail(id: id), in: &state.navigation, action: "toggleLike") {
  ///     $0.isLiked.toggle()
  ///   }
  /// ```
  ///
  /// - Parameters:
  ///   - route: The route whose screen the action addresses.
  ///   - navigation: The navigation state, where a refusal is reported.
  ///   - action: The action's name, for the refusal.
  ///   - body: Changes the screen's state.
  /// - Returns: `body`'s result, or `nil` when the action was refused.
  @inlinable
  @discardableResult
  public mutating func update<Result>(
    _ route: Route,
    in navigation: inout NavigationState<Route>,
    action: String,
    _ body: (inout Screen) -> Result
  ) -> Result? {
    guard let index = _screens.index(forKey: route), navigation.contains(route) else {
      navigation.report(
        NavigationRefusal(
          action: action, reason: .screenNotOnStack, from: navigation.visibleRoute, to: route)
      )
      return nil
    }
    navigation.clearRefusal()
    return body(&_screens.values[index])
  }

  /// Whether the screen states match the stacks: every state belongs to a route on a stack,
  /// and every route on a stack that has a screen (by `make`) has its state.
  ///
  /// - Parameters:
  ///   - navigation: The navigation state.
  ///   - make: The same function given to ``sync(with:make:)``.
  /// - Returns: `true` when they match.
  ///
  /// Inlinable and free of allocations, so that an invariant that checks it after every
  /// action runs code compiled for the app's routes (W7i in Benchmarks/README.md).
  @inlinable
  public func isInStep(with navigation: NavigationState<Route>, make: (Route) -> Screen?) -> Bool {
    for route in _screens.keys where !navigation.contains(route) { return false }
    for route in navigation.routes where _screens[route] == nil && make(route) != nil {
      return false
    }
    return true
  }
}

extension ScreenStates: Codable {
  private struct Entry: Codable {
    var route: Route
    var screen: Screen
  }

  /// Encodes the screens as an array of `{"route": …, "screen": …}` objects, in order.
  ///
  /// - Parameter encoder: The encoder to write to.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(screens.map { Entry(route: $0.key, screen: $0.value) })
  }

  /// Decodes screens encoded by ``encode(to:)``.
  ///
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: `DecodingError.dataCorrupted` when a route appears twice, or the decoder's errors.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let entries = try container.decode([Entry].self)
    var screens = OrderedDictionary<Route, Screen>(minimumCapacity: entries.count)
    for entry in entries {
      guard screens.updateValue(entry.screen, forKey: entry.route) == nil else {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: decoder.codingPath,
            debugDescription: "the screen of route \(entry.route.name) appears twice"))
      }
    }
    self._screens = screens
  }
}

extension ScreenStates: CustomReflectable {
  /// Shows the screens to dumps and diffs as a dictionary from route to screen state.
  public var customMirror: Mirror {
    Mirror(self, children: ["screens": _screens as Any], displayStyle: .struct)
  }
}
