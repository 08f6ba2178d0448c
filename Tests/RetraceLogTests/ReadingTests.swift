import Foundation
import Retrace
import RetraceExamples
import Synchronization
import Testing

@testable import RetraceLog

/// The batch reading paths: chunks handed over whole, actions decoded ahead on other
/// threads, and `state(at:)` answered from the states it reconstructed before.
@MainActor
@Suite struct ReadingTests {
  /// A banking session of `count` actions in many small chunks, and its states.
  func session(count: Int = 1_500) throws -> (
    trace: TraceSession<DomainDefinition<BankingState, BankingAction>>, states: [BankingState]
  ) {
    let path = temporaryDirectory() + "/reading.trace"
    let recorded = try record(
      bankingDomain, count: count, to: path,
      configuration: smallChunks(checkpoints: 50, snapshots: 100, reproducible: true))
    var state = bankingDomain.initialState
    var states = [state]
    for action in recorded.actions {
      _ = bankingDomain.reduce(into: &state, action: action)
      states.append(state)
    }
    return (
      try TraceSession(TraceReader(path: path), domain: bankingDomain, cachedSnapshots: 2), states
    )
  }

  @Test func chunksHandOverTheSameRecordsAsOneByOne() throws {
    let (trace, _) = try session()
    let reader = trace.reader
    #expect(reader.chunks.count > 20)
    var single: [String] = []
    try reader.forEachRecord { record in
      single.append("\(record.kind) \(record.sequence) \(Array(record.payload).count)")
      return true
    }
    var batched: [String] = []
    var batches = 0
    try reader.forEachChunk { records in
      batches += 1
      batched += records.map { "\($0.kind) \($0.sequence) \(Array($0.payload).count)" }
      return true
    }
    #expect(batched == single)
    #expect(batches == reader.chunks.count)  // a closed trace has no journal
    // One chunk alone, and a stop part way.
    var third: [TraceRecord.Kind] = []
    try reader.forEachChunk(fromChunk: 2, endChunk: 3) { records in
      third = records.map(\.kind)
      return true
    }
    #expect(third.count == reader.chunks[2].recordCount)
    var seen = 0
    try reader.forEachChunk { _ in
      seen += 1
      return seen < 4
    }
    #expect(seen == 4)
  }

  @Test func actionsDecodedAheadArriveInOrderAndStopWhenAsked() throws {
    let (trace, _) = try session()
    var sequences: [UInt64] = []
    try trace.forEachAction { action in
      sequences.append(action.sequence)
      return true
    }
    #expect(sequences == Array(1...1_500))
    // Stopping early, from the middle.
    var some: [UInt64] = []
    try trace.forEachAction(from: 700) { action in
      some.append(action.sequence)
      return some.count < 10
    }
    #expect(some == Array(700...709))
  }

