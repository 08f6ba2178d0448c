import ArgumentParser
import Foundation
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace import`: a JSON Lines file as a trace.
struct Import: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Import a JSON Lines file (as the export command writes) as a trace.",
    discussion: """
      The actions are replayed through the domain's reducer while they are written, so the \
      new trace has its snapshots and checkpoints and passes `replay --verify`. A bad \
      line is an error that names its line number.
      """)

  @Argument(help: "The JSON Lines file to import.")
  var file: String

  @Option(name: .shortAndLong, help: "The trace to write.", transform: outputName)
  var output: String

  @OptionGroup var formatOptions: TraceFormatOptions
  @OptionGroup var colorOptions: ColorOptions

  mutating func run() async throws {
    Terminal.configureColor(colorOptions)
    let data = try SessionFile.readData(file)
    let header = try JSONLines.readHeader(from: data, path: file)
    let domain: any Domain
    do {
      domain = try CommandContext.registry.domain(named: header.domain)
    } catch {
      throw error.at(path: file)
    }
    try importSession(domain, data: data)
  }

  private func importSession<D: Domain>(_ domain: D, data: Data) throws {
    let session = try JSONLines.readSession(from: data, domain: domain, path: file)
    try SessionFile.write(
      session, domain: domain, to: output, formatVersion: formatOptions.traceFormat)
    // The trace written is a closed recording of the actions the file holds: whether the
    // session they came from closed is said here, as the trace cannot say it.
    let header = try JSONLines.readHeader(from: data, path: file)
    let unfinished =
      header.unfinished == true
      ? " (of an unfinished session: \(header.recoveredActions ?? 0) actions recovered from the journal; the trace written is closed)"
      : ""
    let damaged =
      header.damage.map {
        " (exported from a damaged trace, so they end before its damage: \($0); the trace written is closed)"
      } ?? ""
    Terminal.writeError(
      "imported \(session.actions.count) \(domain.name) actions into \(output)\(unfinished)\(damaged)"
        .oneLine())
  }
}
