import ArgumentParser
import Retrace
import RetraceDebugger
import RetraceLog

/// `retrace generate`: a realistic session from a domain's workload generator.
struct Generate: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Generate a realistic session from a domain's workload generator.",
    discussion: """
      The same domain, count and seed always give the same session. With --action-schema, \
      the trace's actions are written in an older version of the domain's action schema, as \
      an older release of the app recorded them; reading such a trace exercises the \
      domain's upcaster. With --redact, the trace's personal data is pseudonymized or \
      dropped by the domain's redaction policy (docs/PRIVACY.md), with a key derived from the \
      seed: sample traces stay the same every time, and the key protects nothing (an app \
      keeps a secret one). With --encrypt-to, the trace is encrypted to a public key made by \
      `keygen`, and only its private key reads it.
      """)

  @Argument(help: "The domain to generate a session of (see the `domains` command).")
  var domain: String

  /// The most actions `generate` makes: the session is held in memory (about 100 bytes an
  /// action for banking) before it is written.
  static let maximumActions = 100_000_000

  @Option(
    name: .long, parsing: .unconditional, help: "The number of actions (at most 100,000,000).")
  var actions: Int

  @Option(name: .long, parsing: .unconditional, help: "The seed of the generator.")
  var seed: UInt64 = 1

  @Option(name: .shortAndLong, help: "The file to write.", transform: outputName)
  var output: String

  @Option(
    name: .long,
    help:
      "Write the actions in this older action schema version (traces only; default: the current one)."
  )
  var actionSchema: Int?

  @Flag(
    name: .long,
    help: "Pseudonymize or drop personal data by the domain's redaction policy (traces only).")
  var redact = false

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Encrypt the trace to this public key (NAME.pub, from `keygen`; traces only).",
      valueName: "file"))
  var encryptTo: String?

  @OptionGroup var formatOptions: TraceFormatOptions
  @OptionGroup var colorOptions: ColorOptions

  func validate() throws {
    guard actions >= 0 else {
      throw ValidationError("--actions must be 0 or more, not \(actions).")
    }
    // The session is built in memory before it is written.
    guard actions <= Self.maximumActions else {
      throw ValidationError("--actions must be at most \(Self.maximumActions), not \(actions).")
    }
    if redact {
      guard !output.hasSuffix(".jsonl"), actionSchema == nil else {
        throw ValidationError(
          "--redact writes traces in the current action schema: not with .jsonl or --action-schema."
        )
      }
    }
    if encryptTo != nil, output.hasSuffix(".jsonl") {
      throw ValidationError("--encrypt-to writes traces, not JSON Lines.")
    }
    if let actionSchema {
      guard actionSchema >= 1 else {
        throw ValidationError("--action-schema must be 1 or more, not \(actionSchema).")
      }
      guard !output.hasSuffix(".jsonl") else {
        throw ValidationError(
          "--action-schema writes traces; JSON Lines are always in the current action schema.")
      }
    }
  }

  mutating func run() async throws {
    Terminal.configureColor(colorOptions)
    let domain = try CommandContext.registry.domain(named: domain)
    try generate(domain)
  }

  private func generate<D: Domain>(_ domain: D) throws {
    // The domain is the problem, not the output file: the error names no file.
    guard domain.workload != nil else {
      throw DebuggerError(
        .unknownDomain, "domain \(domain.name) has no workload, so it cannot generate sessions")
    }
    if redact && domain.redaction == nil {
      throw DebuggerError(.unknownDomain, "domain \(domain.name) declares no redaction policy")
    }
    let encryptionKey = try encryptTo.map { path throws(TraceError) in
      try TracePublicKey(contentsOfFile: path)
    }
    let (actions, _) = domain.generate(count: actions, seed: seed)
    let session = RecordedSession(
      domain: domain, actions: actions, sessionID: "\(domain.name)-seed-\(seed)")
    try SessionFile.write(
      session, domain: domain, to: output, actionSchema: actionSchema,
      redactionKey: redact ? .demonstration(seed: seed) : nil, encryptionKey: encryptionKey,
      formatVersion: formatOptions.traceFormat)
    let schema = actionSchema.map { " in action schema \($0)" } ?? ""
    let redacted = (redact ? " redacted" : "") + (encryptionKey != nil ? " encrypted" : "")
    Terminal.writeError(
      "wrote \(actions.count)\(redacted) \(domain.name) actions\(schema) to \(output)".oneLine())
  }
}
