import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// Periodic snapshots stay within their share of the file
/// (`TraceRecorderConfiguration.maxSnapshotShare`).
@Suite struct SnapshotBudgetTests {
  /// The bytes of each chunk of `reader`'s file, from the chunk offsets.
  static func chunkBytes(_ reader: TraceReader) -> [Int] {
    reader.chunks.indices.map { index in
      let end = index + 1 < reader.chunks.count ? reader.chunks[index + 1].offset : nil
      return (end ?? reader.chunks[index].frameOffset + reader.chunks[index].frameSize)
        - reader.chunks[index].offset
    }
  }

  @Test(arguments: [1, 2] as [UInt16])
  func aSnapshotWaitsUntilTheBytesSinceTheLastAreNineTimesIt(format: UInt16) throws {
    var configuration = TraceRecorderConfiguration()
    configuration.formatVersion = format
    configuration.chunkSize = 16_384
    configuration.snapshotInterval = 400
    configuration.reproducibleCheckpoints = true
    let path = temporaryDirectory() + "/budget.trace"
    // Settings: a state that stays small, so that snapshots can fit their share.
    _ = try recordWithoutStore(
      settingsDomain, count: 20_000, to: path, configuration: configuration)
    let reader = try TraceReader(path: path)
    #expect(reader.integrity.isClean)
    let sizes = Self.chunkBytes(reader)
    let snapshots = reader.chunks.indices.filter { reader.chunks[$0].startsWithSnapshot }
    // More than the starting state, and fewer than every 400 actions would give.
    #expect(snapshots.count > 2)
    #expect(snapshots.count < 20_000 / 400)
    for (previous, next) in zip(snapshots, snapshots.dropFirst()) {
      // Each stands alone in its chunk, after about nine times its own bytes (the writer
      // estimates them from the last snapshot and the state's growth since).
      #expect(reader.chunks[next].actionCount == 0)
      let between = sizes[(previous + 1)..<next].reduce(0, +)
      #expect(between >= 8 * sizes[next], "chunks \(previous) to \(next)")
    }
    let snapshotBytes = snapshots.dropFirst().map { sizes[$0] }.reduce(0, +)
    #expect(Double(snapshotBytes) <= 0.11 * Double(reader.fileSize))
  }

  /// A state that grows with its actions (banking keeps every transaction) never fits a
  /// tenth of the file: the trace holds the starting state and the actions alone.
  @Test func aStateAsLargeAsItsActionsGetsNoPeriodicSnapshot() throws {
    var configuration = TraceRecorderConfiguration()
    configuration.chunkSize = 16_384
    configuration.snapshotInterval = 400
    configuration.reproducibleCheckpoints = true
    let path = temporaryDirectory() + "/growing.trace"
    _ = try recordWithoutStore(bankingDomain, count: 5_000, to: path, configuration: configuration)
    let reader = try TraceReader(path: path)
    #expect(reader.snapshotSequences == [0])
    #expect(reader.checkpointCount >= 5)
  }

  @Test func withoutALimitSnapshotsFollowTheInterval() throws {
    var configuration = TraceRecorderConfiguration()
    configuration.chunkSize = 16_384
    configuration.snapshotInterval = 400
    configuration.reproducibleCheckpoints = true
    configuration.maxSnapshotShare = 1
    let path = temporaryDirectory() + "/dense.trace"
    _ = try recordWithoutStore(bankingDomain, count: 4_000, to: path, configuration: configuration)
    let reader = try TraceReader(path: path)
    // The state's size spaces them out beyond the interval once it is large.
    #expect(reader.snapshotSequences.count >= 4_000 / 400 / 2)
  }

