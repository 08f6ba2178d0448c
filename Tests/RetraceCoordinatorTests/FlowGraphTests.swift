import Foundation
import RetraceCoordinator
import RetraceExamples
import Testing

/// The path of graphviz's `dot`, if it is installed.
let dotExecutable: String? = {
  let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(
    separator: ":")
  return directories.map { "\($0)/dot" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}()

/// Runs `dot -Tsvg` on `text`; returns the exit status, stdout and stderr.
func runDot(_ text: String) throws -> (status: Int32, output: String, errors: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: dotExecutable!)
  process.arguments = ["-Tsvg"]
  let input = Pipe()
  let output = Pipe()
  let errors = Pipe()
  process.standardInput = input
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  input.fileHandleForWriting.write(Data(text.utf8))
  try input.fileHandleForWriting.close()
  let out = output.fileHandleForReading.readDataToEndOfFile()
  let err = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (
    process.terminationStatus, String(decoding: out, as: UTF8.self),
    String(decoding: err, as: UTF8.self)
  )
}

@Suite("Flow graphs")
struct FlowGraphTests {
  typealias Edge = FlowGraph.Edge

  @Test func theAllowedGraphHasTheRulesEdges() {
    let graph = FlowGraph.allowed(by: PostsFlow.rules)
    #expect(
      Set(graph.edges.keys) == [
        Edge(from: "postList", to: "postDetail", kind: .push),
        Edge(from: "postDetail", to: "share", kind: .present),
        Edge(from: "settings", to: "about", kind: .push),
      ])
    #expect(graph.edges.values.allSatisfy { $0 == 0 })
    #expect(Set(graph.nodes) == ["postList", "postDetail", "share", "settings", "about"])
    #expect(graph.roots == ["postList", "settings"])
    #expect(graph.tabs == ["feed": "postList", "settings": "settings"])
    #expect(FlowGraph.allowed(by: FlowRules<PostsRoute>.allowingEverything).edges.isEmpty)
  }

  @Test func theAllowedGraphPrintsAsDOT() {
    #expect(
      FlowGraph.allowed(by: PostsFlow.rules).dot(title: "posts") == """
        digraph "posts" {
          rankdir=LR;
          node [shape=box, style=rounded, fontname="Helvetica"];
          edge [fontname="Helvetica", fontsize=10];
          n0 [label="about"];
          n1 [label="postDetail"];
          n2 [label="postList", peripheries=2];
          n3 [label="settings", peripheries=2];
          n4 [label="share"];
          t0 [label="feed tab", shape=plaintext];
          t0 -> n2 [style=dotted, arrowhead=empty];
          t1 [label="settings tab", shape=plaintext];
          t1 -> n3 [style=dotted, arrowhead=empty];
          n1 -> n4 [label="present", style=dashed];
          n2 -> n1 [label="push"];
          n3 -> n0 [label="push"];
        }

        """)
  }

  @Test func theAllowedGraphPrintsAsMermaid() {
    #expect(
      FlowGraph.allowed(by: PostsFlow.rules).mermaid(title: "posts") == """
        %% posts
        flowchart LR
          n0["about"]
          n1["postDetail"]
          n2[["postList"]]
          n3[["settings"]]
          n4["share"]
          t0>"feed tab"]
          t0 -.- n2
          t1>"settings tab"]
          t1 -.- n3
          n1 ==>|"present"| n4
          n2 -->|"push"| n1
          n3 -->|"push"| n0

        """)
  }

  @Test func observingCountsEachKindOfTransition() {
    let rules = PostsFlow.rules
    var nav = PostsFlow.initialNavigation
    var states = [nav]
    let actions: [NavigationAction<PostsRoute>] = [
      .push(route: .postDetail(id: 1)), .pop, .push(route: .postDetail(id: 2)),
      .present(route: .share, style: .sheet), .dismiss, .pop, .selectTab(tab: "settings"),
      .push(route: .postList),  // refused
      .push(route: .about), .popToRoot,
      .setPath(
        path: RoutePath(
          tab: "feed", stack: [.postList, .postDetail(id: 3)], presentations: [Presentation(.share)]
        )),
      .selectTab(tab: "nope"),  // refused, but not a rule about routes: no edge
    ]
    for action in actions {
      nav.apply(action, rules: rules)
      states.append(nav)
    }
    var graph = FlowGraph()
    graph.observe(states: states)
    #expect(graph.count(of: Edge(from: "postList", to: "postDetail", kind: .push)) == 2)
    #expect(graph.count(of: Edge(from: "postDetail", to: "postList", kind: .pop)) == 2)
    #expect(graph.count(of: Edge(from: "postDetail", to: "share", kind: .present)) == 1)
    #expect(graph.count(of: Edge(from: "share", to: "postDetail", kind: .dismiss)) == 1)
    #expect(graph.count(of: Edge(from: "postList", to: "settings", kind: .tab)) == 1)
    #expect(
      graph.count(of: Edge(from: "settings", to: "postList", kind: .push, refused: true)) == 1)
    #expect(graph.count(of: Edge(from: "settings", to: "about", kind: .push)) == 1)
    #expect(graph.count(of: Edge(from: "about", to: "settings", kind: .pop)) == 1)
    #expect(graph.count(of: Edge(from: "settings", to: "share", kind: .tab)) == 1)
    #expect(graph.edges.count == 9)
    #expect(graph.roots == ["postList", "settings"])

    var twice = graph
    twice.merge(graph)
    #expect(twice.count(of: Edge(from: "postList", to: "postDetail", kind: .push)) == 4)

    var combined = FlowGraph.allowed(by: rules)
    combined.merge(graph)
    #expect(combined.dot().contains(#"label="push: 2""#))
    #expect(combined.dot().contains(#"label="push (refused): 1", color=red"#))
  }

  @Test func aDeepLinkWithinTheSameLayersIsAJump() {
    let rules = PostsFlow.rules
    var nav = PostsFlow.initialNavigation
    nav.apply(.push(route: .postDetail(id: 1)), rules: rules)
    let before = nav
    nav.apply(
      .setPath(path: RoutePath(tab: "feed", stack: [.postList, .postDetail(id: 2)])), rules: rules)
    var graph = FlowGraph()
    graph.observe(from: before, to: nav)
    #expect(graph.edges.keys.elements == [Edge(from: "postDetail", to: "postDetail", kind: .jump)])
    // A state that did not move adds nothing.
    graph.observe(from: nav, to: nav)
    #expect(graph.edges.count == 1)
  }

  @Test func labelsAreEscaped() {
    var graph = FlowGraph()
    let weird = WeirdRoute(label: "say \"hi\" \\ <b>|#1; & `x`\nnext -> {}")
    var nav = NavigationState(root: WeirdRoute(label: "root"))
    let before = nav
    nav.apply(.push(route: weird), rules: .allowingEverything)
    graph.observe(from: before, to: nav)
    let dot = graph.dot(title: "a \"title\"")
    #expect(dot.contains(#"digraph "a \"title\"" {"#))
    #expect(dot.contains(#"[label="say \"hi\" \\ <b>|#1; & `x`\nnext -> {}"]"#))
    let mermaid = graph.mermaid(title: "multi\nline")
    #expect(
      mermaid.contains(
        #"["say #quot;hi#quot; \ #lt;b#gt;#124;#35;1; #amp; #96;x#96; next -#gt; {}"]"#))
    #expect(mermaid.hasPrefix("%% multi line\nflowchart LR\n"))
  }

  @Test(
    .enabled(
      if: dotExecutable != nil,
      "graphviz's dot is not installed; install the graphviz package to run this check"))
  func everyExportRendersWithGraphviz() throws {
    var observed = FlowGraph.allowed(by: PostsFlow.rules)
    for seed: UInt64 in 1...3 {
      var state = postsDomain.initialState
      var states = [state.navigation]
      for action in postsDomain.generate(count: 1_000, seed: seed).actions {
        _ = postsDomain.reduce(into: &state, action: action)
        states.append(state.navigation)
      }
      observed.observe(states: states)
    }
    var weird = FlowGraph()
    var nav = NavigationState(root: WeirdRoute(label: "root \"quoted\" \\"))
    let before = nav
    nav.apply(
      .push(route: WeirdRoute(label: "a\nb -> c; } digraph { ü")), rules: .allowingEverything)
    weird.observe(from: before, to: nav)

    for (name, graph) in [
      ("allowed", FlowGraph.allowed(by: PostsFlow.rules)), ("observed", observed), ("weird", weird),
      ("empty", FlowGraph()),
    ] {
      let result = try runDot(graph.dot(title: name))
      #expect(result.status == 0, "dot failed on the \(name) graph: \(result.errors)")
      #expect(result.errors.isEmpty, "dot warned on the \(name) graph: \(result.errors)")
      #expect(result.output.contains("<svg"))
    }
  }
}

/// A route whose name is any text, to test escaping.
struct WeirdRoute: Routable {
  var label: String
  var name: String { label }
}
