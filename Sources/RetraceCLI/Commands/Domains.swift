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
      print(JSONValue.object([("domains", .array(domains.map(Self.json)))]).text)
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
    }
  }

  static func invariants(of domain: some Domain) -> [(name: String, summary: String)] {
    domain.invariants.map { ($0.name, $0.summary) }
  }

  static func json(_ domain: any Domain) -> JSONValue {
    .object([
      ("name", .string(domain.name)),
      ("summary", .string(domain.summary)),
      ("actionSchemaVersion", .int(Int64(domain.actionSchemaVersion))),
      ("actionCases", .array(domain.actionCases.map(JSONValue.string))),
      (
        "invariants",
        .array(
          invariants(of: domain).map {
            .object([("name", .string($0.name)), ("summary", .string($0.summary))])
          })
      ),
    ])
  }
}
