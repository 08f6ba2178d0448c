import FlyingSocks
import Foundation
import RetraceCLI
import RetraceDebugger
import RetraceLog
import Synchronization
import Testing

@testable import RetraceStudio

/// A session whose bisections block their thread until released: what a bisection of a
/// very long session looks like to the server.
final class BlockingSession: TestSession {
  let id = "blocking"
  let release = DispatchSemaphore(value: 0)
  let started = Mutex(0)

  func bisect(invariant: String) async throws -> any StudioAnswer {
    return try await offload(.wholeSession) { [self] in
      started.withLock { $0 += 1 }
      release.wait()
      return TestAnswer(.object([("invariant", .string(invariant)), ("firstViolation", .null)]))
    }
  }
  /// Blocks a thread of the pool for work at one point until ``pointRelease`` is signalled.
  func state(at: UInt64?, window: StateWindow?, full: Bool) async throws -> any StudioAnswer {
    try await offload(.point) { [self] in
      pointStarted.withLock { $0 += 1 }
      pointRelease.wait()
      return TestAnswer(.null)
    }
  }
  let pointRelease = DispatchSemaphore(value: 0)
  let pointStarted = Mutex(0)
}

/// A session whose summary is made once ``ready`` is signalled: a large file just uploaded.
final class SlowSummarySession: TestSession {
  let id = "slow"
  let ready = DispatchSemaphore(value: 0)
  private let made: LazyValue<TestAnswer>

  init() {
    let ready = self.ready
    made = LazyValue(on: .wholeSession) {
      ready.wait()
      ready.signal()
      return TestAnswer(.object([("id", .string("slow")), ("actions", .int(3))]))
    }
  }

  func summary() async throws -> any StudioAnswer { try await made.value }
}

/// A session whose state is what its worker thread says it is doing.
final class ContextSession: TestSession {
  let id = "context"
  func state(at: UInt64?, window: StateWindow?, full: Bool) async throws -> any StudioAnswer {
    try await offload { TestAnswer(.string(TrapReport.threadContext ?? "nothing")) }
  }
}

/// Its tests hold the worker pools' threads on purpose: one at a time.
@Suite(.serialized) struct StudioConcurrencyTests {
  /// More slow requests than the pool for whole-session work has threads, and more than the
  /// machine has cores: as many run as the pool allows, the others wait their turn, and a
  /// request for a state is answered meanwhile.
  @Test func aSlowRequestDoesNotBlockTheOthers() async throws {
    let blocking = BlockingSession()
    let studio = try await StudioHarness.start(["banking-overdraft.trace"], extra: [blocking])
    defer { Task { await studio.stop() } }
    let width = WorkKind.width
    let slowCount = max(width, ProcessInfo.processInfo.activeProcessorCount) + 2
    let slow = (0..<slowCount).map { _ in
      Task { try await studio.get("/api/sessions/blocking/bisect", ["invariant": "any"]) }
    }
    // Wait until the pool's threads all hold a slow request (other tests may hold some of
    // them for a moment).
    let deadline = Date().addingTimeInterval(30)
    while blocking.started.withLock({ $0 }) < width, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    try await Task.sleep(for: .milliseconds(300))
    // No more run at once than the pool's width; the rest wait in its queue.
    #expect(blocking.started.withLock { $0 } == width)
    #expect(WorkKind.wholeSession.pool.load.waiting >= slowCount - width)

    let fast = try await studio.get("/api/sessions/banking-overdraft/state", ["at": "1069"])
    #expect(fast.status == 200)
    // The slow ones are all still waiting: the fast answer did not come after them.
    #expect(blocking.started.withLock { $0 } == width)
    for _ in 0..<slowCount { blocking.release.signal() }
    for task in slow {
      #expect(try await task.value.status == 200)
    }
    #expect(blocking.started.withLock { $0 } == slowCount)
  }

  /// A filter reads up to 100,000 actions: it runs on the pool for long work, so that
  /// filters sent together never keep a step (a state, a page of actions) waiting. Here the
  /// pool for work at one point is full, and a filter is answered all the same.
  @Test func aFilterDoesNotWaitForThePoolOfStepsNorHoldsIt() async throws {
    let blocking = BlockingSession()
    let studio = try await StudioHarness.start(["banking-overdraft.trace"], extra: [blocking])
    defer { Task { await studio.stop() } }
    // The session opened, as the page opens it before it filters.
    let opened = try await studio.get("/api/sessions/banking-overdraft/actions", ["limit": "1"])
    #expect(opened.status == 200)
    let width = WorkKind.width
    let held = (0..<width).map { _ in
      Task { try await studio.get("/api/sessions/blocking/state", ["at": "1"]) }
    }
    defer { for _ in 0..<width { blocking.pointRelease.signal() } }
    let deadline = Date().addingTimeInterval(30)
    while blocking.pointStarted.withLock({ $0 }) < width, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    let filtered = try await value(by: .now + .seconds(20)) {
      try await studio.get("/api/sessions/banking-overdraft/actions", ["text": "deposit"])
    }
    #expect(filtered?.status == 200, "a filter waited for the pool of steps")
    for _ in 0..<width { blocking.pointRelease.signal() }
    for task in held { _ = try? await task.value }
  }

