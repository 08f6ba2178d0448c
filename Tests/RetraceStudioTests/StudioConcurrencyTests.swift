import Foundation
import RetraceLog
import Synchronization
import Testing

@testable import RetraceStudio

/// A session whose bisections block their thread until released: what a bisection of a
/// very long session looks like to the server.
final class BlockingSession: StudioSession {
  let id = "blocking"
  let release = DispatchSemaphore(value: 0)
  let started = Mutex(0)

  func summary() async throws -> JSONValue { .object([("id", .string(id))]) }
  func detail() async throws -> JSONValue { try await summary() }
  func bisect(invariant: String) async throws -> JSONValue {
    return try await offload { [self] in
      started.withLock { $0 += 1 }
      release.wait()
      return .object([("invariant", .string(invariant)), ("firstViolation", .null)])
    }
  }
  func actions(from: UInt64?, to: UInt64?, type: String?, limit: Int) async throws -> JSONValue {
    .null
  }
  func state(at: UInt64?, window: StateWindow?, full: Bool) async throws -> JSONValue { .null }
  func diff(from: UInt64?, to: UInt64?) async throws -> JSONValue { .null }
  func bench(repetitions: Int) async throws -> JSONValue { .null }
  func flows() async throws -> JSONValue { .null }
  func lanes(buckets: Int) async throws -> JSONValue { .null }
  func export(from: UInt64?, to: UInt64?) async throws -> String { "" }
  func shrink(invariant: String) async throws -> JSONValue { .null }
}

@Suite struct StudioConcurrencyTests {
  /// More slow requests than the machine has cores are in flight, each holding a thread;
  /// a request for a state is answered meanwhile.
  @Test func aSlowRequestDoesNotBlockTheOthers() async throws {
    let blocking = BlockingSession()
    let studio = try await StudioHarness.start(["banking-overdraft.trace"], extra: [blocking])
    defer { Task { await studio.stop() } }
    let slowCount = ProcessInfo.processInfo.activeProcessorCount + 2
    let slow = (0..<slowCount).map { _ in
      Task { try await studio.get("/api/sessions/blocking/bisect", ["invariant": "any"]) }
    }
    // Wait until every slow request holds its thread.
    let deadline = Date().addingTimeInterval(30)
    while blocking.started.withLock({ $0 }) < slowCount, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(blocking.started.withLock { $0 } == slowCount)

    let fast = try await studio.get("/api/sessions/banking-overdraft/state", ["at": "1069"])
    #expect(fast.status == 200)
    // The slow ones are all still waiting: the fast answer did not come after them.
    #expect(blocking.started.withLock { $0 } == slowCount)
    for _ in 0..<slowCount { blocking.release.signal() }
    for task in slow {
      #expect(try await task.value.status == 200)
    }
  }
}