  @Test func aShareOutsideZeroToOneIsRefused() {
    for share in [0, -0.5, 1.5, .nan] {
      var configuration = TraceRecorderConfiguration()
      configuration.maxSnapshotShare = share
      #expect(throws: TraceError.self) {
        try TraceRecorder<CounterState, CounterAction>(
          path: temporaryDirectory() + "/refused.trace", domain: counterDomain,
          configuration: configuration)
      }
    }
  }

  /// While the budget holds a snapshot back, the writer looks at it again only as far on as
  /// a checkpoint of the state would be, not at every interval: each look takes the app's
  /// state, and the app's next change then copies what it shares (copy-on-write). A growing
  /// banking session copied an account's transactions every 16 actions.
  @Test func aSnapshotTheBudgetHoldsBackDoesNotMakeTheAppCopyItsState() throws {
    var configuration = TraceRecorderConfiguration()
    configuration.reproducibleCheckpoints = true
    let recorder = try TraceRecorder(
      path: temporaryDirectory() + "/looks.trace", domain: bankingDomain, sessionID: "looks",
      startTime: 1_763_771_000, configuration: configuration)
    var state = bankingDomain.initialState
    recorder.attached(sequence: 0, state: state)
    var random = SeededRandom(seed: 3)
    let count = 20_000
    var copies = 0
    var appends = 0
    for step in 0..<count {
      let action = bankingDomain.workload!.next(state, step, &random)
      let before = Self.transactionsStorage(for: action, in: state)
      _ = bankingDomain.reduce(into: &state, action: action)
      // An append with room to spare that moved the transactions copied them.
      if let before, before.count < before.capacity,
        let after = Self.transactionsStorage(for: action, in: state), after.count > before.count
      {
        appends += 1
        if after.address != before.address { copies += 1 }
      }
      recorder.record(
        Transition(
          sequence: UInt64(step + 1), time: 1_763_771_000 + Double(step), action: action,
          stateBefore: nil, stateAfter: state))
    }
    try recorder.close()
    #expect(appends > count / 2)
    // Looking at every interval copied on about one append in 16 here (over 1,000 copies).
    #expect(copies < count / 160, "\(copies) copies in \(appends) appends")
  }

  /// A jump starts the schedule again: after a jump from a large state, whose snapshot the
  /// budget held back and would look at again only far on, to a small one, the small state
  /// gets its checkpoints and snapshots as any small state does, in a reproducible file too.
  @Test func aJumpToASmallStateStartsTheSnapshotScheduleAgain() throws {
    var configuration = TraceRecorderConfiguration()
    configuration.reproducibleCheckpoints = true
    configuration.chunkSize = 16_384
    configuration.snapshotInterval = 400
    let path = temporaryDirectory() + "/jump-schedule.trace"
    let recorder = try TraceRecorder(
      path: path, domain: bankingDomain, sessionID: "jump", startTime: 1_763_771_000,
      configuration: configuration)
    var state = bankingDomain.initialState
    recorder.attached(sequence: 0, state: state)
    var sequence: UInt64 = 0
    func send(_ action: BankingAction) {
      _ = bankingDomain.reduce(into: &state, action: action)
      sequence += 1
      recorder.record(
        Transition(
          sequence: sequence, time: 1_763_771_000 + Double(sequence), action: action,
          stateBefore: nil, stateAfter: state))
    }
    var random = SeededRandom(seed: 11)
    for step in 0..<30_000 { send(bankingDomain.workload!.next(state, step, &random)) }
    let jump = sequence
    recorder.jumped(
      sequence: jump, time: 1_763_771_000 + Double(jump), from: state,
      to: bankingDomain.initialState)
    state = bankingDomain.initialState
    // Actions that leave the small state as it is (it has no account to move), and that do
    // not compress to nothing.
    for _ in 0..<6_000 {
      send(
        .moveAccount(
          from: Int.random(in: 0..<1_000_000, using: &random),
          to: Int.random(in: 0..<1_000_000, using: &random)))
    }
    try recorder.close()
    let reader = try TraceReader(path: path)
    let periodic = reader.chunks.filter { $0.startsWithSnapshot && !$0.isJump }
      .map { $0.firstSequence - 1 }
    #expect(periodic.first == 0)
    #expect(periodic.contains { $0 > jump }, "periodic snapshots: \(periodic), jump at \(jump)")
    // The sending side waited for the writer to take the jump, so that the small state's
    // checkpoints come at once, however far behind the writer was (it was 30,000 actions).
    let checkpoints = try TraceSession(reader, domain: bankingDomain).session().checkpoints
    #expect(checkpoints.contains { $0.sequence == jump + 16 })
  }

  /// With reproducible checkpoints the sending side counts the states (and jumps) the writer
  /// has not dealt with, and waits on that count: a checkpoint asked for in between, which
  /// the sending side does not count, leaves it as it was.
  @Test func aCheckpointLeavesTheCountOfPendingStatesAlone() throws {
    var configuration = TraceRecorderConfiguration()
    configuration.reproducibleCheckpoints = true
    let (_, state, recorder) = try recordWithoutStore(
      bankingDomain, count: 500, to: temporaryDirectory() + "/pending.trace",
      configuration: configuration, close: false)
    recorder.checkpoint(state: state, after: 500)
    recorder.jumped(sequence: 500, time: 1_763_771_200, from: state, to: state)
    try recorder.flush()
    #expect(recorder.core.pendingStates.load(ordering: .sequentiallyConsistent) == 0)
    try recorder.close()
  }

  /// Where the transactions of the account that `action` books to are stored, and how many
  /// there are and room for.
  private static func transactionsStorage(for action: BankingAction, in state: BankingState)
    -> (address: UnsafeRawPointer?, count: Int, capacity: Int)?
  {
    guard case .addTransaction(let iban, _, _, _) = action, let account = state.accounts[id: iban]
    else { return nil }
    let transactions = account.transactions.transactions
    return (
      transactions.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) },
      transactions.count, transactions.capacity
    )
  }
}
