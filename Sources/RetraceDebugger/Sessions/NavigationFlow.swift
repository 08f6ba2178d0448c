import Retrace
import RetraceCoordinator
import RetraceLog

/// How `retrace flows` finds a domain's navigation: where its state keeps the
/// `NavigationState`, and the flow rules that say which screen may lead to which.
///
/// Register one per domain that has a coordinator, beside the domains:
///
/// ```swift
/// await RetraceCommand.main(
///   domains: [postsDomain],
///   flows: [NavigationFlow(domain: postsDomain, navigation: \.navigation, rules: PostsFlow.rules)])
/// ```
///
/// ```
/// $ retrace flows --rules posts
/// digraph "posts" {
///   rankdir=LR;
///   …
/// ```
public struct NavigationFlow: Sendable {
  /// The name of the domain this describes.
  public let domain: String
  private let allowedGraph: @Sendable () -> FlowGraph
  private let observe: @Sendable (_ session: Any) -> FlowGraph?
  private let screens: @Sendable (_ state: Any) -> ScreenPath?

  /// The screens a navigation state shows, bottom to top: what Retrace Studio draws as the
  /// current screen path.
  package struct ScreenPath: Sendable, Equatable {
    /// The selected tab, when the navigation has more than one.
    package var tab: String?
    /// The route names of the selected tab's stack, then of each presentation's stack.
    package var screens: [String]
    /// The screen on top.
    package var visible: String
  }

  /// Describes a domain's navigation.
  ///
  /// - Parameters:
  ///   - domain: The domain.
  ///   - navigation: Reads the navigation state out of the domain's state.
  ///   - rules: The domain's flow rules.
  public init<D: Domain, Route: Routable>(
    domain: D,
    navigation: @escaping @Sendable (D.State) -> NavigationState<Route>,
    rules: FlowRules<Route>
  ) {
    self.domain = domain.name
    self.allowedGraph = { FlowGraph.allowed(by: rules) }
    self.observe = { session in
      guard let session = session as? RecordedSession<D> else { return nil }
      // Replays the session with the domain's reducer and records every transition
      // between the navigation states before and after each action.
      // A time-travel jump sets the state without a transition the flow rules govern: the
      // screens it shows count as observed, the move to them not.
      var graph = FlowGraph()
      var jumps = [UInt64: D.State]()
      for jump in session.jumps { jumps[jump.sequence] = jump.state }
      var state = jumps[session.startSequence] ?? session.initialState
      var before = navigation(state)
      graph.observe(states: [before])
      for action in session.actions {
        _ = domain.reduce(into: &state, action: action.action)
        let after = navigation(state)
        if after != before { graph.observe(from: before, to: after) }
        before = after
        if !jumps.isEmpty, let jumped = jumps[action.sequence] {
          state = jumped
          before = navigation(state)
          graph.observe(states: [before])
        }
      }
      return graph
    }
    self.screens = { state in
      guard let state = state as? D.State else { return nil }
      let navigation = navigation(state)
      let stacks =
        [navigation.tabs[navigation.selectedTabIndex].stack]
        + navigation.presentations.map(\.stack)
      return ScreenPath(
        tab: navigation.tabs.count > 1 ? navigation.selectedTab : nil,
        screens: stacks.flatMap { $0.map(\.name) }, visible: navigation.visibleRoute.name)
    }
  }

  /// The screens `state` shows; `nil` when it is not a state of this flow's domain.
  ///
  /// - Parameter state: A state of the domain.
  /// - Returns: The screen path.
  package func screenPath<State>(of state: State) -> ScreenPath? {
    screens(state)
  }

  /// The graph the flow rules allow.
  public var allowed: FlowGraph { allowedGraph() }

  /// The graph observed in `session`, replayed with its domain's reducer; `nil` when the
  /// session is not of this flow's domain type.
  ///
  /// - Parameter session: A recorded session of the domain.
  /// - Returns: The observed transitions with their counts.
  public func observed<D: Domain>(in session: RecordedSession<D>) -> FlowGraph? {
    observe(session)
  }
}
