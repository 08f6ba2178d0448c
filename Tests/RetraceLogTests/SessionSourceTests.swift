import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// A trace and the JSON Lines export of the same session answer every `SessionSource`
/// question alike; each format reports its own damage.
@Suite struct SessionSourceTests {
  /// The same 1,500-action banking session as a trace (small chunks and snapshots, so that
  /// seeks start from several; in trace format `traceFormat`) and as JSON Lines.
  static func bothFormats(in directory: String, traceFormat: UInt16 = TraceFormat.version) throws
    -> (
      trace: TraceSession<DomainDefinition<BankingState, BankingAction>>,
      jsonLines: JSONLinesSession<DomainDefinition<BankingState, BankingAction>>,
      states: [BankingState]
    )
  {
    let path = directory + "/s.trace"
    _ = try recordWithoutStore(
      bankingDomain, count: 1_500, seed: 8, to: path,
      configuration: smallChunks(
        checkpoints: 50, snapshots: 300, reproducible: true, format: traceFormat))
    let trace = try TraceSession(TraceReader(path: path), domain: bankingDomain)
    let session = try trace.session()
    var text = try JSONLines.headerLine(for: session, domain: bankingDomain) + "\n"
    let writer = JSONLines.ActionWriter<BankingAction>()
    for action in session.actions { text += try writer.line(for: action) + "\n" }
    let jsonLines = try JSONLinesSession(
      data: Data(text.utf8), domain: bankingDomain, path: directory + "/s.jsonl")
    var states = [session.initialState]
    for action in session.actions {
      var state = states.last!
      _ = bankingDomain.reduce(into: &state, action: action.action)
      states.append(state)
    }
    return (trace, jsonLines, states)
  }

  @Test func bothFormatsGiveTheSameAnswers() throws {
    let (trace, jsonLines, states) = try Self.bothFormats(in: temporaryDirectory())
    let sources: [any SessionSource<DomainDefinition<BankingState, BankingAction>>] = [
      trace, jsonLines,
    ]
    for source in sources {
      let name = source.path ?? "?"
      #expect(source.info == trace.info, "\(name)")
      #expect(source.startSequence == 0 && source.lastSequence == 1_500, "\(name)")
      #expect(source.integrity.status == .clean, "\(name)")
      // Backwards too: a trace goes on from its last answer only when that is nearer.
      for sequence: UInt64 in [0, 1, 299, 300, 301, 1_499, 1_500, 42, 777] {
        #expect(try source.state(at: sequence) == states[Int(sequence)], "\(name) at \(sequence)")
      }
      let (old, new) = try source.states(from: 1_000, to: 1_200)
      #expect(old == states[1_000] && new == states[1_200], "\(name)")
      var seen: [UInt64] = []
      try source.forEachAction(from: 598, through: 603) { action throws(TraceError) in
        seen.append(action.sequence)
        return true
      }
      #expect(seen == Array(598...603), "\(name)")
      let whole = try source.session()
      #expect(whole.actions.count == 1_500, "\(name)")
      let traceTimes = try trace.session().actions.map(\.time)
      #expect(whole.actions.map(\.time) == traceTimes, "\(name)")
      #expect(throws: TraceError.self) { try source.state(at: 1_501) }
      do {
        try source.checkInRange(1_501)
        Issue.record("\(name): 1501 is in range")
      } catch {
        #expect(error.code == .outOfRange && error.sequence == 1_501, "\(name)")
        #expect(error.message == "out of range 0...1500", "\(name)")
      }
    }
  }

  @Test func aJSONLinesFileWithABadLineNamesItAndRefusesItsActions() throws {
    let (_, jsonLines, _) = try Self.bothFormats(in: temporaryDirectory())
    let session = try jsonLines.session()
    var text = try JSONLines.headerLine(for: session, domain: bankingDomain) + "\n"
    let writer = JSONLines.ActionWriter<BankingAction>()
    for action in session.actions.prefix(10) { text += try writer.line(for: action) + "\n" }
    text += "{\"seq\":11,\"time\":0,\"action\":{\"noSuchCase\":{}}}\n"
    let damaged = try JSONLinesSession(
      data: Data(text.utf8), domain: bankingDomain, path: "d.jsonl")
    #expect(damaged.integrity.status == .damaged)
    #expect(damaged.integrity.line == 12 && damaged.integrity.intactActions == 10)
    #expect(damaged.lastSequence == 10)
    #expect(throws: TraceError.self) { try damaged.session() }
    #expect(throws: TraceError.self) {
      try damaged.forEachAction(from: 1, through: 5) { _ throws(TraceError) in true }
    }
    do {
      _ = try damaged.session()
    } catch {
      #expect(error.code == .undecodable && error.line == 12)
      #expect(error.description.hasPrefix("d.jsonl: line 12: "))
    }
  }

  @Test(arguments: traceFormats)
  func aTruncatedTraceReadsItsIntactPart(format: UInt16) throws {
    let directory = temporaryDirectory()
    let (trace, _, states) = try Self.bothFormats(in: directory, traceFormat: format)
    #expect(trace.reader.formatVersion == format)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: trace.reader.path))
    let cut = directory + "/cut.trace"
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
    let source = try TraceSession(TraceReader(path: cut), domain: bankingDomain).intactPart()
    #expect(source.integrity.status == .truncated)
    #expect(source.lastSequence > 0 && source.lastSequence < 1_500)
    #expect(source.integrity.intactActions == Int(source.lastSequence))
    #expect(try source.state(at: source.lastSequence) == states[Int(source.lastSequence)])
  }
}
