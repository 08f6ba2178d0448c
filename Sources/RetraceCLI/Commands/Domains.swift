import ArgumentParser
@preconcurrency import Rainbow
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace domains`: the registered domains with their action cases and invariants.
struct Domains: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the registered domains with their action cases and invariants.")

  @OptionGroup var output: JSONOptions
  @OptionGroup var colorOptions: ColorOptions

  mutating func run() async throws {
    Terminal.configureColor(colorOptions)
    let domains = CommandContext.registry.domains
    if output.json {
      print(try ReportJSON.text(DomainsReport(domains: domains.map(Self.report))))
      return
    }
    for (index, domain) in domains.enumerated() {
      if index > 0 { print("") }
      print("\(domain.name.bold)  \(domain.summary)")
      print("  action schema  \(domain.actionSchemaVersion)")
      print("  action cases   \(domain.actionCases.joined(separator: ", "))")
      if Self.invariants(of: domain).isEmpty {
        print("  invariants     none")
      } else {
        for (position, invariant) in Self.invariants(of: domain).enumerated() {
          let label = position == 0 ? "  invariants     " : "                 "
          print("\(label)\(invariant.name.cyan)  \(invariant.summary)")
        }
      }
      for (position, predicate) in Self.predicates(of: domain).enumerated() {
        let label = position == 0 ? "  predicates     " : "                 "
        print("\(label)\(predicate.name.cyan)  \(predicate.summary)")
      }
      print(
        "  check          "
          + (Self.explorable(domain)
            ? "exploration actions declared (\(CommandContext.name) check \(domain.name))"
            : "no exploration actions"))
    }
  }

  static func predicates(of domain: some Domain) -> [(name: String, summary: String)] {
    domain.predicates.map { ($0.name, $0.summary) }
  }

  static func explorable(_ domain: some Domain) -> Bool {
    domain.explorationActions != nil
  }

  static func invariants(of domain: some Domain) -> [(name: String, summary: String)] {
    domain.invariants.map { ($0.name, $0.summary) }
  }

  /// A domain as `domains --json` lists it.
  static func report(_ domain: any Domain) -> DomainsReport.RegisteredDomain {
    DomainsReport.RegisteredDomain(
      name: domain.name, summary: domain.summary,
      actionSchemaVersion: domain.actionSchemaVersion, actionCases: domain.actionCases,
      invariants: invariants(of: domain).map {
        DomainsReport.Invariant(name: $0.name, summary: $0.summary)
      },
      predicates: predicates(of: domain).map {
        DomainsReport.Invariant(name: $0.name, summary: $0.summary)
      },
      explorable: explorable(domain))
  }
}