  @Test func anErrorFromTheBodyEndsReadingAfterTheActionsBeforeIt() throws {
    let (trace, _) = try session()
    var seen: [UInt64] = []
    #expect(throws: TraceError.self) {
      try trace.forEachAction { action throws(TraceError) in
        seen.append(action.sequence)
        if action.sequence == 1_000 { throw TraceError(.corrupted, "stop here") }
        return true
      }
    }
    #expect(seen == Array(1...1_000))
  }

  @Test func statesAtRandomPointsInAnyOrderEqualTheLiveStates() throws {
    let (trace, states) = try session()
    var random = SeededRandom(seed: 5)
    // Forward steps, backward jumps and repeats: the cache (two snapshots and the last
    // answer) must never change an answer.
    var targets = (0..<60).map { _ in UInt64.random(in: 0...1_500, using: &random) }
    targets += [1_500, 1_499, 1_500, 0, 1, 2, 3, 101, 100, 99]
    for target in targets {
      #expect(try trace.state(at: target) == states[Int(target)], "state at \(target)")
    }
    let uncached = try TraceSession(trace.reader, domain: bankingDomain, cachedSnapshots: 0)
    for target in targets.prefix(10) {
      #expect(try uncached.state(at: target) == states[Int(target)], "uncached state at \(target)")
    }
  }

  /// `state(at:)` decodes the actions of a snapshot's chunk together with the snapshot, and
  /// keeps them with it; an action there that cannot be decoded must fail only the targets
  /// at or after it, from the cache too, naming its sequence number.
  @Test func anUndecodableActionInASnapshotsChunkFailsOnlyTheStatesAfterIt() throws {
    enum OnlyUp: Codable, Sendable { case increment }
    let onlyUp = DomainDefinition(
      name: "counter", summary: "A counter that has forgotten how to go down.",
      initialState: CounterState(),
      reducer: Reduce<CounterState, OnlyUp> { state, _ in
        state.count += 1
        return .none
      },
      actionCases: ["increment"], workload: Workload { _, _, _ in .increment })
    let path = temporaryDirectory() + "/down.trace"
    let store = Store(
      initialState: CounterState(), reducer: CounterReducer(),
      clock: .fixed(start: 1_763_771_000, interval: 1))
    let recorder = try TraceRecorder(path: path, domain: counterDomain)
    store.attach(recorder)
    for _ in 0..<10 { store.send(.increment) }
    store.send(.decrement)
    for _ in 0..<5 { store.send(.increment) }
    try recorder.close()

    let trace = try TraceSession(TraceReader(path: path), domain: onlyUp)
    // The starting snapshot's chunk, then one chunk of actions.
    #expect(trace.reader.chunks.count == 2 && trace.reader.snapshotSequences == [0])
    #expect(try trace.state(at: 10) == CounterState(count: 10))
    #expect(
      try trace.state(at: 4) == CounterState(count: 4), "from the cached snapshot and actions")
    for target: UInt64 in [11, 16] {
      let error = #expect(throws: TraceError.self) { try trace.state(at: target) }
      #expect(error?.sequence == 11, "state at \(target): \(String(describing: error))")
    }
    #expect(
      try TraceSession(trace.reader, domain: onlyUp, cachedSnapshots: 0).state(at: 10)
        == CounterState(count: 10))
  }

  /// A state whose hand-written decoding stops short of the item's end (here, after the
  /// map's head) is read as if it had none: the snapshot's end is found by skipping, its
  /// hash checks, and the state comes from its `Decodable` conformance, as
  /// `CBORDecoder.decode(_:from:)` does for any item. It must not be refused as damaged,
  /// nor taken as decoded.
  @Test func aHandWrittenDecodingThatStopsShortFallsBackToDecodable() throws {
    struct ShortCounter: Codable, Equatable, Sendable, CBORDecodable {
      var count = 0
      init() {}
      init(from reader: inout CBORReader) throws(CBORError) {
        _ = try reader.readMapHeader()
      }
    }
    let short = DomainDefinition(
      name: "counter", summary: "A counter whose decoding reads too little.",
      initialState: ShortCounter(),
      reducer: Reduce<ShortCounter, CounterAction> { state, action in
        state.count += action == .increment ? 1 : -1
        return .none
      },
      actionCases: ["increment", "decrement"], workload: Workload { _, _, _ in .increment })
    let path = temporaryDirectory() + "/short.trace"
    let store = Store(
      initialState: CounterState(), reducer: CounterReducer(),
      clock: .fixed(start: 1_763_771_000, interval: 1))
    let recorder = try TraceRecorder(
      path: path, domain: counterDomain,
      configuration: smallChunks(checkpoints: 5, snapshots: 10, reproducible: true))
    store.attach(recorder)
    for _ in 0..<30 { store.send(.increment) }
    try recorder.close()

    let reader = try TraceReader(path: path)
    #expect(reader.snapshotSequences.contains(20))
    for target: UInt64 in [20, 25] {
      let trace = try TraceSession(reader, domain: short, cachedSnapshots: 0)
      var expected = ShortCounter()
      expected.count = Int(target)
      #expect(try trace.state(at: target) == expected, "state at \(target)")
    }
  }

  /// `session()` decodes each chunk's actions on all cores straight into the session's one
  /// array. Every action it decoded belongs to the session while it lives; when an action
  /// in a later chunk does not decode, every action decoded before the error, in any chunk,
  /// is destroyed, and none twice. In both formats.
  @Test func aSessionOwnsTheActionsItDecodedAndDestroysThemOnFailure() throws {
    let trackedCounter = DomainDefinition(
      name: "counter", summary: "A counter whose increments count themselves.",
      initialState: CounterState(),
      reducer: Reduce<CounterState, TrackedIncrement> { state, _ in
        state.count += 1
        return .none
      },
      actionCases: ["increment"], workload: Workload { _, _, _ in TrackedIncrement() })
    for format: UInt16 in [1, TraceFormat.version] {
      func record(decrementAt: Int?) throws -> String {
        let path = temporaryDirectory() + "/tracked-\(format).trace"
        let store = Store(
          initialState: CounterState(), reducer: CounterReducer(),
          clock: .fixed(start: 1_763_771_000, interval: 1))
        let recorder = try TraceRecorder(
          path: path, domain: counterDomain, configuration: smallChunks(format: format))
        store.attach(recorder)
        for index in 1...3_000 { store.send(index == decrementAt ? .decrement : .increment) }
        try recorder.close()
        return path
      }
      let whole = try TraceSession(
        TraceReader(path: try record(decrementAt: nil)), domain: trackedCounter)
      #expect(whole.reader.chunks.count > 4, "format \(format)")
      do {
        let session = try whole.session()
        #expect(session.actions.count == 3_000)
        #expect(session.actions.map(\.sequence) == Array(1...3_000))
        #expect(TrackedIncrement.alive == 3_000, "format \(format)")
      }
      #expect(TrackedIncrement.alive == 0, "format \(format): the session's actions are freed")

      let broken = try TraceSession(
        TraceReader(path: try record(decrementAt: 2_500)), domain: trackedCounter)
      // Chunks before the undecodable action's and after it decode too.
      #expect(broken.reader.chunks.last.map { $0.firstSequence > 2_500 } == true)
      let error = #expect(throws: TraceError.self) { try broken.session() }
      #expect(error?.sequence == 2_500, "format \(format): \(String(describing: error))")
      #expect(TrackedIncrement.alive == 0, "format \(format): the decoded actions are freed")
    }
  }

  @Test func aPayloadWithIndefiniteLengthsIsSkippedWhole() throws {
    // {"a": [_ 1, 2], "b": (_ "x" "y")}, and [{"a": 1([1, 2, h'EE'])}], each followed by 7: the cursor's loop hands indefinite
    // lengths to the recursive path, and both end where the item ends.
    let item: [UInt8] = [
      0xA2, 0x61, 0x61, 0x9F, 0x01, 0x02, 0xFF, 0x61, 0x62, 0x7F, 0x61, 0x78, 0x61, 0x79, 0xFF,
    ]
    let definite: [UInt8] = [
      0x81, 0xA1, 0x61, 0x61, 0xC1, 0x83, 0x01, 0x02, 0x5A, 0x00, 0x00, 0x00, 0x01, 0xEE,
    ]
    for bytes in [item, definite] {
      try (bytes + [0x07]).withUnsafeBytes { raw throws in
        var cursor = RecordCBOR.Cursor(raw)
        #expect(try cursor.skipItem() == 0..<bytes.count)
        #expect(try cursor.readUInt() == 7)
      }
    }
    // Truncated anywhere: an error, never a range past the end.
    for cut in 0..<item.count {
      Array(item.prefix(cut)).withUnsafeBytes { raw in
        var cursor = RecordCBOR.Cursor(raw)
        #expect(throws: RecordCBOR.CursorError.self) { try cursor.skipItem() }
      }
    }
  }
}

