import Foundation
import Retrace
import RetraceExamples
import Synchronization
import Testing

@testable import RetraceLog

@MainActor
@Suite struct FaultTests {
  typealias Recorder = TraceRecorder<BankingState, BankingAction>

  func makeRecorder(
    _ storage: SimulatedStorage, errors: ErrorLog? = nil,
    configuration: TraceRecorderConfiguration = smallChunks()
  ) throws -> Recorder {
    try Recorder(
      path: "/sim/session.trace", domain: "banking", sessionID: "sim", startTime: 1_763_771_000,
      configuration: configuration, storage: storage,
      onError: { error in errors?.append(error.description) })
  }

  func makeStore() -> Store<BankingState, BankingAction> {
    Store(
      initialState: BankingState(), reducer: BankingReducer(),
      clock: .fixed(start: 1_763_771_000, interval: 1))
  }

  func drive(
    _ store: Store<BankingState, BankingAction>, from step: Int, count: Int,
    random: inout SeededRandom
  ) -> [BankingAction] {
    var actions: [BankingAction] = []
    for i in step..<(step + count) {
      let action = bankingDomain.workload!.next(store.state, i, &random)
      actions.append(action)
      store.send(action)
    }
    return actions
  }

  func read(_ trace: [UInt8]?, journal: [UInt8]?) throws -> [BankingAction] {
    let reader = try TraceReader(bytes: try #require(trace), journal: journal)
    return try TraceSession(reader, domain: bankingDomain).actions().map(\.action)
  }

  @Test func aWriteErrorStopsRecordingReportsOnceAndKeepsWhatWasWritten() throws {
    let storage = SimulatedStorage()
    let errors = ErrorLog()
    let recorder = try makeRecorder(storage, errors: errors)
    let store = makeStore()
    store.attach(recorder)
    var random = SeededRandom(seed: 5)
    var actions = drive(store, from: 0, count: 500, random: &random)
    try recorder.flush()
    storage.faults.withLock { $0.failAtWrite = 0 }
    actions += drive(store, from: 500, count: 2_000, random: &random)  // the app keeps working
    #expect(store.state.accounts.count >= 3)
    // The recorder has failed, once, with a one-line error naming the file.
    #expect(throws: TraceError.self) { try recorder.flush() }
    guard case .failed(let error) = recorder.status else {
      Issue.record("status is \(recorder.status)")
      return
    }
    #expect(error.description.hasPrefix("/sim/session.trace"))
    #expect(errors.messages.count == 1)
    // Everything written before the failure reads back as a prefix.
    let read = try read(
      storage.contents("/sim/session.trace"),
      journal: storage.contents("/sim/session.trace.journal"))
    #expect(read.count >= 500)
    #expect(Array(actions.prefix(read.count)) == read)
    #expect(throws: TraceError.self) { try recorder.close() }
  }

  @Test func aFullDiskLeavesAReadablePrefix() throws {
    let storage = SimulatedStorage(faults: .init(capacity: 60_000))
    let errors = ErrorLog()
    let recorder = try makeRecorder(storage, errors: errors)
    let store = makeStore()
    store.attach(recorder)
    var random = SeededRandom(seed: 6)
    let actions = drive(store, from: 0, count: 5_000, random: &random)
    #expect(throws: TraceError.self) { try recorder.close() }
    #expect(errors.messages.first.map { $0.contains("No space left") } == true)
    let read = try read(
      storage.contents("/sim/session.trace"),
      journal: storage.contents("/sim/session.trace.journal"))
    #expect(read.count > 0)
    #expect(Array(actions.prefix(read.count)) == read)
  }

  @Test(arguments: [false, true])
  func aPowerLossKeepsEverythingFlushed(garble: Bool) throws {
    let storage = SimulatedStorage()
    var configuration = smallChunks()
    configuration.syncEveryChunk = false
    let recorder = try makeRecorder(storage, configuration: configuration)
    let store = makeStore()
    store.attach(recorder)
    var random = SeededRandom(seed: 7)
    var actions = drive(store, from: 0, count: 1_234, random: &random)
    try recorder.flush()
    actions += drive(store, from: 1_234, count: 3_000, random: &random)
    Thread.sleep(forTimeInterval: 0.05)
    let read = try read(
      storage.afterPowerLoss("/sim/session.trace", garble: garble),
      journal: storage.afterPowerLoss("/sim/session.trace.journal", garble: garble))
    #expect(read.count >= 1_234, "lost flushed actions")
    #expect(Array(actions.prefix(read.count)) == read)
    try recorder.close()
  }

  @Test func sendNeverBlocksAndDropsAreCounted() throws {
    var configuration = smallChunks()
    configuration.maxPendingActions = 10
    let storage = SimulatedStorage()
    let recorder = try makeRecorder(storage, configuration: configuration)
    let store = makeStore()
    store.attach(recorder)
    var random = SeededRandom(seed: 8)
    let actions = drive(store, from: 0, count: 20_000, random: &random)
    let closing = Result { () throws(TraceError) in try recorder.close() }
    let read = try read(storage.contents("/sim/session.trace"), journal: nil)
    if recorder.droppedActionCount > 0 {
      // Recording stopped cleanly where the writer fell behind, and said so.
      guard case .failed(let error) = recorder.status else {
        Issue.record("drops without a failed status")
        return
      }
      #expect(error.description.contains("fell behind"))
      #expect(throws: TraceError.self) { try closing.get() }
      #expect(read.count + recorder.droppedActionCount <= 20_000)
      #expect(
        try TraceReader(bytes: storage.contents("/sim/session.trace")!).integrity.status == .clean)
    } else {
      #expect(read.count == 20_000)
    }
    #expect(Array(actions.prefix(read.count)) == read)
  }

