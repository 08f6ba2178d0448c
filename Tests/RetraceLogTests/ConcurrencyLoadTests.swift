import Dispatch
import Foundation
import Observation
import Retrace
import RetraceExamples
import Synchronization
import Testing

@testable import RetraceLog

/// Many senders, several stores and several recorders at once, for a bounded time: nothing
/// lost, duplicated or reordered (a trace's actions are exactly the order its reducer saw),
/// no deadlock (a time limit), memory bounded, and drops counted, never silent.
///
/// The tests are nonisolated: they hop to the main actor for each `send`, as an app's
/// tasks and threads would, instead of holding it for seconds.
@Suite struct ConcurrencyLoadTests {
  /// One action per (sender, n): unique, so losses and duplicates show.
  enum LoadAction: Codable, Equatable, Hashable, Sendable {
    case tick(sender: Int, n: Int)
  }

  struct LoadState: Codable, Equatable, Sendable {
    var count = 0
    /// The last `n` seen from each sender: each sender's actions must arrive in its order.
    var last: [Int: Int] = [:]
    var outOfOrder = 0
  }

  static let reducer = Reduce<LoadState, LoadAction> { state, action in
    guard case .tick(let sender, let n) = action else { return .none }
    state.count += 1
    if n != (state.last[sender] ?? -1) + 1 { state.outOfOrder += 1 }
    state.last[sender] = n
    return .none
  }

  /// A recorder that keeps the order in which the store reduced actions.
  final class ReducedOrder: StoreRecorder, Sendable {
    typealias State = LoadState
    typealias Action = LoadAction
    let actions = Mutex<[LoadAction]>([])
    func record(_ transition: Transition<LoadState, LoadAction>) {
      actions.withLock { $0.append(transition.action) }
    }
  }

  @MainActor
  static func makeRun(
    _ path: String, subscriptions: inout [StoreSubscription], changes: SharedCounter
  ) throws -> (Store<LoadState, LoadAction>, TraceRecorder<LoadState, LoadAction>, ReducedOrder) {
    var configuration = smallChunks(checkpoints: 100, snapshots: 1_000)
    configuration.chunkSize = 16 << 10
    let store = Store(initialState: LoadState(), reducer: reducer)
    let recorder = try TraceRecorder<LoadState, LoadAction>(
      path: path, domain: "load", sessionID: "load", configuration: configuration)
    let order = ReducedOrder()
    store.attach(recorder)
    store.attach(order)
    // Observers: a subscriber, and Observation re-registered after every change.
    subscriptions.append(store.subscribe { _, _ in changes.increment() })
    observe(store, changes)
    return (store, recorder, order)
  }

  @MainActor
  static func observe(_ store: Store<LoadState, LoadAction>, _ changes: SharedCounter) {
    withObservationTracking {
      _ = store.state.count
    } onChange: {
      changes.incrementObserved()
      Task { @MainActor in observe(store, changes) }
    }
  }

  /// Sends `perSender` actions from each of `tasks` tasks and `threads` threads to `store`,
  /// each sender numbering its own actions.
  static func load(
    _ store: Store<LoadState, LoadAction>, firstSender: Int, tasks: Int, threads: Int,
    perSender: Int
  ) async {
    await withTaskGroup(of: Void.self) { group in
      for sender in firstSender..<(firstSender + tasks) {
        group.addTask {
          for n in 0..<perSender {
            await store.send(.tick(sender: sender, n: n))
          }
        }
      }
      // Plain threads (not the cooperative pool) posting to the main queue, as callbacks
      // from C libraries or Foundation would.
      group.addTask {
        let done = DispatchGroup()
        for sender in (firstSender + tasks)..<(firstSender + tasks + threads) {
          done.enter()
          let thread = Thread {
            for n in 0..<perSender {
              DispatchQueue.main.async {
                MainActor.assumeIsolated { store.send(.tick(sender: sender, n: n)) }
              }
              if n % 64 == 0 { usleep(100) }
            }
            // After this sender's last action: the main queue is FIFO.
            DispatchQueue.main.async { done.leave() }
          }
          thread.start()
        }
        await withCheckedContinuation { continuation in
          done.notify(queue: .global()) { continuation.resume() }
        }
      }
    }
  }

  /// Reads a trace back and checks it against the order the reducer saw.
  static func check(
    _ path: String, order: ReducedOrder, recorder: TraceRecorder<LoadState, LoadAction>,
    expected: Int
  ) throws {
    let reduced = order.actions.withLock { $0 }
    #expect(reduced.count == expected, "the store reduced \(reduced.count) of \(expected) actions")
    #expect(Set(reduced).count == reduced.count, "the store reduced an action twice")
    let reader = try TraceReader(path: path)
    #expect(reader.integrity.status == .clean, "\(reader.integrity)")
    var recorded: [LoadAction] = []
    var sequences: [UInt64] = []
    try reader.forEachRecord { record throws(TraceError) in
      if record.kind == .action {
        recorded.append(try record.decode(LoadAction.self))
        sequences.append(record.sequence)
      }
      return true
    }
    #expect(recorder.droppedActionCount == 0, "dropped \(recorder.droppedActionCount)")
    #expect(recorded.count == reduced.count, "recorded \(recorded.count), reduced \(reduced.count)")
    #expect(recorded == reduced, "the trace's order is not the order the reducer saw")
    #expect(sequences == (0..<sequences.count).map { UInt64($0 + 1) }, "sequence numbers with gaps")
  }

