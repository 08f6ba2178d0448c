import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What the commands write: an output file is replaced whole or not at all, and output that
/// cannot be written is an error, never a silent loss.
@Suite struct CLIOutputTests {
  /// The files in the workspace, without the runner's own.
  private func files(in workspace: Workspace) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path).filter {
      !$0.hasPrefix(".std")
    }.sorted()
  }

  /// An import that fails used to truncate the existing output first and leave a journal
  /// beside it. Here a header of 2 MB, which the recorder refused part-way through the
  /// write; the JSON Lines reader now refuses it first, on its line.
  @Test func aFailedWriteKeepsTheFileThatWasThereAndLeavesNothingElse() throws {
    let workspace = try Workspace()
    let header =
      #"{"format":"retrace-jsonl","version":1,"domain":"counter","actionSchemaVersion":1,"sessionID":""#
      + String(repeating: "s", count: 2 << 20)
      + #"","startTime":0,"producer":"p","firstSequence":0}"#
    try workspace.write(
      header + "\n" + #"{"seq":1,"time":0,"action":{"increment":{}}}"# + "\n", to: "big.jsonl")
    try workspace.write("keep me", to: "out.trace")
    let result = try workspace.run("import big.jsonl -o out.trace")
    #expect(result.exitCode == 3, "\(result)")
    #expect(result.stderr.hasPrefix("retrace: big.jsonl: line 1: the header takes"), "\(result)")
    #expect(try workspace.read("out.trace") == "keep me")
    #expect(try files(in: workspace) == ["big.jsonl", "out.trace"])
  }

  /// The new file keeps the old one's permissions (without set-user-ID).
  @Test func aReplacedFileKeepsItsPermissions() throws {
    let workspace = try Workspace()
    try workspace.write("old", to: "out.jsonl")
    #expect(chmod(workspace.path("out.jsonl"), 0o4640) == 0)
    try workspace.run("generate counter --actions 3 -o out.jsonl")
    var status = stat()
    #expect(stat(workspace.path("out.jsonl"), &status) == 0 && status.st_mode & 0o7777 == 0o640)
    #expect(try workspace.read("out.jsonl").split(separator: "\n").count == 4)
  }

  /// A write that a signal interrupts leaves the old file and removes the temporary one.
  @Test(.timeLimit(.minutes(2))) func anInterruptedWriteKeepsTheFileThatWasThere() throws {
    let workspace = try Workspace()
    try workspace.write("keep me", to: "out.trace")
    let process = Process()
    let binary = try #require(CLI.binary)
    process.executableURL = binary
    process.arguments = ["generate", "counter", "--actions", "3000000", "-o", "out.trace"]
    process.currentDirectoryURL = workspace.directory
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Interrupted while it writes: once its temporary file is there.
    func writing() throws -> Bool {
      try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path).contains {
        $0.hasPrefix(".out.trace.retrace-")
          && FileManager.default.fileExists(atPath: workspace.path($0 + "/output.journal"))
      }
    }
    while process.isRunning, try !writing() { usleep(2_000) }
    try #require(process.isRunning, "the write ended before it could be interrupted")
    // Written in a directory of its own that nobody else can write in (to plant a link).
    let temporary = try #require(
      try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path).first {
        $0.hasPrefix(".out.trace.retrace-")
      })
    var status = stat()
    #expect(
      stat(workspace.path(temporary), &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
        && status.st_mode & 0o777 == 0o700)
    process.terminate()
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
    #expect(try workspace.read("out.trace") == "keep me")
    #expect(try files(in: workspace) == ["out.trace"])
  }

  /// `--output` through a symbolic link replaces the file it names; the link stays.
  @Test func anOutputThroughALinkReplacesTheFileItNames() throws {
    let workspace = try Workspace()
    try FileManager.default.createSymbolicLink(
      atPath: workspace.path("link.trace"), withDestinationPath: "real.trace")
    try workspace.run("generate counter --actions 20 -o link.trace")
    let link = try FileManager.default.destinationOfSymbolicLink(
      atPath: workspace.path("link.trace"))
    #expect(link == "real.trace")
    #expect(try workspace.run("info real.trace --json").json()["actions"] as? Int == 20)
    // JSON Lines too (they were written with Foundation's atomic write, which replaced the
    // link with a file).
    try FileManager.default.createSymbolicLink(
      atPath: workspace.path("link.jsonl"), withDestinationPath: "real.jsonl")
    try workspace.run("export real.trace --format jsonl -o link.jsonl")
    #expect(
      try FileManager.default.destinationOfSymbolicLink(atPath: workspace.path("link.jsonl"))
        == "real.jsonl")
    #expect(try workspace.read("real.jsonl").split(separator: "\n").count == 21)
  }

  @Test func anOutputThatCannotBeAFileIsExit3() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 5 -o c.trace")
    let directory = try workspace.run("export c.trace --format jsonl -o .")
    #expect(
      directory.exitCode == 3 && directory.stderr == "retrace: .: is a directory\n", "\(directory)")
    let missing = try workspace.run("export c.trace --format jsonl -o nodir/c.jsonl")
    #expect(
      missing.exitCode == 3
        && missing.stderr == "retrace: nodir/c.jsonl: no such directory: nodir\n", "\(missing)")
    // A trace needs a regular file (a pipe here: never a device of the machine's, which a
    // regression would replace).
    #expect(mkfifo(workspace.path("pipe.trace"), 0o600) == 0)
    let pipe = try workspace.run("generate counter --actions 5 -o pipe.trace")
    #expect(
      pipe.exitCode == 3
        && pipe.stderr
          == "retrace: pipe.trace: not a regular file; a trace is written to a regular file\n",
      "\(pipe)")
    var status = stat()
    #expect(stat(workspace.path("pipe.trace"), &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
  }

  /// A text output may go to a pipe (or a device), written into it, not replaced by a file.
  @Test func aTextOutputMayBeAPipe() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 5 -o c.trace")
    let pipe = workspace.path("pipe.jsonl")
    #expect(mkfifo(pipe, 0o600) == 0)
    // The reading end, open before the command writes (so that it does not wait for one),
    // and read after: the 6 lines fit in the pipe's buffer.
    let reader = open(pipe, O_RDONLY | O_NONBLOCK)
    try #require(reader >= 0)
    defer { close(reader) }
    let result = try workspace.run("export c.trace --format jsonl -o pipe.jsonl")
    #expect(result.exitCode == 0, "\(result)")
    var bytes = [UInt8](repeating: 0, count: 1 << 16)
    let count = read(reader, &bytes, bytes.count)
    #expect(
      String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self).split(separator: "\n").count == 6
    )
    var status = stat()
    #expect(stat(pipe, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
  }

  /// Names the first version of the safe write got wrong (found by fuzzing it): a
  /// one-character name trapped in `NSString.deletingLastPathComponent`; a cycle of links
  /// replaced one of the links with a file.
  @Test func oddOutputNames() throws {
    let workspace = try Workspace()
    #expect(try workspace.run("generate counter --actions 3 -o x").exitCode == 0)
    #expect(try workspace.run("export x --format jsonl -o é").exitCode == 0)
    #expect(try workspace.read("é").split(separator: "\n").count == 4)
    try FileManager.default.createSymbolicLink(
      atPath: workspace.path("A"), withDestinationPath: "B")
    try FileManager.default.createSymbolicLink(
      atPath: workspace.path("B"), withDestinationPath: "A")
    let loop = try workspace.run("generate counter --actions 3 -o A")
    #expect(
      loop.exitCode == 3 && loop.stderr == "retrace: A: too many levels of symbolic links\n",
      "\(loop)")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: workspace.path("A")) == "B")
    let empty = try CLI.run(
      ["generate", "counter", "--actions", "3", "-o", ""], in: workspace.directory)
    #expect(empty.exitCode == 2 && empty.stderr.contains("--output must name a file"), "\(empty)")
  }

  /// `-o /dev/stdout` writes to the stream the shell set up, appending if it appends; it used
  /// to open the file it names again, truncating it.
  @Test func standardOutputAsTheOutputIsTheStreamItself() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 5 -o c.trace")
    try workspace.write("before\n", to: "log.txt")
    let process = Process()
    let binary = try #require(CLI.binary)
    process.executableURL = binary
    process.arguments = ["export", "c.trace", "--format", "jsonl", "-o", "/dev/stdout"]
    process.currentDirectoryURL = workspace.directory
    let log = open(workspace.path("log.txt"), O_WRONLY | O_APPEND)
    defer { close(log) }
    process.standardOutput = FileHandle(fileDescriptor: log, closeOnDealloc: false)
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let lines = try workspace.read("log.txt").split(separator: "\n")
    #expect(lines.count == 7 && lines.first == "before", "\(lines)")
  }

  /// A stderr that cannot be written (a full disk) made the error or the confirmation trap.
  @Test func aStderrThatCannotBeWrittenKeepsTheCommandsOutcome() throws {
    let workspace = try Workspace()
    for (arguments, code) in [
      (["info", "nope.trace"], Int32(3)),
      (["generate", "counter", "--actions", "3", "-o", "c.trace"], 0),
    ] {
      let process = Process()
      let binary = try #require(CLI.binary)
      process.executableURL = binary
      process.arguments = arguments
      process.currentDirectoryURL = workspace.directory
      let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
      process.standardError = full
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      process.waitUntilExit()
      #expect(
        process.terminationReason == .exit && process.terminationStatus == code, "\(arguments)")
    }
    #expect(try workspace.run("info c.trace --json").json()["actions"] as? Int == 3)
  }

  /// stdout that refuses what is written (a full disk) made every command exit 0.
  @Test func outputThatCannotBeWrittenIsExit3() throws {
    let workspace = try Workspace()
    try workspace.run("generate counter --actions 5 -o c.trace")
    for arguments in [
      ["export", "c.trace", "--format", "jsonl"], ["info", "c.trace"], ["state", "c.trace"],
      ["--help"],
      // A negative answer (exit 1) whose output was lost: a script must not read it as
      // printed.
      ["check", "registration"],
    ] {
      let process = Process()
      let binary = try #require(CLI.binary)
      process.executableURL = binary
      process.arguments = arguments
      process.currentDirectoryURL = workspace.directory
      let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
      process.standardOutput = full
      let errors = Pipe()
      process.standardError = errors
      try process.run()
      process.waitUntilExit()
      let stderr = String(
        decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      #expect(process.terminationStatus == 3, "\(arguments)")
      #expect(
        stderr == "retrace: stdout: cannot write the output: No space left on device\n",
        "\(arguments)")
    }
  }

  /// A named pipe as the input: the reader read it to its end, opened it again and waited
  /// there forever.
  @Test(.timeLimit(.minutes(1))) func aPipeIsRefusedNotWaitedOn() throws {
    let workspace = try Workspace()
    #expect(mkfifo(workspace.path("f.trace"), 0o600) == 0)
    for command in ["info", "verify", "state", "log", "import"] {
      let result = try workspace.run(
        command == "import" ? "import f.trace -o x.trace" : "\(command) f.trace")
      #expect(
        result.exitCode == 3 && result.stderr == "retrace: f.trace: not a regular file\n",
        "\(command): \(result)")
    }
  }
}
