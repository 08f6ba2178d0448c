import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

@Suite struct BenchTests {
  @Test func theReportCoversEveryActionCase() throws {
    let session = Fixtures.session(bankingDomain, count: 5_000, seed: 1)
    var decodes = 0
    let report = try ReplayEngine(domain: bankingDomain, session: session).bench(repetitions: 3) {
      decodes += 1
    }
    #expect(decodes == 3)
    #expect(report.repetitions == 3)
    #expect(report.actions == 5_000)
    #expect(report.reduceSeconds > 0)
    #expect(report.actionsPerSecond > 0)
    #expect(report.decodeSeconds != nil)
    #expect((report.peakMemoryBytes ?? 0) > 0)
    #expect(
      report.cases.map(\.name)
        == session.actionCaseCounts(order: bankingDomain.actionCases).map(\.name))
    #expect(report.cases.map(\.count).reduce(0, +) == 5_000)
    for timing in report.cases {
      #expect(timing.p50Nanoseconds <= timing.p99Nanoseconds)
    }
  }

  @Test func withoutADecoderThereIsNoDecodeTime() throws {
    let session = RecordedSession(domain: counterDomain, actions: [.increment, .decrement])
    let report = try ReplayEngine(domain: counterDomain, session: session).bench(repetitions: 1)
    #expect(report.decodeSeconds == nil)
    #expect(report.decodeNanosecondsPerAction == nil)
    #expect(report.cases.map(\.name) == ["increment", "decrement"])
  }
}
