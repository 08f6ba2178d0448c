import OrderedCollections

extension FlowGraph {
  /// The graph in Graphviz DOT, ready for `dot -Tsvg`.
  ///
  /// Roots have a double border; each tab is a plain-text entry node pointing at its root.
  /// Pushes are solid, presentations dashed, pops and dismissals dotted grey, tab switches
  /// blue, jumps dashed grey, and refused attempts red with a bar for an arrowhead. An
  /// observed edge's label carries its count (`push: 12`). Nodes and edges are sorted by
  /// name, so equal graphs print equal text.
  ///
  /// ```swift
  /// print(FlowGraph.allowed(by: postsRules).dot(title: "posts"))
  /// // digraph "posts" {
  /// //   rankdir=LR;
  /// //   …
  /// //   n1 [label="postDetail"];
  /// //   n2 [label="postList", peripheries=2];
  /// //   …
  /// //   n2 -> n1 [label="push"];
  /// // }
  /// ```
  ///
  /// - Parameter title: The graph's name.
  /// - Returns: The DOT text, ending with a newline.
  public func dot(title: String = "flow") -> String {
    let ids = nodeIDs()
    var lines = [
      "digraph \(dotQuoted(title)) {",
      "  rankdir=LR;",
      "  node [shape=box, style=rounded, fontname=\"Helvetica\"];",
      "  edge [fontname=\"Helvetica\", fontsize=10];",
    ]
    for (name, id) in ids {
      let root = roots.contains(name) ? ", peripheries=2" : ""
      lines.append("  \(id) [label=\(dotQuoted(name))\(root)];")
    }
    for (index, (tab, root)) in sortedTabs().enumerated() {
      lines.append("  t\(index) [label=\(dotQuoted("\(tab) tab")), shape=plaintext];")
      if let id = ids[root] {
        lines.append("  t\(index) -> \(id) [style=dotted, arrowhead=empty];")
      }
    }
    for (edge, count) in edges.sorted(by: { $0.key < $1.key }) {
      guard let from = ids[edge.from], let to = ids[edge.to] else { continue }
      var attributes = ["label=\(dotQuoted(label(edge, count: count)))"]
      attributes += dotStyle(edge)
      lines.append("  \(from) -> \(to) [\(attributes.joined(separator: ", "))];")
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The graph as a Mermaid flowchart, for Markdown renderers that draw Mermaid.
  ///
  /// Roots are drawn as subroutine boxes, tabs as flags pointing at their roots. Pushes are
  /// `-->`, presentations `==>`, pops, dismissals, tab switches and jumps `-.->`, refused
  /// attempts `--x`; every edge is labelled with its kind (and its count when observed).
  /// Labels are quoted, with `"`, `#`, `<`, `>`, `&`, `|` and backticks written as Mermaid
  /// entity codes.
  ///
  /// ```swift
  /// print(FlowGraph.allowed(by: postsRules).mermaid())
  /// // flowchart LR
  /// //   n1["postDetail"]
  /// //   n2[["postList"]]
  /// //   …
  /// //   n2 -->|"push"| n1
  /// ```
  ///
  /// - Parameter title: A title, written as a Mermaid comment.
  /// - Returns: The Mermaid text, ending with a newline.
  public func mermaid(title: String? = nil) -> String {
    let ids = nodeIDs()
    var lines: [String] = []
    if let title {
      lines.append("%% \(title.split(whereSeparator: \.isNewline).joined(separator: " "))")
    }
    lines.append("flowchart LR")
    for (name, id) in ids {
      let label = mermaidQuoted(name)
      lines.append(roots.contains(name) ? "  \(id)[[\(label)]]" : "  \(id)[\(label)]")
    }
    for (index, (tab, root)) in sortedTabs().enumerated() {
      lines.append("  t\(index)>\(mermaidQuoted("\(tab) tab"))]")
      if let id = ids[root] { lines.append("  t\(index) -.- \(id)") }
    }
    for (edge, count) in edges.sorted(by: { $0.key < $1.key }) {
      guard let from = ids[edge.from], let to = ids[edge.to] else { continue }
      let arrow: String
      if edge.refused {
        arrow = "--x"
      } else {
        switch edge.kind {
        case .push: arrow = "-->"
        case .present: arrow = "==>"
        case .pop, .dismiss, .tab, .jump: arrow = "-.->"
        }
      }
      lines.append("  \(from) \(arrow)|\(mermaidQuoted(label(edge, count: count)))| \(to)")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Node identifiers `n0`, `n1`, … by sorted name; names never appear unquoted.
  private func nodeIDs() -> OrderedDictionary<String, String> {
    var ids: OrderedDictionary<String, String> = [:]
    for (index, name) in nodes.sorted().enumerated() { ids[name] = "n\(index)" }
    return ids
  }

  private func sortedTabs() -> [(String, String)] {
    tabs.map { ($0.key, $0.value) }
  }

  private func label(_ edge: Edge, count: Int) -> String {
    let kind = edge.refused ? "\(edge.kind.rawValue) (refused)" : edge.kind.rawValue
    return count > 0 ? "\(kind): \(count)" : kind
  }

  private func dotStyle(_ edge: Edge) -> [String] {
    if edge.refused { return ["color=red", "fontcolor=red", "style=dashed", "arrowhead=tee"] }
    switch edge.kind {
    case .push: return []
    case .present: return ["style=dashed"]
    case .pop, .dismiss: return ["style=dotted", "color=gray40", "fontcolor=gray40"]
    case .tab: return ["color=blue", "fontcolor=blue"]
    case .jump: return ["style=dashed", "color=gray40", "fontcolor=gray40"]
    }
  }
}

/// A DOT double-quoted string: backslashes and quotes escaped, line breaks as `\n`.
func dotQuoted(_ text: String) -> String {
  var result = "\""
  for character in text {
    switch character {
    case "\\": result += "\\\\"
    case "\"": result += "\\\""
    case "\n", "\r\n", "\r": result += "\\n"
    default: result.append(character)
    }
  }
  return result + "\""
}

/// A Mermaid quoted label: characters that Mermaid would read as syntax or markup are
/// written as entity codes (`#quot;`, `#35;`, …), line breaks as spaces.
func mermaidQuoted(_ text: String) -> String {
  var result = "\""
  for character in text {
    switch character {
    case "\"": result += "#quot;"
    case "#": result += "#35;"
    case "<": result += "#lt;"
    case ">": result += "#gt;"
    case "&": result += "#amp;"
    case "|": result += "#124;"
    case "`": result += "#96;"
    case "\n", "\r\n", "\r": result += " "
    default: result.append(character)
    }
  }
  return result + "\""
}
