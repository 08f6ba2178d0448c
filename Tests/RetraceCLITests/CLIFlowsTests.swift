import Foundation
import Testing

/// `retrace flows`: the navigation observed in traces, and the graph the rules allow.
@Suite struct CLIFlowsTests {
  @Test func observedFlowsCountTransitionsAcrossTraces() throws {
    let workspace = try Workspace()
    try workspace.run("generate posts --actions 2000 --seed 1 -o a.trace")
    try workspace.run("generate posts --actions 2000 --seed 2 -o b.trace")
    let one = try workspace.run("flows a.trace")
    #expect(one.exitCode == 0, "\(one)")
    #expect(one.stdout.hasPrefix("digraph \"posts\" {"))
    #expect(one.stdout.contains("[label=\"postList\", peripheries=2]"))
    let pushes = try #require(
      Self.count(of: "push", from: "postList", to: "postDetail", in: one.stdout))
    #expect(pushes > 0)

    // Two traces: the counts add up.
    let other = try workspace.run("flows b.trace").stdout
    let both = try workspace.run("flows a.trace b.trace").stdout
    #expect(
      Self.count(of: "push", from: "postList", to: "postDetail", in: both)
        == pushes + (Self.count(of: "push", from: "postList", to: "postDetail", in: other) ?? 0))

    let mermaid = try workspace.run("flows a.trace --format mermaid")
    #expect(mermaid.stdout.contains("flowchart LR"))
  }

  @Test func theRulesGraphHasTheAllowedEdgesOnly() throws {
    let workspace = try Workspace()
    let result = try workspace.run("flows --rules posts")
    #expect(result.exitCode == 0)
    #expect(result.stdout.contains("[label=\"push\"]"))
    #expect(result.stdout.contains("[label=\"present\", style=dashed]"))
    #expect(!result.stdout.contains(": "))  // no counts: nothing was observed
  }

  @Test func domainsWithoutNavigationAndBadArgumentsAreErrors() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 10 -o c.trace")
    try workspace.run("generate posts --actions 10 -o p.trace")
    let noFlow = try workspace.run("flows c.trace")
    #expect(noFlow.exitCode == 4)
    #expect(
      noFlow.stderr
        == "retrace: c.trace: domain counter has no navigation flow; domains with one: posts, banking\n"
    )
    #expect(try workspace.run("flows --rules counter").exitCode == 4)
    #expect(try workspace.run("flows --rules bakery").exitCode == 4)
    #expect(try workspace.run("flows p.trace c.trace").exitCode == 4)
    #expect(try workspace.run("flows").exitCode == 2)
    #expect(try workspace.run("flows p.trace --rules posts").exitCode == 2)
    #expect(try workspace.run("flows p.trace --format svg").exitCode == 2)
  }

  /// The count on the DOT edge `from -> to` labelled `kind: N`.
  static func count(of kind: String, from: String, to: String, in dot: String) -> Int? {
    var ids: [String: String] = [:]
    for line in dot.split(separator: "\n") {
      let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
      if parts.count == 2, parts[1].hasPrefix("[label=\""), !parts[0].contains("->") {
        let name = parts[1].dropFirst(8).prefix { $0 != "\"" }
        ids[String(name)] = String(parts[0])
      }
    }
    guard let fromID = ids[from], let toID = ids[to] else { return nil }
    for line in dot.split(separator: "\n")
    where line.contains("\(fromID) -> \(toID) [label=\"\(kind): ") {
      let number = line.split(separator: ":")[1].drop { $0 == " " }.prefix { $0.isNumber }
      return Int(number)
    }
    return nil
  }
}
