import Foundation
import Retrace
import RetraceExamples
import RetraceTestSupport
import Testing

@testable import RetraceLog

/// Every command on hostile files: empty, truncated, bit-flipped, with length fields that
/// claim gigabytes, of an unknown domain, or with another domain's records. Each run must
/// exit with the documented code (README: 0 ok, 1 negative answer, 3 unreadable or
/// damaged file, 4 unknown domain), say why in one error line naming the file (after at
/// most one warning about the damage), and never trap.
@Suite struct HostileTraceTests {
  /// The commands that read a trace (`domains` and `generate` read none), with `@` for the
  /// file.
  static let commands = [
    "info @", "verify @", "log @", "state @", "diff @ --from 1 --to 2", "diff @ @", "replay @",
    "replay @ --verify", "bisect @ --invariant non-negative-balance",
    "shrink @ --invariant non-negative-balance -o shrunk.trace", "bench @ --repeat 1",
    "export @ --format jsonl", "flows @", "debug @", "import @ -o imported.jsonl",
  ]

  /// A clean banking trace of several chunks (so that damage can leave an intact prefix),
  /// in trace format `format`.
  static func cleanTrace(in workspace: Workspace, format: UInt16 = TraceFormat.version) throws
    -> [UInt8]
  {
    var configuration = TraceRecorderConfiguration()
    configuration.formatVersion = format
    configuration.chunkSize = 2_048
    configuration.checkpointInterval = 50
    configuration.snapshotInterval = 500
    configuration.maxSnapshotShare = 1
    configuration.reproducibleCheckpoints = true  // the same file, and the same damage, every run
    let path = workspace.path("clean.trace")
    let recorder = try TraceRecorder<BankingState, BankingAction>(
      path: path, domain: bankingDomain, sessionID: "hostile", startTime: 1_763_771_000,
      configuration: configuration)
    var state = bankingDomain.initialState
    recorder.attached(sequence: 0, state: state)
    var random = SeededRandom(seed: 3)
    for step in 0..<600 {
      let action = bankingDomain.workload!.next(state, step, &random)
      _ = bankingDomain.reduce(into: &state, action: action)
      recorder.record(
        Transition(
          sequence: UInt64(step + 1), time: 1_763_771_000 + Double(step), action: action,
          stateBefore: nil, stateAfter: state))
    }
    recorder.checkpoint(state: state, after: 600)
    try recorder.close()
    return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// The header with its domain renamed (same length) and its checksum redone.
  static func renamingDomain(_ trace: [UInt8], to name: String) -> [UInt8] {
    var bytes = trace
    let size = (4..<8).reduce(0) { $0 | Int(bytes[$1]) << (8 * ($1 - 4)) }
    let old = Array("banking".utf8)
    let at = (8..<(8 + size)).first { Array(bytes[$0..<($0 + old.count)]) == old }!
    bytes.replaceSubrange(at..<(at + old.count), with: Array(name.utf8))
    bytes.setLittleEndian(CRC32C.checksum(Array(bytes[8..<(8 + size - 4)])), at: 8 + size - 4)
    return bytes
  }

  /// The hostile files, by name, and the exit code each command should give.
  static func hostileFiles(_ clean: [UInt8]) throws -> [(
    name: String, bytes: [UInt8], expected: (String) -> Int32
  )] {
    let reader = try TraceReader(bytes: clean)
    // The first chunk holds the starting snapshot, the second the first actions: damage in
    // the third leaves an intact prefix of actions.
    let second = reader.chunks[2]
    let headerEnd = reader.chunks[0].offset
    // Every reading command refuses a file it cannot open (3); import takes JSON Lines only.
    let refused: (String) -> Int32 = { _ in 3 }
    // Damage after the first chunks: the intact prefix is used, with a warning; `verify`
    // and `replay --verify` answer "damaged" (1). `flows` works on the prefix; `bisect` does
    // too, and answers that it could not read the whole session (1), as `diff` of two
    // traces (no difference found is no answer) and `export` (its header says so) do.
    let damagedAfterPrefix: (String) -> Int32 = { command in
      switch command {
      // `info` describes the intact part, and answers that the file is not intact.
      case "info @", "verify @", "replay @ --verify", "bisect @ --invariant non-negative-balance",
        "diff @ @", "export @ --format jsonl":
        1
      case "import @ -o imported.jsonl": 3
      case "shrink @ --invariant non-negative-balance -o shrunk.trace": 1
      default: 0
      }
    }
    let truncated = Array(clean[0..<(second.offset + 30)])
    var flipped = clean
    flipped[second.offset + 8 + 48 + 20] ^= 0x04
    var hugeHeader = clean
    hugeHeader.setLittleEndian(UInt32(0xFFFF_FFF0), at: 4)
    var hugeFrame = clean
    hugeFrame.setLittleEndian(UInt32(0xFFFF_FFF0), at: second.offset + 8 + 36)
    // A chunk whose checksummed header claims nearly 1 GiB of records: the reader checks
    // the zstd frame's own size before allocating anything.
    var hugeRaw = clean
    let h = second.offset + 8
    hugeRaw.setLittleEndian(UInt32(1 << 30 - 1), at: h + 32)
    let covered =
      Array(hugeRaw[h..<(h + 40)]) + Array(hugeRaw[(h + 44)..<(h + 48 + second.byteCount - 56)])
    hugeRaw.setLittleEndian(CRC32C.checksum(covered), at: h + 40)
    return [
      ("empty.trace", [], refused),
      ("header-only-part.trace", Array(clean[0..<20]), refused),
      // An unfinished session with no chunk yet and no journal beside it: the journal, which
      // held whatever it sent, is missing, so `info` answers that it is not intact; nothing
      // to replay, and nothing for `verify` to check.
      (
        "header-only.trace", Array(clean[0..<headerEnd]),
        { command in
          switch command {
          case "info @": 1
          case "verify @": 1
          case "log @": 0  // no action to list
          default: 3
          }
        }
      ),
      ("truncated.trace", truncated, damagedAfterPrefix),
      ("flipped.trace", flipped, damagedAfterPrefix),
      ("huge-header.trace", hugeHeader, refused),
      ("huge-frame.trace", hugeFrame, damagedAfterPrefix),
      // Checksums hold; only decompressing shows the lie, which is damage like any other.
      ("huge-raw.trace", hugeRaw, damagedAfterPrefix),
      (
        "unknown-domain.trace", renamingDomain(clean, to: "bakery!"),
        { command in
          switch command {
          case "info @", "verify @": 0
          case "import @ -o imported.jsonl": 3
          default: 4
          }
        }
      ),
      (
        "other-domain.trace", renamingDomain(clean, to: "counter"),
        { command in
          switch command {
          case "info @", "verify @": 0
          case "flows @": 4  // counter has no navigation flow
          default: 3
          }
        }
      ),
    ]
  }

  @Test(arguments: Fixtures.traceFormats)
  func everyCommandOnEveryHostileFileExitsAsDocumented(format: UInt16) throws {
    let workspace = try Workspace()
    let clean = try Self.cleanTrace(in: workspace, format: format)
    #expect(clean[12] == format)
    var failures: [String] = []
    for file in try Self.hostileFiles(clean) {
      try Data(file.bytes).write(to: URL(fileURLWithPath: workspace.path(file.name)))
      for command in Self.commands {
        let line = command.replacingOccurrences(of: "@", with: file.name)
        let result = try workspace.run(line, input: "quit\n")
        let expected = file.expected(command)
        // The warning that a debug build's `bench` figures are slow is about the tool.
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
          .filter { !$0.contains("this is a debug build") }
        let warnings = lines.filter { $0.hasPrefix("retrace: warning: ") }
        let errors = lines.filter { !$0.hasPrefix("retrace: warning: ") }
        var problems: [String] = []
        if result.signaled { problems.append("killed by signal \(result.exitCode)") }
        if result.exitCode != expected {
          problems.append("exit \(result.exitCode), expected \(expected)")
        }
        if warnings.count > 1 { problems.append("\(warnings.count) warnings") }
        if result.exitCode >= 2 {
          if errors.count != 1 { problems.append("\(errors.count) error lines") }
          if let error = errors.first, !error.hasPrefix("retrace: \(file.name)") {
            problems.append("the error does not start with the file's name")
          }
        } else if result.exitCode == 0, !errors.isEmpty {
          problems.append("error lines on success")
        } else if errors.count > 1 {
          problems.append("\(errors.count) lines for a negative answer")
        }
        if result.stderr.contains("Fatal error") { problems.append("a trap message") }
        if !problems.isEmpty {
          failures.append("\(line): \(problems.joined(separator: ", ")): \(result.stderr)")
        }
      }
    }
    #expect(
      failures.isEmpty,
      Comment(rawValue: "\(failures.count) failures:\n" + failures.joined(separator: "\n")))
  }
}
