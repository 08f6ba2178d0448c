import Foundation
import Retrace
import RetraceExamples
@testable import RetraceLog
import Synchronization
import Testing

@MainActor
@Suite struct FaultTests {
  typealias Recorder = TraceRecorder<BankingState, BankingAction>

  func makeRecorder(_ storage: SimulatedStorage, errors: ErrorLog? = nil, configuration: TraceRecorderConfiguration = smallChunks()) throws -> Recorder {
    try Recorder(
      path: "/sim/session.trace", domain: "banking", sessionID: "sim", startTime: 1_763_771_000,
      configuration: configuration, storage: storage,
      onError: { error in errors?.append(error.description) })
  }

  func drive(_ store: Store<BankingState, BankingAction>, from step: Int, count: Int, random: inout SeededRandom) -> [BankingAction] {
    var actions: [BankingAction] = []
    for i in step..<(step + count) {
      let action = bankingDomain.workload.next(store.state, i, &random)
      actions.append(action)
      store.send(action)
    }
    return actions
  }

  func read(_ trace: [UInt8]?, journal: [UInt8]?) throws -> [BankingAction] {
    let reader = try TraceReader(bytes: try #require(trace), journal: journal)
    return try DomainTrace(reader, domain: bankingDomain).actions().map(\.action)
  }

  @Test func aWriteErrorStopsRecordingReportsOnceAndKeepsWhatWasWritten() throws {
    let storage = SimulatedStorage()
    let errors = ErrorLog()
    let recorder = try makeRecorder(storage, errors: errors)
    let store = Store(initialState: BankingState(), reducer: BankingReducer(), clock: .fixed(start: 1_763_771_000, interval: 1))
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
    let read = try read(storage.contents("/sim/session.trace"), journal: storage.contents("/sim/session.trace.journal"))
    #expect(read.count >= 500)
    #expect(Array(actions.prefix(read.count)) == read)
    #expect(throws: TraceError.self) { try recorder.close() }
  }

  @Test func aFullDiskLeavesAReadablePrefix() throws {
    let storage = SimulatedStorage(faults: .init(capacity: 60_000))
    let errors = ErrorLog()
    let recorder = try makeRecorder(storage, errors: errors)
    let store = Store(initialState: BankingState(), reducer: BankingReducer(), clock: .fixed(start: 1_763_771_000, interval: 1))
    store.attach(recorder)
    var random = SeededRandom(seed: 6)
    let actions = drive(store, from: 0, count: 5_000, random: &random)
    #expect(throws: TraceError.self) { try recorder.close() }
    #expect(errors.messages.first.map { $0.contains("No space left") } == true)
    let read = try read(storage.contents("/sim/session.trace"), journal: storage.contents("/sim/session.trace.journal"))
    #expect(read.count > 0)
    #expect(Array(actions.prefix(read.count)) == read)
  }

  @Test(arguments: [false, true])
  func aPowerLossKeepsEverythingFlushed(garble: Bool) throws {
    let storage = SimulatedStorage()
    var configuration = smallChunks()
    configuration.syncEveryChunk = false
    let recorder = try makeRecorder(storage, configuration: configuration)
    let store = Store(initialState: BankingState(), reducer: BankingReducer(), clock: .fixed(start: 1_763_771_000, interval: 1))
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
    let store = Store(initialState: BankingState(), reducer: BankingReducer(), clock: .fixed(start: 1_763_771_000, interval: 1))
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
      #expect(try TraceReader(bytes: storage.contents("/sim/session.trace")!).integrity.status == .clean)
    } else {
      #expect(read.count == 20_000)
    }
    #expect(Array(actions.prefix(read.count)) == read)
  }
}

final class ErrorLog: Sendable {
  private let mutex = Mutex<[String]>([])
  func append(_ message: String) { mutex.withLock { $0.append(message) } }
  var messages: [String] { mutex.withLock { $0 } }
}
