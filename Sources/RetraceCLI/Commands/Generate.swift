import ArgumentParser
import Retrace
import RetraceDebugger

/// `retrace generate`: a realistic session from a domain's workload generator.
struct Generate: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Generate a realistic session from a domain's workload generator.",
    discussion: "The same domain, count and seed always give the same session.")

  @Argument(help: "The domain to generate a session of (see `retrace domains`).")
  var domain: String

  @Option(name: .long, help: "The number of actions.")
  var actions: Int

  @Option(name: .long, help: "The seed of the generator.")
  var seed: UInt64 = 1

  @Option(name: .shortAndLong, help: "The file to write.")
  var output: String

  @OptionGroup var colorOptions: ColorOptions

  func validate() throws {
    guard actions >= 0 else { throw ValidationError("--actions must be 0 or more, not \(actions).") }
  }

  mutating func run() async throws {
    Terminal.configureColor(colorOptions)
    let domain = try CommandContext.registry.domain(named: domain)
    try generate(domain)
  }

  private func generate<D: Domain>(_ domain: D) throws {
    let (actions, _) = domain.generate(count: actions, seed: seed)
    let session = RecordedSession(domain: domain, actions: actions, sessionID: "\(domain.name)-seed-\(seed)")
    try SessionFile.write(session, domain: domain, to: output)
    Terminal.writeError("wrote \(actions.count) \(domain.name) actions to \(output)")
  }
}
