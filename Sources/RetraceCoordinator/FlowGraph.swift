import OrderedCollections

/// A graph of screens and transitions: the graph flow rules allow, the graph observed in
/// recorded sessions (with counts), or both at once; exported as Graphviz DOT and Mermaid.
///
/// Nodes are route names (``Routable/name``), so `postDetail(id: 1)` and
/// `postDetail(id: 2)` are one node and the graph stays small.
///
/// ```swift
/// // What the rules allow:
/// let allowed = FlowGraph.allowed(by: postsRules)
///
/// // What users did, from the navigation states of one or more traces:
/// var observed = FlowGraph()
/// observed.observe(states: replayedStates.map(\.navigation))
/// print(observed.dot(title: "posts"))
/// ```
///
/// An edge observed that the rules also allow carries both: ``allowed(by:)`` adds edges
/// with a count of 0, observing increments the count, and the exports label an edge with
/// its count only when it was observed, so `var graph = .allowed(by: rules)` followed by
/// `observe` shows which allowed transitions users never took.
public struct FlowGraph: Hashable, Sendable {
  /// The kind of a transition between two visible screens.
  public enum EdgeKind: String, Hashable, Codable, Sendable, CaseIterable {
    /// A route was pushed onto the top stack.
    case push
    /// The top stack was popped (by one or more routes).
    case pop
    /// A presentation was added.
    case present
    /// A presentation was dismissed.
    case dismiss
    /// Another tab was selected.
    case tab
    /// Anything else at once, such as a deep link's ``NavigationAction/setPath(path:)``.
    case jump
  }

  /// A transition from one screen to another, by route name.
  public struct Edge: Hashable, Codable, Sendable, Comparable {
    /// The name of the screen before.
    public var from: String
    /// The name of the screen after (or, for a refused edge, the one the action aimed at).
    public var to: String
    /// The kind of transition.
    public var kind: EdgeKind
    /// Whether this is a refused attempt rather than a transition that happened.
    public var refused: Bool

    /// Creates an edge.
    ///
    /// - Parameters:
    ///   - from: The name of the screen before.
    ///   - to: The name of the screen after.
    ///   - kind: The kind of transition.
    ///   - refused: Whether the transition was refused.
    public init(from: String, to: String, kind: EdgeKind, refused: Bool = false) {
      self.from = from
      self.to = to
      self.kind = kind
      self.refused = refused
    }

    /// Orders edges by source, target, kind, then refused last, for stable output.
    public static func < (lhs: Edge, rhs: Edge) -> Bool {
      (lhs.from, lhs.to, lhs.kind.rawValue, lhs.refused ? 1 : 0)
        < (rhs.from, rhs.to, rhs.kind.rawValue, rhs.refused ? 1 : 0)
    }
  }

  /// The route names, in the order they were first seen.
  public private(set) var nodes: OrderedSet<String> = []
  /// The route names that start a stack.
  public private(set) var roots: OrderedSet<String> = []
  /// The tabs, by name, with the name of each one's root.
  public private(set) var tabs: OrderedDictionary<String, String> = [:]
  /// The edges with how often each was observed; 0 for an edge that is only allowed.
  public private(set) var edges: OrderedDictionary<Edge, Int> = [:]

  /// Creates an empty graph, ready to ``observe(from:to:)`` transitions.
  public init() {}

  /// The graph the rules allow: their roots and tabs, and an edge for each allowed push
  /// and presentation.
  ///
  /// Rules that allow everything have no graph to draw: the result is empty.
  ///
  /// - Parameter rules: The flow rules.
  /// - Returns: The graph, with every edge's count at 0.
  public static func allowed<Route>(by rules: FlowRules<Route>) -> FlowGraph {
    var graph = FlowGraph()
    for name in rules.routeNames { graph.nodes.append(name) }
    graph.roots = rules.roots
    graph.tabs = rules.tabs
    for (from, targets) in rules.pushes {
      for to in targets { graph.edges[Edge(from: from, to: to, kind: .push), default: 0] += 0 }
    }
    for (from, targets) in rules.presents {
      for to in targets { graph.edges[Edge(from: from, to: to, kind: .present), default: 0] += 0 }
    }
    return graph
  }

