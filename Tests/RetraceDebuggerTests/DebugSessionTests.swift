import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

@Suite struct DebugSessionTests {
  private func session(_ actions: [CounterAction]) -> DebugSession<
    DomainDefinition<CounterState, CounterAction>
  > {
    DebugSession(
      debugger: ReplayEngine(
        domain: counterDomain, session: RecordedSession(domain: counterDomain, actions: actions)))
  }

  @Test func movesShowThePositionTheActionAndWhatChanged() {
    var debug = session([.increment, .increment, .decrement, .decrement, .decrement, .increment])
    #expect(debug.position == 0)
    let reply = debug.perform("next 2")
    #expect(debug.position == 2)
    #expect(reply.output.hasPrefix("at 2 of 6: increment at "))
    #expect(reply.output.contains("count: 0") && reply.output.contains("count: 2"))
    // A move of more than one step says what its diff spans; one step shows the action's own.
    #expect(reply.output.split(separator: "\n")[1] == "from 0 to 2:")
    #expect(!debug.perform("next").output.contains("from 2 to 3:"))
    _ = debug.perform("prev")
    #expect(!reply.isError && !reply.quits)

    #expect(debug.perform("prev").output.hasPrefix("at 1 of 6"))
    #expect(debug.perform("goto 5").output.hasPrefix("at 5 of 6: decrement"))
    #expect(debug.state.count == -1)
    #expect(debug.perform("goto 0").output.hasPrefix("at 0 of 6: the start"))
    #expect(debug.perform("next 100").output.hasPrefix("at 6 of 6"))
    #expect(debug.perform("next").output.contains("(already here)"))
    #expect(debug.perform("prev 100").output.hasPrefix("at 0 of 6"))
    // A count that overflows the position stops at the end; it trapped before.
    _ = debug.perform("goto 3")
    #expect(debug.perform("next 18446744073709551614").output.hasPrefix("at 6 of 6"))
    #expect(debug.perform("prev 99999999999999999999999").output.hasPrefix("at 0 of 6"))
  }

  @Test func stateDiffFindAndCheck() {
    var debug = session([.increment, .increment, .decrement, .decrement, .decrement, .increment])
    #expect(debug.perform("state").output == "CounterState(count: 0)")
    #expect(debug.perform("find decrement").output.hasPrefix("at 3 of 6: decrement"))
    #expect(debug.perform("diff").output.hasPrefix("from 2 to 3:"))
    #expect(debug.perform("diff 0").output.contains("count: 1"))
    #expect(
      debug.perform("check non-negative").output
        == "non-negative holds at 3; it next fails after action 5")
    _ = debug.perform("goto 5")
    #expect(
      debug.perform("check non-negative").output
        == "non-negative fails at 5; it holds again after action 6")
    #expect(debug.perform("find reset").isError)
  }

  /// `state` and the diffs show the domain's display formats, as `retrace state` does.
  @Test func stateAndDiffsShowTheDomainsDisplayFormats() {
    let session = Fixtures.session(bankingDomain, count: 20, seed: 1)
    var debug = DebugSession(debugger: ReplayEngine(domain: bankingDomain, session: session))
    _ = debug.perform("goto 10")
    #expect(debug.perform("state").output.contains(" EUR)"))
    #expect(debug.perform("diff 0").output.contains(" EUR)"))
  }

  @Test func mistakesAreErrorsAndQuitQuits() {
    var debug = session([.increment])
    for command in [
      "goto 7", "goto x", "next -1", "bogus", "check nope", "find jump", "diff 9", "find", "check",
      // Words past the command's one argument were ignored.
      "next 1 2", "goto 1 1", "state all", "quit now", "help me",
    ] {
      let reply = debug.perform(command)
      #expect(reply.isError, "\(command)")
      #expect(!reply.quits)
    }
    #expect(debug.perform("goto 7").output.contains("out of range 0...1"))
    #expect(
      debug.perform("goto 99999999999999999999").output
        == "sequence 99999999999999999999: out of range 0...1")
    #expect(debug.perform("quit now").output.contains("quit takes no argument"))
    #expect(debug.perform("frobnicate x").output.contains("unknown command 'frobnicate'"))
    #expect(debug.perform("check nope").output.contains("known: non-negative"))
    #expect(debug.perform("").output.isEmpty)
    #expect(debug.perform("help").output.contains("goto N"))
    #expect(debug.perform("quit").quits)
    #expect(debug.perform("q").quits)
  }

  @Test func aMoveAcrossALargeChangeShowsPartOfIt() throws {
    let debugger = ReplayEngine(
      domain: bankingDomain, session: Fixtures.session(bankingDomain, count: 20_000))
    var debug = DebugSession(debugger: debugger)
    let jump = debug.perform("goto 20000").output
    #expect(jump.hasSuffix("(a large change: shown in part, … marks the rest)"))
    #expect(
      jump.split(separator: "\n").count < 2
        * DebugSession<DomainDefinition<BankingState, BankingAction>>.maxNodes)
    let step = debug.perform("prev").output
    #expect(step.contains("… ("))
    #expect(!step.contains("(a large change"))
    let back = debug.perform("diff 0").output
    #expect(back.hasPrefix("from 0 to 19999:"))
    #expect(back.hasSuffix("(a large change: shown in part, … marks the rest)"))
  }

  @Test func aLongSessionMovesAnywhere() throws {
    // Settings states are small, so the diffs after far moves stay cheap.
    let recorded = Fixtures.session(
      settingsDomain, count: 50_000, seed: 2, checkpointEvery: 0, snapshotEvery: 0)
    let debugger = ReplayEngine(domain: settingsDomain, session: recorded)
    var debug = DebugSession(debugger: debugger)
    for target in [UInt64(49_999), 3, 12_345, 50_000, 0, 7_777, 7_776, 7_778] {
      _ = debug.perform("goto \(target)")
      #expect(debug.position == target)
      #expect(debug.state == (try debugger.state(at: target)))
    }
  }
}
