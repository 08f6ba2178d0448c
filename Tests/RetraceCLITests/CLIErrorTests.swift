import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import Testing

/// Every error path: one line on stderr naming the file and the problem, a documented exit
/// code, never a trap.
@Suite struct CLIErrorTests {
  /// Checks the shape every error shares.
  private func expectError(
    _ result: CLIResult, code: Int32, containing text: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(result.exitCode == code, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stderr.hasPrefix("retrace: "), "\(result)", sourceLocation: sourceLocation)
    #expect(
      result.stderr.split(separator: "\n").count == 1, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stderr.contains(text), "\(result)", sourceLocation: sourceLocation)
    #expect(!result.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
  }

  @Test func aMissingFileIsExit3() throws {
    let workspace = try Workspace()
    for command in ["info", "verify", "log", "state", "replay", "bench", "debug", "diff"] {
      expectError(
        try workspace.run("\(command) nope.jsonl"), code: 3,
        containing: "retrace: nope.jsonl: no such file")
    }
    expectError(
      try workspace.run("import nope.jsonl -o x.jsonl"), code: 3,
      containing: "nope.jsonl: no such file")
  }

  @Test func aFileThatIsNotATraceIsExit3() throws {
    let workspace = try Workspace()
    try workspace.write("hello\nworld\n", to: "hello.txt")
    expectError(
      try workspace.run("info hello.txt"), code: 3, containing: "hello.txt: offset 0: not a trace")
    try workspace.write("{\"hello\": 1}\n", to: "hello.json")
    expectError(
      try workspace.run("replay hello.json"), code: 3,
      containing: "hello.json: not a retrace JSON Lines file")
    try workspace.write("", to: "empty.jsonl")
    expectError(
      try workspace.run("state empty.jsonl"), code: 3, containing: "empty.jsonl: empty file")
    expectError(try workspace.run("info ."), code: 3, containing: "is a directory")
  }

  @Test func aDamagedLineIsExit3NamingTheLine() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 30 -o c.jsonl")
    var lines = try workspace.read("c.jsonl").split(separator: "\n").map(String.init)
    lines[7] = #"{"seq":7,"time":0,"action":{"jump":{}}}"#
    try workspace.write(lines.joined(separator: "\n") + "\n", to: "bad.jsonl")
    expectError(
      try workspace.run("state bad.jsonl"), code: 3,
      containing: "bad.jsonl: line 8: unknown action case 'jump'")
    expectError(
      try workspace.run("import bad.jsonl -o out.jsonl"), code: 3, containing: "bad.jsonl: line 8:")
    #expect(!FileManager.default.fileExists(atPath: workspace.path("out.jsonl")))
  }

  @Test func unknownNamesAreExit4WithTheKnownOnes() throws {
    let workspace = try Workspace()
    expectError(
      try workspace.run("generate bakery --actions 3 -o x.jsonl"), code: 4,
      containing:
        "unknown domain 'bakery'; known: counter, banking, settings, posts, registration, dishes, movies, stocks, package, notes, banking-with-fees"
    )
    try workspace.write(
      #"{"format":"retrace-jsonl","version":1,"domain":"bakery","actionSchemaVersion":1,"sessionID":"s","startTime":0,"producer":"p","firstSequence":0}"#
        + "\n", to: "bakery.jsonl")
    expectError(
      try workspace.run("info bakery.jsonl"), code: 4,
      containing: "bakery.jsonl: unknown domain 'bakery'")

    try workspace.run("generate banking --actions 50 -o b.jsonl")
    expectError(
      try workspace.run("bisect b.jsonl --invariant solvent"), code: 4,
      containing:
        "unknown invariant 'solvent' for domain banking; known: balance-matches-transactions, non-negative-balance"
    )
    expectError(
      try workspace.run("shrink b.jsonl --invariant solvent -o s.jsonl"), code: 4,
      containing: "unknown invariant")
    expectError(
      try workspace.run("log b.jsonl --type withdraw"), code: 4,
      containing: "b.jsonl: unknown action case 'withdraw'")
    // `addAccount` carries a struct: it never nests, so `addAccount.x` could match nothing.
    expectError(
      try workspace.run("log b.jsonl --type addAccount.x"), code: 4,
      containing:
        "b.jsonl: unknown action case 'addAccount.x': no addAccount action read has a nested case"
    )
  }

  @Test func outOfRangeIsExit4WithTheValidRange() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 50 -o c.trace")
    expectError(
      try workspace.run("state c.trace --at 51"), code: 4,
      containing: "c.trace: sequence 51: out of range 0...50\n")
    expectError(
      try workspace.run("diff c.trace --from 2 --to 99"), code: 4, containing: "out of range 0...50"
    )
    expectError(
      try workspace.run("replay c.trace --to 77"), code: 4, containing: "out of range 0...50")
    expectError(
      try workspace.run("log c.trace --from 60"), code: 4, containing: "out of range 1...50")
    expectError(
      try workspace.run("debug c.trace --at 51"), code: 4, containing: "out of range 0...50")
  }

  @Test func tracesOfDifferentDomainsAreExit4() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 5 -o c.trace")
    try workspace.run("generate settings --actions 5 -o s.trace")
    expectError(
      try workspace.run("diff c.trace s.trace"), code: 4,
      containing: "diff compares traces of one domain")
  }

  @Test func usageErrorsAreExit2() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 5 -o c.trace")
    for command in [
      "bisect c.trace", "frobnicate", "state c.trace --at -3",
      "generate counter --actions -1 -o x.trace",
      "replay c.trace --to 3 --verify", "diff c.trace c.trace --from 1", "bench c.trace --repeat 0",
      "export c.trace --format csv", "log c.trace --from 9 --to 2",
      "replay c.trace --verify --jobs 0",
      "diff", "replay", "generate counter --actions 9223372036854775807 -o x.trace",
    ] {
      let result = try workspace.run(command)
      #expect(result.exitCode == 2, "\(command): \(result)")
      // One line: the problem, and where the usage is.
      #expect(result.stderr.hasPrefix("retrace: "), "\(command): \(result)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(command): \(result)")
      #expect(result.stderr.contains("(see 'retrace"), "\(command): \(result)")
      #expect(result.stdout.isEmpty, "\(command)")
    }
  }

  /// A mistyped option is named with the nearest real one, even when another problem (a
  /// required option missing, a validation) would otherwise be reported first.
  @Test func aMistypedOptionSuggestsTheNearestOne() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 5 -o c.trace")
    for (command, typed, meant) in [
      ("bisect c.trace --invarient non-negative", "--invarient", "--invariant"),
      ("replay --verfiy", "--verfiy", "--verify"),
      ("replay c.trace --verfiy", "--verfiy", "--verify"),
      ("state c.trace --att 3", "--att", "--at"),
      ("shrink c.trace --invarient non-negative -o s.trace", "--invarient", "--invariant"),
    ] {
      expectError(
        try workspace.run(command), code: 2,
        containing: "Unknown option '\(typed)'. Did you mean '\(meant)'?")
    }
    // Nothing near: the unknown option alone.
    expectError(
      try workspace.run("bisect c.trace --zzzzzzzzzz"), code: 2,
      containing: "Unknown option '--zzzzzzzzzz'")
  }

  @Test func aJournalPassedAsATraceNamesTheTrace() throws {
    let workspace = try Workspace()
    try TrustTests.crashedSession(count: 20, flush: false, at: workspace.path("crash.trace"))
    for command in ["info", "verify", "replay", "state"] {
      expectError(
        try workspace.run("\(command) crash.trace.journal"), code: 3,
        containing:
          "retrace: crash.trace.journal: this is a trace's journal; pass the trace beside it (crash.trace)"
      )
    }
  }

  @Test func aNegativeSequenceNumberIsAUsageErrorThatGivesTheRange() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 5 -o c.trace")
    for (command, option) in [
      ("state c.trace --at -5", "--at"), ("state c.trace --at=-5", "--at"),
      ("log c.trace --from -1", "--from"),
      ("diff c.trace --to -2", "--to"), ("state c.trace --at five", "--at"),
    ] {
      let result = try workspace.run(command)
      #expect(result.exitCode == 2, "\(command): \(result)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(command): \(result)")
      #expect(result.stderr.contains("'\(option) <"), "\(command): \(result)")
      #expect(result.stderr.contains("from 0 to 18446744073709551615"), "\(command): \(result)")
    }
  }

  /// A JSON Lines header or line with values a trace cannot hold: a firstSequence near
  /// 2⁶⁴ trapped every command (an overflow counting on from it); the others made `import`
  /// write a trace that read back differently, or not at all, and exit 0.
  @Test func impossibleJSONLinesValuesAreRefusedNamingTheLine() throws {
    let workspace = try Workspace()
    func header(_ fields: String) -> String {
      #"{"format":"retrace-jsonl","version":1,"domain":"counter","actionSchemaVersion":1,"sessionID":"s","producer":"p","#
        + fields + "}\n"
    }
    let increment = #"{"seq":1,"time":0,"action":{"increment":{}}}"# + "\n"
    let cases: [(String, String, Int32)] = [
      (
        header(#""startTime":0,"firstSequence":18446744073709551615"#),
        "line 1: firstSequence 18446744073709551615 is impossible", 3
      ),
      (
        header(#""startTime":0,"firstSequence":18446744073709551614"#)
          + #"{"seq":18446744073709551615,"time":0,"action":{"increment":{}}}"# + "\n",
        "line 1: firstSequence", 3
      ),
      (
        header(#""startTime":1e308,"firstSequence":0"#), "line 1: startTime 1e+308 is impossible", 3
      ),
      (
        header(#""startTime":0,"firstSequence":0,"initialState":{"cnt":41}"#) + increment,
        "line 1: the header's initialState is not a state of domain counter", 3
      ),
      (
        header(#""startTime":0,"firstSequence":0"#).replacingOccurrences(
          of: #""version":1"#, with: #""version":-7"#), "line 1: version -7 is impossible", 3
      ),
      (
        header(#""startTime":0,"firstSequence":0"#).replacingOccurrences(
          of: #""actionSchemaVersion":1"#, with: #""actionSchemaVersion":99"#),
        "line 1: actionSchemaVersion 99 is newer than domain counter's (1)", 3
      ),
      (
        header(#""startTime":0,"firstSequence":0"#)
          + #"{"seq":1,"time":1e19,"action":{"increment":{}}}"# + "\n",
        "line 2: time 1e+19 is not within 9e12 seconds", 3
      ),
      (
        header(#""startTime":0,"firstSequence":0"#)
          + #"{"seq":-1,"time":0,"action":{"increment":{}}}"# + "\n",
        "line 2: a number does not fit its field", 3
      ),
    ]
    for (index, (text, message, code)) in cases.enumerated() {
      try workspace.write(text, to: "s\(index).jsonl")
      for command in ["info", "verify", "log", "state", "replay", "import"] {
        // `info` and `verify` describe a file with a bad action line (its intact part).
        if ["info", "verify"].contains(command), message.hasPrefix("line 2") { continue }
        let arguments =
          command == "import"
          ? "import s\(index).jsonl -o out\(index).trace" : "\(command) s\(index).jsonl"
        expectError(
          try workspace.run(arguments), code: code, containing: "s\(index).jsonl: \(message)")
      }
      #expect(!FileManager.default.fileExists(atPath: workspace.path("out\(index).trace")))
    }
    // A corpus run goes on past such a file.
    try workspace.run("generate counter --actions 5 -o good.trace")
    let corpus = try workspace.run("replay s0.jsonl good.trace --verify")
    #expect(corpus.exitCode == 3 && corpus.stdout.contains("good.trace"), "\(corpus)")
  }

  /// A control character from a file (here a domain name with an escape and a newline) is
  /// escaped in the error, which stays one line.
  @Test func controlCharactersInAnErrorAreEscaped() throws {
    let workspace = try Workspace()
    try workspace.write(
      #"{"format":"retrace-jsonl","version":1,"domain":"\u001b[2Jx\ny","actionSchemaVersion":1,"sessionID":"s","startTime":0,"producer":"p","firstSequence":0}"#
        + "\n", to: "odd.jsonl")
    expectError(
      try workspace.run("state odd.jsonl"), code: 4, containing: #"unknown domain '\u{1B}[2Jx\ny'"#)
  }

  /// A bidirectional override in a file name would make the rest of the line read right to
  /// left ("txt.exe" shown as "exe.txt"): it is escaped too.
  @Test func bidirectionalControlsInAnErrorAreEscaped() throws {
    let workspace = try Workspace()
    let result = try workspace.run("info report\u{202E}txt.trace")
    #expect(result.exitCode == 3, "\(result)")
    #expect(result.stderr.contains(#"report\u{202E}txt.trace"#), "\(result)")
    #expect(!result.stderr.unicodeScalars.contains("\u{202E}"))
  }

  @Test func anUnwritableOutputIsExit3() throws {
    let workspace = try Workspace()
    expectError(
      try workspace.run("generate counter --actions 5 -o no/such/dir/c.trace"), code: 3,
      containing: "no/such/dir/c.trace: no such directory: no/such/dir")
  }

  @Test func helpDocumentsTheExitCodesAndVersionPrints() throws {
    let workspace = try Workspace()
    let help = try workspace.run("--help")
    #expect(help.exitCode == 0)
    #expect(help.stdout.contains("EXIT CODES:"))
    #expect(help.stdout.contains("4  an unknown domain"))
    for command in [
      "domains", "generate", "info", "verify", "log", "state", "diff", "replay", "bisect", "shrink",
      "bench", "export", "import", "flows", "debug",
    ] {
      #expect(help.stdout.contains("  \(command) "), "\(command)")
    }
    let version = try workspace.run("--version")
    #expect(version.stdout == RetraceVersion.string + "\n")
    let subcommandHelp = try workspace.run("help bisect")
    #expect(subcommandHelp.stdout.contains("--invariant <invariant>"))
  }

  @Test func colorOnlyWhenAskedForOrOnATerminal() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 5 -o c.trace")
    let escape = "\u{1B}["
    #expect(!(try workspace.run("info c.trace")).stdout.contains(escape))
    #expect(try workspace.run("info c.trace --color").stdout.contains(escape))
    #expect(!(try workspace.run("info c.trace --no-color")).stdout.contains(escape))
    #expect(
      !(try workspace.run("info c.trace", environment: ["NO_COLOR": "1"])).stdout.contains(escape))
    #expect(!(try workspace.run("info c.trace --json --color")).stdout.contains(escape))
  }
}