/// A session's times never precede its start: the header's start time is taken when the
/// recorder is attached, before the store stamps any action.
@Suite struct StartTimeTests {
  @Test @MainActor func noActionIsBeforeTheStartTime() throws {
    for round in 0..<5 {
      let path = temporaryDirectory() + "/start-\(round).trace"
      let store = Store(initialState: CounterState(), reducer: CounterReducer())
      let recorder = try TraceRecorder(path: path, domain: counterDomain)
      store.attach(recorder)
      store.send(.increment)
      store.send(.increment)
      try recorder.close()
      let reader = try TraceReader(path: path)
      var times: [Double] = []
      try reader.forEachRecord { record throws(TraceError) in
        if record.kind == .action, let time = record.time { times.append(time) }
        return true
      }
      #expect(times.count == 2)
      #expect(
        times.allSatisfy { $0 >= reader.header.startTime },
        "round \(round): \(times) before \(reader.header.startTime)")
    }
  }
}

/// A counter's increment that counts how many of its values are alive; a decrement does not
/// decode as one. Used by one test only, so that the count is that test's.
private struct TrackedIncrement: Codable, Sendable {
  private final class Token: Sendable {
    init() { TrackedIncrement.count.withLock { $0 += 1 } }
    deinit { TrackedIncrement.count.withLock { $0 -= 1 } }
  }
  private static let count = Mutex(0)
  private enum Case: CodingKey { case increment }
  private let token = Token()

  /// How many increments are alive.
  static var alive: Int { count.withLock { $0 } }

  init() {}

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Case.self)
    guard container.contains(.increment) else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: [], debugDescription: "not an increment"))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Case.self)
    try container.encode([String: Int](), forKey: .increment)
  }
}
