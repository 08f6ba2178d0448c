import ArgumentParser
import Foundation
import Retrace
import RetraceDebugger
import RetraceLog

/// One of `count` parts of a corpus (`replay --shard K/N`), so that `count` workers together
/// replay each trace exactly once.
///
/// A trace belongs to shard `XXH64(path) % count`, its path hashed as it was given (after a
/// directory is expanded, or as its line in a `--from-list` file). The split depends on
/// nothing but the path and `count`: every worker that is given the same paths agrees on it,
/// whatever the order of the paths or the machine, and a trace added to the corpus moves no
/// other. `index` is 0-based, as a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` is.
struct Shard: Equatable, Sendable {
  /// This shard, from 0 through `count - 1`.
  let index: Int
  /// How many shards there are.
  let count: Int

  init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }

  /// Parses `K/N`, as in `--shard 0/4`: the transform of the `--shard` option.
  ///
  /// - Throws: A usage error that says what a shard is, for anything but `K/N` with
  ///   `0 <= K < N`.
  static func parse(_ argument: String) throws -> Shard {
    let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
      (0..<count).contains(index)
    else {
      throw ValidationError(
        "shard K of N is K/N, and K runs from 0 to N-1, as in 0/4")
    }
    return Shard(index: index, count: count)
  }

  /// The shard that the trace at `path` belongs to, of `count`.
  static func of(_ path: String, count: Int) -> Int {
    Int(XXH64.hash(Array(path.utf8)) % UInt64(count))
  }

  /// Whether the trace at `path` belongs to this shard.
  func contains(_ path: String) -> Bool {
    Self.of(path, count: count) == index
  }

  /// `K/N`.
  var description: String { "\(index)/\(count)" }
}

/// The paths a `--from-list` file names: one per line, blank lines skipped; `-` reads
/// standard input.
///
/// - Throws: `TraceError` when the file cannot be read or is not UTF-8 text.
func pathsListed(in list: String) throws(TraceError) -> [String] {
  let data: Data
  if list == "-" {
    data = FileHandle.standardInput.readDataToEndOfFile()
  } else {
    data = try SessionFile.readData(list)
  }
  guard let text = String(data: data, encoding: .utf8) else {
    throw TraceError(.io, "the list of traces is not UTF-8 text", path: list)
  }
  return text.split(whereSeparator: \.isNewline).compactMap { line in
    // A line's surrounding blanks are not part of a path (a list written by hand, or with
    // CRLF line ends); a path that starts or ends with blanks cannot be listed.
    let path = line.trimmingCharacters(in: .whitespaces)
    return path.isEmpty ? nil : path
  }
}
