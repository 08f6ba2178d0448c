import CustomDump
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

@Suite struct StateDumpTests {
  @Test func aSmallStateIsDumpedInFull() {
    let state = CounterState(count: 3)
    let (text, depth) = stateDump(state, maxNodes: 100)
    #expect(depth == nil)
    #expect(text == stateDump(state))
  }

  @Test func aLargeStateStopsDescendingAtTheLevelThatWouldOverflow() throws {
    let state = try ReplayEngine(
      domain: bankingDomain, session: Fixtures.session(bankingDomain, count: 5_000)
    ).replay()
    let (text, depth) = stateDump(state, maxNodes: 1_000)
    #expect(depth != nil)
    #expect(text.contains("transactions: […]"))
    #expect(text.contains("iban: \""))
    #expect(text.split(separator: "\n").count < 200)
    // With room for everything, it is the full dump.
    #expect(stateDump(state, maxNodes: 1_000_000).depth == nil)
  }
}
