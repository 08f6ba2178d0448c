import ArgumentParser
import Foundation
import RetraceLog

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

/// The `--key` option every command that reads a trace takes: the private key of encrypted
/// traces, from a file, or from the `RETRACE_KEY` environment variable (a key file's path,
/// or the key's text itself).
public struct KeyOptions: ParsableArguments {
  /// The key file given with `--key`.
  @Option(
    name: .long,
    help: ArgumentHelp(
      "The private key (NAME.key, from `keygen`) of encrypted traces; RETRACE_KEY by default.",
      valueName: "file"))
  public var key: String?

  /// Creates the options with their defaults.
  public init() {}

  /// The private key given, or `nil` when none is.
  ///
  /// - Throws: `TraceError` naming the key file when it cannot be read or holds no private
  ///   key; never the key's text.
  package func load() throws(TraceError) -> TracePrivateKey? {
    if let key {
      // A key's text given as the path would be echoed in "no such key file": refuse it by
      // the option's name instead.
      guard !Self.looksLikeAKey(key) else {
        throw TraceError(
          .io, "takes a key file's path, not the key itself (use RETRACE_KEY for that)",
          path: "--key")
      }
      return try TracePrivateKey(contentsOfFile: key)
    }
    guard let value = ProcessInfo.processInfo.environment["RETRACE_KEY"],
      !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    else { return nil }
    do throws(TraceError) {
      if Self.looksLikeAKey(value) { return try TracePrivateKey(text: value) }
      guard FileManager.default.fileExists(atPath: value) else {
        throw TraceError(.notFound, "is neither a key nor the path of a key file")
      }
      return try TracePrivateKey(contentsOfFile: value)
    } catch {
      // Named as the variable, never by its value, which may be a key pasted wrongly.
      var error = error
      error.path = "RETRACE_KEY"
      throw error
    }
  }

  /// Whether `text` is (or holds) a key's text rather than a path: a path is echoed in
  /// errors, a key must never be.
  private static func looksLikeAKey(_ text: String) -> Bool {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    return trimmed.hasPrefix("RETRACE-") || trimmed.contains("\n")
      || (trimmed.count == 44 && Data(base64Encoded: trimmed) != nil)
  }
}

/// The `--trace-format` option of the commands that write traces: the format version to
/// write, the current one by default (docs/TRACE_FORMAT.md, 7).
public struct TraceFormatOptions: ParsableArguments {
  /// The format version to write.
  @Option(
    name: .long,
    help: ArgumentHelp(
      "The trace format to write: \(TraceFormat.version) (the default), or 1 for readers older than format 2.",
      valueName: "version"),
    transform: traceFormatVersion)
  public var traceFormat: UInt16 = TraceFormat.version

  /// Creates the options with their defaults.
  public init() {}
}

/// Reads a `--trace-format` value, so that a format this library does not write is a usage
/// error that names the ones it does.
func traceFormatVersion(_ text: String) throws -> UInt16 {
  guard let version = UInt16(text), (1...TraceFormat.version).contains(version) else {
    throw ValidationError("--trace-format is 1 or \(TraceFormat.version).")
  }
  return version
}
