import Foundation
import Retrace
import RetraceExamples
import RetraceLog
import Testing

@Suite struct JSONLinesTests {
  private func text<D: Domain>(_ session: RecordedSession<D>, _ domain: D) throws -> String {
    var text = try JSONLines.headerLine(for: session, domain: domain) + "\n"
    let writer = JSONLines.ActionWriter<D.Action>()
    for action in session.actions { text += try writer.line(for: action) + "\n" }
    return text
  }

  @Test(arguments: Examples.domains.map(\.name))
  func writeThenReadGivesTheSameSession(domainName: String) throws {
    try roundTrip(Examples.domain(named: domainName)!)
  }

  private func finalState<D: Domain>(_ session: RecordedSession<D>, _ domain: D) -> D.State {
    var state = session.initialState
    for action in session.actions { _ = domain.reduce(into: &state, action: action.action) }
    return state
  }

  private func roundTrip<D: Domain>(_ domain: D) throws {
    let session = RecordedSession(
      domain: domain, actions: domain.generate(count: 700, seed: 4).actions,
      sessionID: "\(domain.name)-4")
    let data = Data(try text(session, domain).utf8)
    let read = try JSONLines.readSession(from: data, domain: domain, path: "s.jsonl")
    #expect(read.info == session.info)
    #expect(read.actions.map(\.sequence) == session.actions.map(\.sequence))
    #expect(read.actions.map(\.time) == session.actions.map(\.time))
    #expect(finalState(read, domain) == finalState(session, domain))
    // Writing is deterministic: the same session gives the same bytes.
    #expect(try text(read, domain) == text(session, domain))
  }

  @Test func theFormatIsTheDocumentedOne() throws {
    let session = RecordedSession(
      domain: counterDomain, actions: [.increment, .reset], sessionID: "s1")
    let lines = try text(session, counterDomain).split(separator: "\n")
    #expect(
      lines[0]
        == #"{"format":"retrace-jsonl","version":1,"domain":"counter","actionSchemaVersion":1,"sessionID":"s1","startTime":1763771000,"producer":"Retrace 0.1.0","firstSequence":0}"#
    )
    #expect(lines[1] == #"{"seq":1,"time":1763771000,"action":{"increment":{}}}"#)
    #expect(lines[2] == #"{"seq":2,"time":1763771001,"action":{"reset":{}}}"#)
  }

  @Test func aSliceKeepsItsInitialState() throws {
    let slice = RecordedSession<DomainDefinition<CounterState, CounterAction>>(
      info: SessionInfo(domain: "counter", sessionID: "s", startTime: 0.5), startSequence: 41,
      initialState: CounterState(count: 9),
      actions: [TimedAction(sequence: 42, time: 1.25, action: .decrement)])
    let data = Data(try text(slice, counterDomain).utf8)
    let read = try JSONLines.readSession(from: data, domain: counterDomain)
    #expect(read.startSequence == 41)
    #expect(read.initialState == CounterState(count: 9))
    #expect(read.actions.first?.time == 1.25)
  }

  private func error(reading text: String, domain: some Domain = counterDomain) -> TraceError? {
    do {
      _ = try JSONLines.readSession(from: Data(text.utf8), domain: domain, path: "bad.jsonl")
      return nil
    } catch {
      return error
    }
  }

  private let header =
    #"{"format":"retrace-jsonl","version":1,"domain":"counter","actionSchemaVersion":1,"sessionID":"s","startTime":0,"producer":"t","firstSequence":0}"#

  @Test func aBadLineIsAnErrorNamingItsLineNumber() throws {
    let cases: [(String, TraceError.Code, String)] = [
      (
        header + "\n" + #"{"seq":1,"time":0,"action":{"increment":{}}}"# + "\nnot json\n",
        .corrupted,
        "not valid JSON (invalid value around character"
      ),
      (
        header + "\n" + #"{"seq":1,"time":0,"action":{"increment":{}}}"# + "\n"
          + #"{"seq":3,"time":0,"action":{"increment":{}}}"# + "\n", .corrupted,
        "expected sequence number 2, found 3"
      ),
      (
        header + "\n" + #"{"seq":1,"time":0,"action":{"increment":{}}}"# + "\n"
          + #"{"seq":2,"time":0,"action":{"jump":{}}}"# + "\n", .undecodable,
        "unknown action case 'jump'"
      ),
      (
        header + "\n" + #"{"seq":1,"time":0,"action":{"increment":{}}}"# + "\n"
          + #"{"seq":2,"action":{"increment":{}}}"# + "\n", .corrupted, #"missing "time""#
      ),
      (
        header + "\n" + #"{"seq":1,"time":0,"action":{"increment":{}}}"# + "\n"
          + #"{"seq":2,"time":0,"action":{"increment":{},"reset":{}}}"# + "\n", .undecodable,
        "at action"
      ),
    ]
    for (text, code, message) in cases {
      let error = try #require(self.error(reading: text))
      #expect(error.code == code)
      #expect(error.line == 3)
      #expect(error.message.contains(message), "\(error.message)")
      #expect(error.description.hasPrefix("bad.jsonl: line 3: "))
    }
  }

  @Test func blankLinesAreIgnoredAndCountedInLineNumbers() throws {
    let text = header + "\n\n" + #"{"seq":1,"time":0,"action":{"increment":{}}}"# + "\n\n" + "{}\n"
    let error = try #require(self.error(reading: text))
    #expect(error.line == 5)
  }

  @Test func aFileWithoutHeaderIsNotATrace() throws {
    #expect(error(reading: "")?.code == .notATrace)
    #expect(error(reading: #"{"seq":1,"time":0,"action":{"increment":{}}}"#)?.code == .notATrace)
    #expect(error(reading: "\u{28}\u{B5}\u{2F}\u{FD} binary")?.code == .notATrace)
    let newer = header.replacingOccurrences(of: #""version":1"#, with: #""version":9"#)
    #expect(error(reading: newer)?.code == .unsupportedVersion)
    #expect(error(reading: header, domain: bankingDomain)?.code == .wrongDomain)
  }

  @Test func theIntactPrefixStopsAtTheDamageAndTellsTruncationApart() throws {
    let good = header + "\n" + #"{"seq":1,"time":0,"action":{"increment":{}}}"# + "\n"
    let truncated = good + #"{"seq":2,"time":0,"act"#
    let (session, damage) = try JSONLines.readIntactPrefix(
      from: Data(truncated.utf8), domain: counterDomain)
    #expect(session.actions.count == 1)
    #expect(damage?.isTruncation == true)
    #expect(damage?.error.line == 3)

    let damaged = good + "garbage\n" + #"{"seq":2,"time":0,"action":{"increment":{}}}"# + "\n"
    let (prefix, middle) = try JSONLines.readIntactPrefix(
      from: Data(damaged.utf8), domain: counterDomain)
    #expect(prefix.actions.count == 1)
    #expect(middle?.isTruncation == false)

    let (whole, none) = try JSONLines.readIntactPrefix(from: Data(good.utf8), domain: counterDomain)
    #expect(whole.actions.count == 1)
    #expect(none == nil)
  }
}
