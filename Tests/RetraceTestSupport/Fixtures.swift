import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceLog
import Synchronization

/// Sessions, domains and files the test targets share (a target of its own, so that the
/// debugger's and the CLI's tests use one copy).
public enum Fixtures {
  /// A session of `count` workload actions of `domain`, with checkpoints and snapshots as a
  /// recorder would write them.
  public static func session<D: Domain>(
    _ domain: D, count: Int, seed: UInt64 = 1, checkpointEvery: Int = 100,
    snapshotEvery: Int = 1_000
  ) -> RecordedSession<D> {
    let (actions, _) = domain.generate(count: count, seed: seed)
    let plain = RecordedSession(
      domain: domain, actions: actions, sessionID: "\(domain.name)-\(seed)")
    return ReplayEngine(domain: domain, session: plain)
      .recordingCheckpoints(every: checkpointEvery, snapshotEvery: snapshotEvery)
  }

  /// Counter actions that never take the count below zero: up and down in a zigzag
  /// (1, 0, 1, 2, 1, 2, 3, …), so no single decrement can be dropped without another.
  public static func safeCounterActions(count: Int) -> [CounterAction] {
    var actions: [CounterAction] = []
    var value = 0
    var step = 0
    while actions.count < count {
      let action: CounterAction = (step % 3 == 1 && value > 0) ? .decrement : .increment
      value += action == .increment ? 1 : -1
      actions.append(action)
      step += 1
    }
    return actions
  }

  /// The banking domain with a subtly changed reducer: the overdraft penalty is 16.00, not
  /// 15.00. Sessions recorded with the real reducer diverge at their first overdraft.
  public static let changedBanking = DomainDefinition(
    name: "banking",
    summary: "Banking with a changed overdraft penalty.",
    actionSchemaVersion: bankingDomain.actionSchemaVersion,
    initialState: BankingState(),
    reducer: Reduce<BankingState, BankingAction> { state, action in
      let effect = BankingReducer().reduce(into: &state, action: action)
      if case .addTransaction(let iban, _, _, _) = action,
        let index = state.accounts.index(id: iban),
        let last = state.accounts[index].transactions.last,
        last.beneficiary == BankingReducer.overdraftBeneficiary,
        last.amount == BankingReducer.overdraftPenalty
      {
        let count = state.accounts[index].transactions.count
        state.accounts[index].transactions[count - 1].amount -= 100
        state.accounts[index].balance -= 100
      }
      return effect
    },
    actionCases: bankingDomain.actionCases,
    invariants: bankingDomain.invariants,
    workload: bankingDomain.workload,
    upcaster: BankingSchema.upcast
  )

  /// A fresh, empty temporary directory, removed when the test process exits.
  public static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("retrace-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    TemporaryDirectories.remove(atExit: url.path)
    return url
  }

  /// The trace formats a recorder writes: the tests of damage run on each.
  public static let traceFormats: [UInt16] = Array(1...TraceFormat.version)

  /// A recorder configuration for traces of many small chunks (4 KiB of records), with a
  /// checkpoint every 100 actions and a snapshot every 1,000: damage to one chunk loses few
  /// actions, and a range is read from few chunks.
  public static var smallChunks: TraceRecorderConfiguration {
    var configuration = TraceRecorderConfiguration()
    configuration.chunkSize = 4_096
    configuration.checkpointInterval = 100
    configuration.snapshotInterval = 1_000
    configuration.maxSnapshotShare = 1
    configuration.maxStateBytesPerAction = 1 << 20
    return configuration
  }

