import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

@MainActor
@Suite struct RoundTripTests {
  nonisolated static let domains = ["counter", "banking", "settings"]

  func roundTrip<D: Domain>(_ domain: D, configuration: TraceRecorderConfiguration, count: Int)
    throws
  {
    let path = temporaryDirectory() + "/\(domain.name).trace"
    let recorded = try record(domain, count: count, to: path, configuration: configuration)
    let reader = try TraceReader(path: path)
    #expect(reader.integrity.status == .clean)
    #expect(reader.header.domain == domain.name)
    #expect(reader.header.sessionID == "test-session")
    #expect(reader.actionCount == count)
    let trace = try TraceSession(reader, domain: domain)
    let actions = try trace.actions()
    // Actions are compared by their encoding: the example domains' action types differ.
    let encoder = CBOREncoder()
    #expect(
      try actions.map { try encoder.encode($0.action) }
        == recorded.actions.map { try encoder.encode($0) })
    #expect(actions.map(\.sequence) == Array(1...UInt64(count)))
    #expect(actions.first?.time == 1_763_771_000.25)
    #expect(try trace.state(at: UInt64(count)) == recorded.state)
    #expect(try trace.initialState() == domain.initialState)
    // Every checkpoint and snapshot hash matches the replayed state.
    var state = domain.initialState
    var checked = 0
    try reader.forEachRecord { record throws(TraceError) in
      switch record.kind {
      case .action: _ = domain.reduce(into: &state, action: try trace.decodeAction(record))
      case .checkpoint, .snapshot:
        #expect(record.hash == (try? StateHash(of: state)), "hash at \(record.sequence)")
        checked += 1
      case .jump: state = try record.decode(type(of: state))
      case .end: #expect(record.sequence == UInt64(count))
      }
      return true
    }
    #expect(checked >= 1)
    #expect(!FileManager.default.fileExists(atPath: path + ".journal"))
  }

  @Test(arguments: domains)
  func everyDomainRoundTripsAcrossManyChunks(name: String) throws {
    try roundTrip(Examples.domain(named: name)!, configuration: smallChunks(), count: 3_000)
  }

  @Test(arguments: domains)
  func everyDomainRoundTripsWithoutCheckpointsOrSnapshots(name: String) throws {
    try roundTrip(
      Examples.domain(named: name)!, configuration: smallChunks(checkpoints: 0, snapshots: 0),
      count: 1_000)
  }

  @Test func theDefaultConfigurationRoundTrips() throws {
    try roundTrip(bankingDomain, configuration: TraceRecorderConfiguration(), count: 5_000)
  }

  @Test func stateAtAnySequenceEqualsReplayingThePrefix() throws {
    let path = temporaryDirectory() + "/seek.trace"
    let recorded = try record(
      bankingDomain, count: 1_200, to: path,
      configuration: smallChunks(checkpoints: 50, snapshots: 100, reproducible: true))
    let trace = try TraceSession(TraceReader(path: path), domain: bankingDomain)
    // The state-size budget spaces them out as the state grows.
    #expect(trace.reader.snapshotSequences.count >= 3)
    for n in [0, 1, 99, 100, 101, 650, 1_199, 1_200] {
      var expected = bankingDomain.initialState
      for action in recorded.actions.prefix(n) {
        _ = bankingDomain.reduce(into: &expected, action: action)
      }
      #expect(try trace.state(at: UInt64(n)) == expected, "state at \(n)")
    }
    #expect(throws: TraceError.self) { try trace.state(at: 1_201) }
  }

  /// An action larger than the journal (1 MiB beside a small chunk size) finishes the chunk
  /// while it is journaled; it still reads back, in both formats.
  @Test(arguments: traceFormats)
  func anActionLargerThanTheJournalReadsBack(format: UInt16) throws {
    let path = temporaryDirectory() + "/large.trace"
    var configuration = TraceRecorderConfiguration()
    configuration.formatVersion = format
    configuration.chunkSize = 4_096
    let recorder = try TraceRecorder(
      path: path, domain: postsDomain, sessionID: "large", startTime: 1_763_771_000,
      configuration: configuration)
    recorder.attached(sequence: 0, state: postsDomain.initialState)
    let posts = (0..<12_000).map {
      Post(id: $0, title: "Post \($0)", body: "body \($0) " + String(repeating: "x", count: 90))
    }
    let actions: [PostsAction] = [.load, .postsLoaded(posts: posts), .load, .retry]
    var state = postsDomain.initialState
    for (index, action) in actions.enumerated() {
      _ = postsDomain.reduce(into: &state, action: action)
      recorder.record(
        Transition(
          sequence: UInt64(index + 1), time: 1_763_771_000 + Double(index + 1), action: action,
          stateBefore: nil, stateAfter: state))
    }
    try recorder.close()
    let reader = try TraceReader(path: path)
    #expect(reader.integrity.isClean)
    #expect(try readActions(postsDomain, reader) == actions)
  }

  @Test func anUnclosedSessionIsReadFromItsJournal() throws {
    let path = temporaryDirectory() + "/crashed.trace"
    var configuration = TraceRecorderConfiguration()
    configuration.chunkSize = 16_384
    configuration.checkpointInterval = 100
    configuration.snapshotInterval = 500
    configuration.maxSnapshotShare = 1
    configuration.reproducibleCheckpoints = true
    let recorded = try record(
      bankingDomain, count: 2_000, to: path, configuration: configuration, close: false)
    #expect(FileManager.default.fileExists(atPath: path + ".journal"))
    let reader = try TraceReader(path: path)
    #expect(reader.integrity.status == .unfinished)
    #expect(reader.integrity.recoveredActions > 0)
    #expect(reader.chunks.count >= 2)
    #expect(reader.snapshotSequences.count >= 3)
    #expect(try readActions(bankingDomain, reader) == recorded.actions)
    // The state after any action, the journal's included: at and after each snapshot, at
    // both sides of each chunk boundary, and at the end. Uncached, so that each answer
    // reads its snapshot's chunk (the snapshot and that chunk's actions in one pass) and
    // the chunks after it, then the journal.
    var states = [bankingDomain.initialState]
    for action in recorded.actions {
      var next = states[states.count - 1]
      _ = bankingDomain.reduce(into: &next, action: action)
      states.append(next)
    }
    let trace = try TraceSession(reader, domain: bankingDomain, cachedSnapshots: 0)
    let boundaries = reader.chunks.flatMap {
      [$0.firstSequence - 1, $0.firstSequence, $0.firstSequence + UInt64($0.actionCount) - 1]
    }
    let targets = Set(
      reader.snapshotSequences.flatMap { [$0, $0 + 1] } + boundaries + [1_999, 2_000])
    for target in targets.sorted() where target <= 2_000 {
      #expect(try trace.state(at: target) == states[Int(target)], "state at \(target)")
    }
    // Cached, backwards: a snapshot decoded for a target inside its chunk holds that chunk's
    // actions only up to the target, and a later target beyond it must still see them all.
    let cached = try TraceSession(reader, domain: bankingDomain, cachedSnapshots: 4)
    for target in targets.sorted().reversed() + targets.sorted() where target <= 2_000 {
      #expect(try cached.state(at: target) == states[Int(target)], "cached state at \(target)")
    }
    // Without the journal, only the chunks' prefix.
    let chunksOnly = try TraceReader(path: path, readJournal: false)
    #expect(chunksOnly.actionCount == 2_000 - reader.integrity.recoveredActions)
    try recorded.recorder.close()
    #expect(try TraceReader(path: path).integrity.status == .clean)
  }

  @Test func aRecorderAttachedMidSessionStartsFromTheCurrentState() throws {
    let path = temporaryDirectory() + "/late.trace"
    let store = Store(initialState: CounterState(), reducer: CounterReducer())
    store.send(.increment)
    store.send(.increment)
    let recorder = try TraceRecorder(path: path, domain: counterDomain)
    store.attach(recorder)
    store.send(.decrement)
    try recorder.close()
    let trace = try TraceSession(TraceReader(path: path), domain: counterDomain)
    #expect(trace.reader.header.firstSequence == 2)
    #expect(try trace.actions().map(\.sequence) == [3])
    #expect(try trace.initialState() == CounterState(count: 2))
    #expect(try trace.state(at: 3) == CounterState(count: 1))
  }

  @Test func actionCasesAreReadWithoutDecoding() throws {
    let path = temporaryDirectory() + "/cases.trace"
    _ = try record(counterDomain, count: 200, to: path)
    var cases: [String: Int] = [:]
    try TraceReader(path: path).forEachRecord { record in
      if record.kind == .action { cases[record.actionCase ?? "?", default: 0] += 1 }
      return true
    }
    #expect(cases.keys.sorted().allSatisfy { ["decrement", "increment", "reset"].contains($0) })
    #expect(cases.values.reduce(0, +) == 200)
  }

  @Test func theSameSessionGivesTheSameBytes() throws {
    let directory = temporaryDirectory()
    _ = try record(
      bankingDomain, count: 1_500, to: directory + "/a.trace",
      configuration: smallChunks(reproducible: true))
    _ = try record(
      bankingDomain, count: 1_500, to: directory + "/b.trace",
      configuration: smallChunks(reproducible: true))
    #expect(bytes(of: directory + "/a.trace") == bytes(of: directory + "/b.trace"))
  }

  /// By default the recorder never waits for the writer: it skips a checkpoint candidate
  /// while the writer still holds the previous state, so a fast session keeps fewer
  /// checkpoints than a reproducible one, never more, and every one it keeps verifies.
  @Test func anAppRecorderSkipsCheckpointsRatherThanWaiting() throws {
    let directory = temporaryDirectory()
    _ = try record(
      bankingDomain, count: 3_000, to: directory + "/app.trace",
      configuration: smallChunks(checkpoints: 10, snapshots: 100))
    _ = try record(
      bankingDomain, count: 3_000, to: directory + "/tool.trace",
      configuration: smallChunks(checkpoints: 10, snapshots: 100, reproducible: true))
    let app = try TraceReader(path: directory + "/app.trace")
    let tool = try TraceReader(path: directory + "/tool.trace")
    #expect(app.actionCount == 3_000 && tool.actionCount == 3_000)
    #expect(app.checkpointCount <= tool.checkpointCount)
    #expect(app.checkpointCount > 0)
    let trace = try TraceSession(app, domain: bankingDomain)
    for sequence in app.snapshotSequences {
      var expected = bankingDomain.initialState
      try trace.forEachAction { action in
        guard action.sequence <= sequence else { return false }
        _ = bankingDomain.reduce(into: &expected, action: action.action)
        return true
      }
      #expect(try trace.state(at: sequence) == expected)
    }
  }

  /// The recorder encodes actions that have a hand-written encoding on the sending thread,
  /// through a closure made once for the type; it must find that encoding, and write what
  /// `CBOREncoder` writes. Actions with only `Codable` have none and go to the writer.
  @Test func theRecorderFindsAHandWrittenActionEncoding() throws {
    let encode = try #require(handWrittenEncoding(of: BankingAction.self))
    let (actions, _) = bankingDomain.generate(count: 200, seed: 4)
    for action in actions {
      var writer = CBORWriter()
      encode(action, &writer)
      #expect(writer.bytes == (try CBOREncoder().encode(action)))
    }
    #expect(handWrittenEncoding(of: PostsAction.self) == nil)
  }
}