  /// A disk that stalls the writer: `send` goes on at full speed, the queue stays bounded,
  /// every action beyond it is counted and reported, and the trace ends cleanly after the
  /// last action that was queued.
  @Test func aWriterThatIsBehindIsHandedNoStateUntilItCatchesUp() throws {
    // Checkpoints every 100 actions: a state is due at 100.
    let storage = SimulatedStorage()
    let recorder = try makeRecorder(
      storage, configuration: smallChunks(checkpoints: 100, snapshots: 100_000))
    let state = BankingState()
    recorder.attached(sequence: 0, state: state)
    func record(_ sequences: ClosedRange<UInt64>) {
      for sequence in sequences {
        recorder.record(
          Transition(
            sequence: sequence, time: 1_763_771_000 + Double(sequence),
            action: .moveAccount(from: 0, to: 0),
            stateBefore: nil, stateAfter: nil))
      }
    }
    record(1...200)
    try recorder.flush()
    #expect(recorder.wantsStateAfter(sequence: 200), "a writer that keeps up is handed the state")
    #expect(!recorder.wantsStateAfter(sequence: 250), "not a checkpoint candidate")

    storage.faults.withLock { $0.stalled = true }
    record(201...3_000)
    let deadline = Date().addingTimeInterval(10)
    while !storage.isStalling, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
    #expect(storage.isStalling, "the writer never reached the stalled disk")
    #expect(!recorder.wantsStateAfter(sequence: 3_000), "a writer thousands of actions behind")
    record(3_001...9_000)
    #expect(
      !recorder.wantsStateAfter(sequence: 9_000), "long overdue, but the writer is still behind")

