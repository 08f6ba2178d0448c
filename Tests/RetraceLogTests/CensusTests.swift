import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// What a summary reads of a trace's actions (`TraceReader.actionCensus()`) is what reading
/// every record gives, in both formats, closed or left with a journal.
@Suite struct CensusTests {
  /// The cases, counts, first and last times and snapshots, read record by record.
  static func byRecords(_ reader: TraceReader) throws -> TraceReader.ActionCensus {
    var census = TraceReader.ActionCensus()
    try reader.forEachRecord { record in
      switch record.kind {
      case .action:
        let name = record.actionCase ?? "?"
        if let index = census.caseCounts.firstIndex(where: { $0.name == name }) {
          census.caseCounts[index].count += 1
        } else {
          census.caseCounts.append((name, 1))
        }
        if census.firstTime == nil { census.firstTime = record.time }
        census.lastTime = record.time
      case .snapshot: census.snapshots += 1
      default: break
      }
      return true
    }
    return census
  }

  static func check<D: Domain>(_ domain: D, format: UInt16, close: Bool) throws {
    let path = temporaryDirectory("census-\(domain.name)-\(format)-\(close)") + "/s.trace"
    _ = try recordWithoutStore(
      domain, count: 1_500, to: path, configuration: smallChunks(format: format), close: close)
    let reader = try TraceReader(path: path)
    let census = try reader.actionCensus()
    let expected = try byRecords(reader)
    #expect(census.caseCounts.map(\.name) == expected.caseCounts.map(\.name), "\(domain.name)")
    #expect(census.caseCounts.map(\.count) == expected.caseCounts.map(\.count), "\(domain.name)")
    #expect(census.firstTime == expected.firstTime && census.lastTime == expected.lastTime)
    #expect(census.snapshots == expected.snapshots && census.snapshots > 0)
    #expect(census.caseCounts.reduce(0) { $0 + $1.count } == 1_500)
  }

  /// A domain whose actions are bare numbers, with no case: their chunks are rebuilt.
  static let numbersDomain = DomainDefinition(
    name: "numbers", summary: "Numbers added up.", initialState: 0,
    reducer: Reduce<Int, Int> { state, number in
      state &+= number
      return .none
    },
    actionCases: [],
    workload: Workload { _, step, _ in step % 7 })

  @Test(arguments: [UInt16(1), 2], [true, false])
  func aCensusIsWhatReadingEveryRecordGives(format: UInt16, close: Bool) throws {
    try Self.check(bankingDomain, format: format, close: close)
    try Self.check(notesDomain, format: format, close: close)
    try Self.check(counterDomain, format: format, close: close)
    try Self.check(stocksDomain, format: format, close: close)
    try Self.check(Self.numbersDomain, format: format, close: close)
  }
}