  /// How often the transition was observed (0 if never, or if it is only allowed).
  public func count(of edge: Edge) -> Int {
    edges[edge] ?? 0
  }

  /// Records the transition between two consecutive navigation states.
  ///
  /// The edge goes from the visible route before to the visible route after. Its kind is
  /// a tab switch if the selected tab changed, a presentation or dismissal if the number of
  /// presentations changed by one, a push or pop if the top stack grew by one route or
  /// shrank, and a jump otherwise. A state whose visible screen did not change adds no
  /// edge. A refused push, presentation or path (``NavigationState/refusalCount`` went up)
  /// adds a refused edge to the route it aimed at.
  ///
  /// - Parameters:
  ///   - before: The navigation state before an action.
  ///   - after: The navigation state after it.
  public mutating func observe<Route>(
    from before: NavigationState<Route>, to after: NavigationState<Route>
  ) {
    noteTabs(of: after)
    if after.refusalCount != before.refusalCount, let refusal = after.lastRefusal {
      let kind: EdgeKind?
      switch refusal.action {
      case "push": kind = .push
      case "present": kind = .present
      case "setPath": kind = .jump
      default: kind = nil
      }
      if let kind, let target = refusal.to {
        add(
          Edge(
            from: (refusal.from ?? before.visibleRoute).name, to: target.name, kind: kind,
            refused: true))
      }
      return
    }
    let from = before.visibleRoute
    let to = after.visibleRoute
    let kind: EdgeKind
    if before.selectedTab != after.selectedTab {
      kind = .tab
    } else if after.presentations.count == before.presentations.count + 1
      && after.presentations.starts(with: before.presentations)
    {
      kind = .present
    } else if after.presentations.count + 1 == before.presentations.count
      && before.presentations.starts(with: after.presentations)
    {
      kind = .dismiss
    } else if after.presentations.count == before.presentations.count {
      let old = before.currentStack
      let new = after.currentStack
      let lowerLayersKept = before.presentations.dropLast() == after.presentations.dropLast()
      if lowerLayersKept && old == new { return }
      if lowerLayersKept && new.count == old.count + 1 && new.starts(with: old) {
        kind = .push
      } else if lowerLayersKept && new.count < old.count && old.starts(with: new) {
        kind = .pop
      } else {
        kind = .jump
      }
    } else {
      kind = .jump
    }
    add(Edge(from: from.name, to: to.name, kind: kind))
  }

  /// Records the transitions between each pair of consecutive states of one session.
  ///
  /// - Parameter states: The navigation states of a session, in order (the initial state
  ///   first, then the state after each action).
  public mutating func observe<Route>(states: some Sequence<NavigationState<Route>>) {
    var previous: NavigationState<Route>?
    for state in states {
      if let previous {
        observe(from: previous, to: state)
      } else {
        noteTabs(of: state)
      }
      previous = state
    }
  }

  /// Adds another graph's nodes, roots, tabs and counts to this one.
  ///
  /// - Parameter other: The graph to add, such as the graph of another trace.
  public mutating func merge(_ other: FlowGraph) {
    nodes.append(contentsOf: other.nodes)
    roots.append(contentsOf: other.roots)
    for (tab, root) in other.tabs where tabs[tab] == nil { tabs[tab] = root }
    for (edge, count) in other.edges { edges[edge, default: 0] += count }
  }

  private mutating func add(_ edge: Edge) {
    nodes.append(edge.from)
    nodes.append(edge.to)
    edges[edge, default: 0] += 1
  }

  private mutating func noteTabs<Route>(of state: NavigationState<Route>) {
    for tab in state.tabs {
      let root = tab.stack[0].name
      if tabs[tab.name] == nil {
        tabs[tab.name] = root
        roots.append(root)
        nodes.append(root)
      }
    }
  }
}
