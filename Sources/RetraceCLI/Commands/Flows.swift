import ArgumentParser
import Retrace
import RetraceCoordinator
import RetraceDebugger
import RetraceLog

/// `retrace flows`: the navigation graph observed in traces, or allowed by the flow rules.
struct Flows: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the navigation graph observed in traces, or allowed by a domain's flow rules.",
    discussion: """
      With traces: replays them and prints every screen-to-screen transition with how often \
      it happened (refused attempts in red). With --rules DOMAIN: the transitions the \
      domain's flow rules allow. Graphviz DOT (render with `dot -Tsvg`) or Mermaid.
      """)

  /// The output formats.
  enum Format: String, ExpressibleByArgument, CaseIterable {
    case dot
    case mermaid
  }

  @Argument(help: "The traces whose navigation to draw (all of one domain).")
  var traces: [String] = []

  @Option(
    name: .long, help: "Draw the graph the flow rules of this domain allow, instead of traces.")
  var rules: String?

  @Option(name: .long, help: "The output format.")
  var format: Format = .dot

  @OptionGroup var colorOptions: ColorOptions
  @OptionGroup var keyOptions: KeyOptions

  func validate() throws {
    if traces.isEmpty && rules == nil { throw ValidationError("Give traces, or --rules DOMAIN.") }
    if !traces.isEmpty && rules != nil {
      throw ValidationError("Give traces or --rules DOMAIN, not both.")
    }
  }

  mutating func run() async throws {
    let key = try keyOptions.load()
    Terminal.configureColor(colorOptions)
    let graph: FlowGraph
    let title: String
    if let rules {
      let flow = try Self.flow(for: try CommandContext.registry.domain(named: rules).name)
      graph = flow.allowed
      title = rules
    } else {
      var merged = FlowGraph()
      var domainName: String?
      for path in traces {
        let file = try SessionFile.open(path, key: key)
        let domain = try file.domain()
        if let domainName, domainName != domain.name {
          throw DebuggerError(
            .wrongDomain,
            "\(path) is a \(domain.name) trace, not \(domainName); flows draws one domain")
        }
        domainName = domain.name
        let flow = try Self.flow(for: domain.name, path: path)
        merged.merge(try observe(domain, file, flow))
      }
      graph = merged
      title = domainName ?? "flow"
    }
    switch format {
    case .dot: print(graph.dot(title: title), terminator: "")
    case .mermaid: print(graph.mermaid(title: title), terminator: "")
    }
  }

  private func observe<D: Domain>(_ domain: D, _ file: SessionFile, _ flow: NavigationFlow) throws
    -> FlowGraph
  {
    flow.observed(in: try file.load(as: domain)) ?? FlowGraph()
  }

  private static func flow(for domain: String, path: String? = nil) throws(DebuggerError)
    -> NavigationFlow
  {
    let flows = CommandContext.flows
    guard let flow = flows.first(where: { $0.domain == domain }) else {
      let known = flows.map(\.domain)
      throw DebuggerError(
        .unknownDomain,
        "domain \(domain) has no navigation flow; domains with one: "
          + (known.isEmpty ? "none" : known.joined(separator: ", ")),
        path: path)
    }
    return flow
  }
}
