import ArgumentParser

/// The `--json` flag, for commands that can print JSON.
public struct JSONOptions: ParsableArguments {
  /// Whether to print JSON instead of text.
  @Flag(name: .long, help: "Print JSON with stable keys (see docs/CLI.md) instead of text.")
  public var json = false

  /// Creates the options with their defaults.
  public init() {}
}

/// Checks an `--output` value as it is parsed, so that a bad one is a usage error before
/// any work is done.
func outputName(_ name: String) throws -> String {
  guard !name.isEmpty else { throw ValidationError("--output must name a file.") }
  return name
}

/// Reads a sequence-number option (`--at`, `--from`, `--to`), so that a negative or
/// non-numeric value is a usage error that gives the range. Such options are parsed
/// `.unconditional`ly, so that `--at -5` reaches here rather than reading as an option.
func sequenceNumber(_ text: String) throws -> UInt64 {
  guard let number = UInt64(text) else {
    throw ValidationError("a sequence number is a whole number from 0 to \(UInt64.max)")
  }
  return number
}

/// The colour flags every command takes.
public struct ColorOptions: ParsableArguments {
  /// `true` forces colour, `false` turns it off, `nil` decides by the terminal.
  @Flag(
    inversion: .prefixedNo,
    help:
      "Color the output; by default only when stdout is a terminal, TERM is not dumb and NO_COLOR is not set."
  )
  public var color: Bool?

  /// Creates the options with their defaults.
  public init() {}
}