    storage.faults.withLock { $0.stalled = false }
    try recorder.flush()
    #expect(recorder.wantsStateAfter(sequence: 9_100), "caught up again")
    try recorder.close()
  }

  @Test func aStalledDiskNeverBlocksSendAndCountsEveryDrop() throws {
    var configuration = smallChunks()
    configuration.maxPendingActions = 1_000
    let storage = SimulatedStorage()
    let errors = ErrorLog()
    let recorder = try makeRecorder(storage, errors: errors, configuration: configuration)
    let store = makeStore()
    store.attach(recorder)
    var random = SeededRandom(seed: 9)
    var actions = drive(store, from: 0, count: 200, random: &random)
    try recorder.flush()
    storage.faults.withLock { $0.stalled = true }
    actions += drive(store, from: 200, count: 1, random: &random)
    let deadline = Date().addingTimeInterval(10)
    while !storage.isStalling, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
    #expect(storage.isStalling, "the writer never reached the stalled disk")

    var slowest = 0.0
    for step in 201..<5_201 {
      let action = bankingDomain.workload!.next(store.state, step, &random)
      actions.append(action)
      let start = Date()
      store.send(action)
      slowest = max(slowest, Date().timeIntervalSince(start))
    }
    #expect(slowest < 0.1, "a send took \(slowest) s while the disk stalled")
    #expect(recorder.droppedActionCount >= 5_201 - 200 - 1 - configuration.maxPendingActions)
    #expect(store.state.accounts.count >= 3, "the app stopped working")

    storage.faults.withLock { $0.stalled = false }
    #expect(throws: TraceError.self) { try recorder.close() }
    guard case .failed(let error) = recorder.status else {
      Issue.record("status is \(recorder.status) after drops")
      return
    }
    #expect(error.description.contains("fell behind by 1000 actions"))
    #expect(errors.messages.count == 1)
    // Nothing silent: every action is either in the trace or counted as dropped.
    let reader = try TraceReader(bytes: try #require(storage.contents("/sim/session.trace")))
    #expect(reader.integrity.status == .clean)
    let read = try TraceSession(reader, domain: bankingDomain).actions().map(\.action)
    #expect(read.count + recorder.droppedActionCount == actions.count)
    #expect(Array(actions.prefix(read.count)) == read)
  }

  /// A write that fails part way, at several points after a flush: recording stops, the
  /// failure is reported once, everything flushed reads back as a prefix, and a new
  /// recorder works.
  @Test(arguments: [1, 2, 7, 40, 300])
  func aWriteThatFailsPartWayKeepsEverythingBefore(after writes: Int) throws {
    let storage = SimulatedStorage()
    let errors = ErrorLog()
    let recorder = try makeRecorder(storage, errors: errors)
    let store = makeStore()
    store.attach(recorder)
    var random = SeededRandom(seed: 10)
    var actions = drive(store, from: 0, count: 700, random: &random)
    try recorder.flush()
    let tornAt = storage.writeCount + writes
    storage.faults.withLock { $0.tornWriteAt = tornAt }
    actions += drive(store, from: 700, count: 1_500, random: &random)
    #expect(throws: TraceError.self) { try recorder.close() }
    #expect(errors.messages.count == 1)
    #expect(errors.messages.first?.contains("after") == true, "\(errors.messages)")
    let reader = try TraceReader(
      bytes: try #require(storage.contents("/sim/session.trace")),
      journal: storage.contents("/sim/session.trace.journal"))
    #expect(reader.integrity.status != .clean)
    let read = try TraceSession(reader, domain: bankingDomain).actions().map(\.action)
    #expect(read.count >= 700, "lost flushed actions: read \(read.count)")
    #expect(Array(actions.prefix(read.count)) == read)
    // The app keeps working, and so does the next recording.
    storage.faults.withLock { $0.tornWriteAt = nil }
    let next = try Recorder(
      path: "/sim/next.trace", domain: "banking", sessionID: "next", startTime: 1_763_771_000,
      configuration: smallChunks(), storage: storage)
    store.attach(next)
    actions = drive(store, from: 2_200, count: 300, random: &random)
    try next.close()
    #expect(try self.read(storage.contents("/sim/next.trace"), journal: nil) == actions)
  }

  /// The trace's directory removed while recording: writes to the open files still succeed
  /// on POSIX systems, into files nobody can read, so the recorder checks and reports it
  /// rather than losing the session silently. The app keeps working.
  @Test func aDirectoryRemovedWhileRecordingIsReported() throws {
    let directory = temporaryDirectory()
    let errors = ErrorLog()
    let recorder = try Recorder(
      path: directory + "/session.trace", domain: "banking", sessionID: "removed",
      startTime: 1_763_771_000,
      configuration: smallChunks(), onError: { errors.append($0.description) })
    let store = makeStore()
    store.attach(recorder)
    var random = SeededRandom(seed: 11)
    _ = drive(store, from: 0, count: 300, random: &random)
    try recorder.flush()
    try FileManager.default.removeItem(atPath: directory)
    let start = Date()
    _ = drive(store, from: 300, count: 3_000, random: &random)
    #expect(Date().timeIntervalSince(start) < 10)
    #expect(throws: TraceError.self) { try recorder.flush() }
    guard case .failed(let error) = recorder.status else {
      Issue.record("status is \(recorder.status) with the directory gone")
      return
    }
    #expect(error.code == .notFound)
    #expect(error.description.hasPrefix(directory + "/session.trace"))
    #expect(error.description.contains("removed while recording"))
    #expect(errors.messages.count == 1)
    #expect(store.state.accounts.count >= 3)
  }
}

final class ErrorLog: Sendable {
  private let mutex = Mutex<[String]>([])
  func append(_ message: String) { mutex.withLock { $0.append(message) } }
  var messages: [String] { mutex.withLock { $0 } }
}