  /// `GET /api/sessions?wait=MS` lists a session whose summary takes longer as loading, with
  /// nothing that reads as a count, and the others in full; without `wait`, the list waits.
  @Test func theListWaitsForASlowSummaryOnlyAsLongAsAsked() async throws {
    let slow = SlowSummarySession()
    let studio = try await StudioHarness.start(["banking-overdraft.trace"], extra: [slow])
    defer { Task { await studio.stop() } }
    // The fast session's summary takes a few milliseconds, more on a loaded machine: the page
    // asks again until it is there, and so does the test, each answer within its wait.
    var list: [[String: Any]] = []
    let deadline = ContinuousClock.now + .seconds(30)
    repeat {
      let started = ContinuousClock.now
      let listed = try await studio.get("/api/sessions", ["wait": "200"])
      #expect(ContinuousClock.now - started < .seconds(10))
      list = try #require(try listed.json() as? [[String: Any]])
    } while list.first?["actions"] == nil && ContinuousClock.now < deadline
    #expect(list.count == 2)
    #expect(list.first?["actions"] as? Int == 2_000)
    #expect(list.last?["id"] as? String == "slow")
    #expect(list.last?["loading"] as? Bool == true)
    #expect(list.last?["actions"] == nil)
    let bad = try await studio.get("/api/sessions", ["wait": "soon"])
    #expect(bad.status == 400)
    slow.ready.signal()
    let full = try await studio.get("/api/sessions")
    let again = try #require(try full.json() as? [[String: Any]])
    #expect(again.last?["loading"] == nil)
    #expect(again.last?["id"] as? String == "slow")
  }

  /// A trap in a domain's reducer stops the Studio (Swift cannot recover from one); its line
  /// says which request it was answering, without the token. The work a request hands to a
  /// worker thread carries the request with it.
  @Test func theWorkOfARequestSaysWhichRequestItIs() async throws {
    let session = ContextSession()
    let studio = try await StudioHarness.start([], extra: [session])
    defer { Task { await studio.stop() } }
    let answer = try await studio.get(
      "/api/sessions/context/state", ["at": "2", "x": "a b"], token: .query)
    #expect(
      try answer.json() as? String == "answering GET /api/sessions/context/state?at=2&x=a b")
  }

  /// Work queued for a request whose client hangs up is never run: the long-work pool is
  /// full, four more bisections wait, and their clients leave.
  @Test func workQueuedForAClientThatHungUpIsNotRun() async throws {
    let blocking = BlockingSession()
    let studio = try await StudioHarness.start([], extra: [blocking])
    defer { Task { await studio.stop() } }
    let width = WorkKind.width
    let held = (0..<width).map { _ in
      Task { try await studio.get("/api/sessions/blocking/bisect", ["invariant": "any"]) }
    }
    var deadline = Date().addingTimeInterval(30)
    while blocking.started.withLock({ $0 }) < width, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    var leaving: [AsyncSocket] = []
    for _ in 0..<4 {
      let socket = try await AsyncSocket.connected(
        to: try sockaddr_in.inet(ip4: "127.0.0.1", port: studio.port))
      let request =
        "GET /api/sessions/blocking/bisect?invariant=gone HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\n"
        + "Authorization: Bearer \(StudioHarness.token)\r\n\r\n"
      try await socket.write(Data(request.utf8))
      leaving.append(socket)
    }
    deadline = Date().addingTimeInterval(30)
    while WorkKind.wholeSession.pool.load.waiting < 4, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    for socket in leaving { try socket.close() }
    // The watch looks after a second, then four times a second.
    try await Task.sleep(for: .seconds(3))
    for _ in 0..<width { blocking.release.signal() }
    for task in held { #expect(try await task.value.status == 200) }
    deadline = Date().addingTimeInterval(10)
    while WorkKind.wholeSession.pool.load.waiting > 0, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    try await Task.sleep(for: .milliseconds(200))
    #expect(blocking.started.withLock { $0 } == width, "the work of clients that left ran")
    // Had it run, it would wait for these.
    for _ in 0..<4 { blocking.release.signal() }
  }

  /// A pool runs every job it is given, and never more at once than its width.
  @Test func aPoolRunsEveryJobAndNoMoreAtOnceThanItsWidth() async throws {
    let pool = WorkerPool(name: "test", width: 2)
    let jobs = RunningJobs()
    let results = try await withThrowingTaskGroup(of: Int.self) { group in
      for number in 0..<12 {
        group.addTask {
          try await pool.run {
            jobs.counts.withLock {
              $0.running += 1
              $0.most = max($0.most, $0.running)
            }
            Thread.sleep(forTimeInterval: 0.01)
            jobs.counts.withLock { $0.running -= 1 }
            return number
          }
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results.sorted() == Array(0..<12))
    #expect(jobs.counts.withLock { $0.most } == 2)
    // A job's caller is resumed from inside the job, a moment before its thread counts it
    // done.
    let deadline = Date().addingTimeInterval(10)
    while pool.load.running > 0, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
    #expect(pool.load.running == 0 && pool.load.waiting == 0)
  }
}

/// How many of a test's jobs run now, and the most that ran at once.
final class RunningJobs: Sendable {
  let counts = Mutex((running: 0, most: 0))
}

@Suite struct NoDelaySocketPoolTests {
  /// A socket the server waits on has Nagle's algorithm turned off: otherwise a response's
  /// body waits for the acknowledgement of its headers, about 40 ms on a connection kept
  /// alive.
  @Test func aSocketWaitedOnSendsWithoutDelay() async throws {
    let socket = try Socket(domain: AF_INET, type: .stream)
    defer { try? socket.close() }
    #expect(try socket.getValue(for: NoDelaySocketPool.noDelay) == false)
    let pool = NoDelaySocketPool(base: ImmediatePool())
    try await pool.suspendSocket(socket, untilReadyFor: .read)
    #expect(try socket.getValue(for: NoDelaySocketPool.noDelay) == true)
  }
}

/// A pool whose sockets are always ready.
struct ImmediatePool: AsyncSocketPool {
  func prepare() async throws {}
  func run() async throws {}
  func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {}
}