  @Test(.timeLimit(.minutes(5)))
  func manySendersToOneRecordingStoreLoseNothing() async throws {
    let directory = temporaryDirectory()
    let path = directory + "/load.trace"
    let changes = SharedCounter()
    let rssBefore = residentBytes()
    let (store, recorder, order) = try await MainActor.run {
      var subscriptions: [StoreSubscription] = []
      let made = try Self.makeRun(path, subscriptions: &subscriptions, changes: changes)
      SubscriptionBox.keep(subscriptions)
      return made
    }
    let tasks = 12
    let threads = 4
    let perSender = 500
    await Self.load(store, firstSender: 0, tasks: tasks, threads: threads, perSender: perSender)
    let total = (tasks + threads) * perSender
    let final = await store.state
    #expect(final.count == total)
    #expect(final.outOfOrder == 0, "a sender's actions arrived out of its order")
    #expect(changes.value == total, "the subscriber saw \(changes.value) changes of \(total)")
    #expect(changes.observed > 0, "Observation never fired")
    try recorder.close()
    try Self.check(path, order: order, recorder: recorder, expected: total)
    // Bounded memory: the recorder's queue is bounded and drained; 8,000 small actions
    // cost a few megabytes, far from this generous bound.
    let growth = residentBytes() - rssBefore
    #expect(growth < 256 << 20, "resident memory grew by \(growth >> 20) MiB")
  }

  @Test(.timeLimit(.minutes(5)))
  func severalStoresRecordToSeveralTracesAtOnce() async throws {
    let directory = temporaryDirectory()
    let storeCount = 4
    let changes = SharedCounter()
    let runs = try await MainActor.run {
      var subscriptions: [StoreSubscription] = []
      let runs = try (0..<storeCount).map { i in
        try Self.makeRun(
          directory + "/store-\(i).trace", subscriptions: &subscriptions, changes: changes)
      }
      SubscriptionBox.keep(subscriptions)
      return runs
    }
    let tasks = 4
    let threads = 2
    let perSender = 250
    await withTaskGroup(of: Void.self) { group in
      for (i, run) in runs.enumerated() {
        group.addTask {
          await Self.load(
            run.0, firstSender: i * 100, tasks: tasks, threads: threads, perSender: perSender)
        }
      }
    }
    let total = (tasks + threads) * perSender
    for (i, run) in runs.enumerated() {
      #expect(await run.0.state.outOfOrder == 0)
      try run.1.close()
      try Self.check(
        directory + "/store-\(i).trace", order: run.2, recorder: run.1, expected: total)
    }
    #expect(changes.value == total * storeCount)
  }

  /// Recorders driven straight from several threads at once (no store): the writers, the
  /// compressors and the journals all run in parallel.
  @Test(.timeLimit(.minutes(5)))
  func recordersOnSeveralThreadsAtOnce() throws {
    let directory = temporaryDirectory()
    let failures = Mutex<[String]>([])
    let done = DispatchGroup()
    for i in 0..<4 {
      done.enter()
      Thread {
        defer { done.leave() }
        do {
          let path = directory + "/thread-\(i).trace"
          var configuration = smallChunks()
          configuration.chunkSize = 4_096
          let result = try recordWithoutStore(
            bankingDomain, count: 3_000, seed: UInt64(i), to: path, configuration: configuration)
          let read = try readActions(bankingDomain, TraceReader(path: path))
          if read != result.actions {
            failures.withLock { $0.append("thread \(i): the trace differs") }
          }
        } catch {
          failures.withLock { $0.append("thread \(i): \(error)") }
        }
      }.start()
    }
    done.wait()
    #expect(failures.withLock { $0 } == [])
  }

  /// One reader shared by several threads: `TraceReader` is `Sendable`, and reading it
  /// from many threads at once gives each the same records.
  @Test(.timeLimit(.minutes(5)))
  func oneReaderReadFromSeveralThreads() throws {
    let path = temporaryDirectory() + "/shared.trace"
    let recorded = try recordWithoutStore(
      bankingDomain, count: 2_000, to: path, configuration: smallChunks())
    let reader = try TraceReader(path: path)
    let results = Mutex<[[BankingAction]]>([])
    DispatchQueue.concurrentPerform(iterations: 6) { _ in
      let actions = (try? readActions(bankingDomain, reader)) ?? []
      results.withLock { $0.append(actions) }
    }
    for actions in results.withLock({ $0 }) { #expect(actions == recorded.actions) }
  }
}

/// A counter the main-actor observers bump and the test reads.
final class SharedCounter: Sendable {
  private let counts = Mutex((changes: 0, observed: 0))
  func increment() { counts.withLock { $0.changes += 1 } }
  func incrementObserved() { counts.withLock { $0.observed += 1 } }
  var value: Int { counts.withLock { $0.changes } }
  var observed: Int { counts.withLock { $0.observed } }
}

/// Keeps subscriptions alive for the rest of the test process (they are main-actor values).
@MainActor enum SubscriptionBox {
  static var kept: [StoreSubscription] = []
  static func keep(_ subscriptions: [StoreSubscription]) { kept += subscriptions }
}

/// The process's resident memory, from /proc (0 where there is none).
func residentBytes() -> Int {
  guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
    return 0
  }
  let fields = statm.split(separator: " ")
  guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
  return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