  /// Writes `session` into `directory` and returns the path: as a trace through the real
  /// recorder when `name` ends in `.trace`, otherwise as JSON Lines.
  public static func write<D: Domain>(
    _ session: RecordedSession<D>, domain: D, named name: String, in directory: URL,
    configuration: TraceRecorderConfiguration = TraceRecorderConfiguration()
  ) throws -> String {
    if name.hasSuffix(".trace") {
      let path = directory.appendingPathComponent(name).path
      // Checkpoints and snapshots where the configuration says, whatever the timing.
      var configuration = configuration
      configuration.reproducibleCheckpoints = true
      let recorder = try TraceRecorder<D.State, D.Action>(
        path: path, domain: domain, sessionID: session.info.sessionID,
        startTime: session.info.startTime,
        configuration: configuration)
      recorder.attached(sequence: session.startSequence, state: session.initialState)
      var state = session.initialState
      for action in session.actions {
        _ = domain.reduce(into: &state, action: action.action)
        recorder.record(
          Transition(
            sequence: action.sequence, time: action.time, action: action.action, stateBefore: nil,
            stateAfter: state))
      }
      recorder.checkpoint(state: state, after: session.endSequence)
      try recorder.close()
      return path
    }
    var text = try JSONLines.headerLine(for: session, domain: domain) + "\n"
    let writer = JSONLines.ActionWriter<D.Action>()
    for action in session.actions { text += try writer.line(for: action) + "\n" }
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  /// Copies the journal at `path` to `destination` with 8 bytes of its middle record
  /// flipped (that record's own salt's, up to its end mark), and returns the record's
  /// offset: damage in the middle of a crashed session's journal, with intact records after
  /// it.
  public static func copyFlippingTheMiddleRecord(ofJournal path: String, to destination: String)
    throws -> Int
  {
    var journal = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var records: [Int] = []
    var offset = 32  // the journal header's size
    while offset + 8 <= journal.count {
      let length = journal[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
      if length == 0 { break }
      records.append(offset)
      offset += 8 + length
    }
    precondition(records.count >= 3, "a journal of \(records.count) records has no middle")
    let middle = records[records.count / 2]
    for i in (middle + 10)..<(middle + 18) { journal[i] ^= 0xFF }
    try Data(journal).write(to: URL(fileURLWithPath: destination))
    return middle
  }

  /// Records 60 banking actions, with a time-travel jump after action 40 back to the state
  /// after 10, to `moved.trace` in `directory` (made if missing); returns its path.
  @MainActor public static func recordMovedSession(in directory: String) throws -> String {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/moved.trace"
    let domain = bankingDomain
    let store = Store(
      initialState: domain.initialState, reducer: Reduce { domain.reduce(into: &$0, action: $1) },
      clock: .fixed(start: 1_763_771_000, interval: 0.25))
    let recorder = try TraceRecorder(
      path: path, domain: domain, sessionID: "moved", startTime: 1_763_771_000)
    store.attach(recorder)
    for (index, action) in movedSessionActions.enumerated() {
      store.send(action)
      if index + 1 == 40 { store.jump(to: movedSessionStates[10]) }
    }
    try recorder.close()
    return path
  }

  /// The actions of ``recordMovedSession(in:)``.
  public static var movedSessionActions: [BankingAction] {
    bankingDomain.generate(count: 60, seed: 5).actions
  }

  /// The states after each of the first actions of ``recordMovedSession(in:)``, without the
  /// jump: `[0]` is the initial state.
  public static var movedSessionStates: [BankingState] {
    var state = bankingDomain.initialState
    var states = [state]
    for action in movedSessionActions.prefix(40) {
      _ = bankingDomain.reduce(into: &state, action: action)
      states.append(state)
    }
    return states
  }

  /// A JSON Lines file of `actions` of `domain` in a new directory; returns its path (remove
  /// its directory when done).
  public static func jsonLinesFile<D: Domain>(
    _ actions: [D.Action], of domain: D, named name: String
  )
    throws -> String
  {
    let session = RecordedSession(domain: domain, actions: actions)
    var text = try JSONLines.headerLine(for: session, domain: domain) + "\n"
    let writer = JSONLines.ActionWriter<D.Action>()
    for action in session.actions { text += try writer.line(for: action) + "\n" }
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("retrace-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent("\(name).jsonl").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }
}

/// The temporary directories the tests made, removed when the test process exits normally.
public enum TemporaryDirectories {
  private static let paths = Mutex<[String]>([])
  private static let registered = Mutex(false)

  /// Removes `path`, and everything in it, when the process exits.
  public static func remove(atExit path: String) {
    paths.withLock { $0.append(path) }
    let first = registered.withLock { registered in
      defer { registered = true }
      return !registered
    }
    if first { atexit { TemporaryDirectories.removeAll() } }
  }

  private static func removeAll() {
    for path in paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
  }
}
