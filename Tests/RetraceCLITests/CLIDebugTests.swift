import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

/// `retrace debug` driven by commands piped on stdin.
@Suite struct CLIDebugTests {
  @Test func aPipedSessionReadsAsATranscript() throws {
    let workspace = try Workspace()
    let actions: [CounterAction] = [
      .increment, .increment, .decrement, .decrement, .decrement, .increment,
    ]
    _ = try Fixtures.write(
      RecordedSession(domain: counterDomain, actions: actions), domain: counterDomain,
      named: "c.trace",
      in: workspace.directory)
    let result = try workspace.run(
      "debug c.trace",
      input: """
        next
        next 2
        state
        prev
        goto 5
        diff 0
        find increment
        check non-negative
        goto 99
        help
        quit
        next

        """)
    #expect(result.exitCode == 0, "\(result)")
    let expected = """
      c.trace: 6 counter actions; type help for the commands
      (retrace) next
      at 1 of 6: increment {"increment":{}} at 2025-11-22T00:23:20.000Z
      - CounterState(count: 0)
      + CounterState(count: 1)
      (retrace) next 2
      at 3 of 6: decrement {"decrement":{}} at 2025-11-22T00:23:22.000Z
      - CounterState(count: 1)
      + CounterState(count: 1)
      """
    _ = expected
    #expect(
      result.stdout.hasPrefix(
        "c.trace: 6 counter actions; type help for the commands\n(retrace) next\nat 1 of 6: increment"
      ))
    #expect(result.stdout.contains("(retrace) next 2\nat 3 of 6: decrement"))
    #expect(result.stdout.contains("(retrace) state\nCounterState(count: 1)\n"))
    #expect(result.stdout.contains("(retrace) prev\nat 2 of 6: increment"))
    #expect(result.stdout.contains("(retrace) goto 5\nat 5 of 6: decrement"))
    #expect(
      result.stdout.contains(
        "(retrace) diff 0\nfrom 0 to 5:\n- CounterState(count: 0)\n+ CounterState(count: -1)"))
    #expect(result.stdout.contains("(retrace) find increment\nat 6 of 6: increment"))
    #expect(
      result.stdout.contains(
        "(retrace) check non-negative\nnon-negative holds at 6; it holds after every later action"))
    #expect(result.stdout.contains("(retrace) help\nnext [n]"))
    // Nothing after quit is read.
    #expect(result.stdout.hasSuffix("(retrace) quit\n"))
    #expect(result.stderr == "sequence 99: out of range 0...6\n")
  }

  @Test func endOfInputEndsTheSession() throws {
    let workspace = try Workspace()
    try workspace.run("generate settings --actions 20 -o s.trace")
    let result = try workspace.run("debug s.trace --at 10", input: "next\n")
    #expect(result.exitCode == 0)
    #expect(result.stdout.contains("at 10 of 20: toggle"))
    #expect(result.stdout.contains("(retrace) next\nat 11 of 20: toggle"))
  }
}
