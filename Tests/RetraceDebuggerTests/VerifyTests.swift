import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceTestSupport
import Testing

@Suite struct VerifyTests {
  @Test(arguments: Examples.domains.map(\.name))
  func theRecordingReducerReproducesEveryHash(domainName: String) {
    check(Examples.domain(named: domainName)!)
  }

  private func check<D: Domain>(_ domain: D) {
    let session = Fixtures.session(domain, count: 2_000, checkpointEvery: 100, snapshotEvery: 500)
    let report = ReplayEngine(domain: domain, session: session).verify()
    #expect(report.isVerified)
    #expect(report.actionsReplayed == 2_000)
    #expect(report.checkpointsChecked == 20)
    #expect(report.snapshotsChecked == 4)
  }

  @Test func aReducerChangedAfterRecordingIsCaughtAtTheFirstCheckpointAfterTheChange() throws {
    // Recorded with the real banking reducer...
    let session = Fixtures.session(
      bankingDomain, count: 3_000, checkpointEvery: 100, snapshotEvery: 1_000)
    // ...replayed with a registry in which "banking" has a different overdraft penalty.
    let registry = DomainRegistry(Examples.domains).replacing(Fixtures.changedBanking)
    let changed =
      try registry.domain(named: "banking") as! DomainDefinition<BankingState, BankingAction>
    #expect(
      registry.names == [
        "counter", "banking", "settings", "posts", "registration", "dishes", "movies", "stocks",
        "package", "notes",
      ])

    // The first overdraft: the first action after which a penalty is booked.
    let original = ReplayEngine(domain: bankingDomain, session: session)
    let firstOverdraft = try #require(
      session.actions.first { action in
        let state = try! original.state(at: action.sequence)
        return state.accounts.contains {
          $0.transactions.contains { $0.beneficiary == BankingReducer.overdraftBeneficiary }
        }
      }?.sequence)

    let report = ReplayEngine(domain: changed, session: session).verify()
    let divergence = try #require(report.divergence)
    let expectedCheckpoint = (firstOverdraft + 99) / 100 * 100
    #expect(divergence.sequence == expectedCheckpoint)
    #expect(divergence.window.contains(firstOverdraft))
    #expect(divergence.window == (expectedCheckpoint - 99)...expectedCheckpoint)
    #expect(divergence.recordedHash != divergence.replayedHash)
    #expect(report.actionsReplayed == Int(expectedCheckpoint))
    if expectedCheckpoint % 1_000 == 0 {
      #expect(divergence.kind == .snapshot)
      #expect(divergence.stateDiff != nil)
    } else {
      #expect(divergence.kind == .checkpoint)
    }
  }

  @Test func aSnapshotAtTheDivergenceGivesTheDiffBetweenRecordedAndReplayedState() throws {
    let session = Fixtures.session(
      bankingDomain, count: 3_000, checkpointEvery: 0, snapshotEvery: 250)
    let report = ReplayEngine(domain: Fixtures.changedBanking, session: session).verify()
    let divergence = try #require(report.divergence)
    #expect(divergence.kind == .snapshot)
    let diff = try #require(divergence.stateDiff)
    #expect(diff.contains("-1500"))
    #expect(diff.contains("-1600"))
  }

  @Test func aSessionWithoutHashesIsNotVerified() {
    // Nothing checked the two actions: replayed, not verified.
    let session = RecordedSession(domain: counterDomain, actions: [.increment, .decrement])
    let report = ReplayEngine(domain: counterDomain, session: session).verify()
    #expect(!report.isVerified)
    #expect(report.divergence == nil)
    #expect(report.checkpointsChecked == 0)
    #expect(report.actionsReplayed == 2)
    #expect(report.coveredThrough == 0)
    #expect(report.uncoveredActions == 2)
  }

  @Test func aHashAfterTheLastActionCoversTheSession() {
    let session = Fixtures.session(counterDomain, count: 250, checkpointEvery: 50, snapshotEvery: 0)
    let report = ReplayEngine(domain: counterDomain, session: session).verify()
    #expect(report.isVerified)
    #expect(report.coveredThrough == 250)
    #expect(report.hashesChecked == 5)
    let short = Fixtures.session(counterDomain, count: 260, checkpointEvery: 50, snapshotEvery: 0)
    let tail = ReplayEngine(domain: counterDomain, session: short).verify()
    #expect(!tail.isVerified)
    #expect(tail.coveredThrough == 250)
    #expect(tail.uncoveredActions == 10)
  }

  /// States are hashed on a thread of their own while the replay goes on to the next hashes:
  /// the first mismatch is still reported as of its own place, wherever it is, and a later
  /// one is not named.
  @Test func theFirstTamperedHashIsReportedAsOfItsOwnPlace() throws {
    let session = Fixtures.session(
      counterDomain, count: 1_000, checkpointEvery: 100, snapshotEvery: 0)
    #expect(session.checkpoints.count == 10)
    for index in session.checkpoints.indices {
      var tampered = session
      tampered.checkpoints[index].hash ^= 1
      if index + 2 < session.checkpoints.count { tampered.checkpoints[index + 2].hash ^= 1 }
      let report = ReplayEngine(domain: counterDomain, session: tampered).verify()
      let divergence = try #require(report.divergence)
      let sequence = session.checkpoints[index].sequence
      #expect(divergence.sequence == sequence)
      #expect(divergence.kind == .checkpoint)
      #expect(divergence.recordedHash == session.checkpoints[index].hash ^ 1)
      #expect(divergence.replayedHash == session.checkpoints[index].hash)
      #expect(divergence.window == (sequence - 99)...sequence)
      #expect(report.actionsReplayed == Int(sequence))
      #expect(report.coveredThrough == sequence - 100)
      #expect(report.checkpointsChecked == index + 1)
      #expect(report.uncoveredActions == 0)
      #expect(!report.isVerified)
    }
  }

  @Test func progressIsReportedUpToTheTotal() {
    let session = Fixtures.session(
      counterDomain, count: 200_000, checkpointEvery: 10_000, snapshotEvery: 0)
    var reports: [(Int, Int)] = []
    _ = ReplayEngine(domain: counterDomain, session: session).verify { reports.append(($0, $1)) }
    #expect(!reports.isEmpty)
    #expect(reports.last?.0 == 200_000)
    #expect(reports.allSatisfy { $0.1 == 200_000 })
  }
}
