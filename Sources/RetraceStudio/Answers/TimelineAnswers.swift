import RetraceCoordinator
import RetraceLog

/// `GET …/lanes`: actions counted per case in equal spans of time, with the first sequence
/// number of each case in each span. `start` and `end` are `null`, and `from` and `to` left
/// out, when no action is in the span asked for.
struct LanesAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var buckets: Int
  @NullWhenAbsent var start: Double?
  @NullWhenAbsent var end: Double?
  var from: UInt64?
  var to: UInt64?
  var lanes: [Lane]

  struct Lane: Codable, Sendable, Equatable {
    var `case`: String
    var counts: [Int]
    var first: [UInt64?]
  }
}

/// `GET …/flows`: the navigation graph the flow rules allow, and the one the session took.
struct FlowsAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var allowed: FlowGraphAnswer
  var observed: FlowGraphAnswer
}

/// A navigation graph as the page draws it.
struct FlowGraphAnswer: Codable, Sendable, Equatable {
  var nodes: [String]
  var roots: [String]
  var tabs: [String: String]
  var edges: [Edge]

  struct Edge: Codable, Sendable, Equatable {
    var from: String
    var to: String
    var kind: String
    var refused: Bool
    var count: Int
  }

  init(_ graph: FlowGraph) {
    nodes = Array(graph.nodes)
    roots = Array(graph.roots)
    tabs = Dictionary(graph.tabs.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    edges = graph.edges.map { edge, count in
      Edge(
        from: edge.from, to: edge.to, kind: edge.kind.rawValue, refused: edge.refused,
        count: count)
    }
  }
}
