import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// Inputs that trapped before, kept as regression tests: replaying them must give a clear
/// error or a refused action, never a trap. (The fuzzer's own finds go in Fuzz/crashes/
/// and are added here the same way; see docs/RELIABILITY.md.)
@Suite struct HostileInputTests {
  /// A header frame (with a correct checksum) for `header`.
  static func headerFrame(_ header: TraceHeader) throws -> [UInt8] {
    let cbor = try CBOREncoder().encode(header)
    var content: [UInt8] = []
    content.appendLittleEndian(UInt32(0x4352_5452))  // RTRC
    content.appendLittleEndian(UInt16(1))
    content.appendLittleEndian(UInt16(0))
    content.appendLittleEndian(UInt32(cbor.count))
    content.append(contentsOf: cbor)
    content.appendLittleEndian(CRC32C.checksum(content))
    var frame: [UInt8] = []
    frame.appendLittleEndian(UInt32(0x184D_2A50))
    frame.appendLittleEndian(UInt32(content.count))
    return frame + content
  }

  /// Expects the reader to refuse a header (with a correct checksum) as damaged, naming
  /// `field`.
  private func expectRefused(
    _ header: TraceHeader, naming field: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let frame = try Self.headerFrame(header)
    do {
      _ = try TraceReader(bytes: frame)
      Issue.record(
        "accepted a header with this \(field): \(header)", sourceLocation: sourceLocation)
    } catch {
      #expect(error.code == .corrupted, sourceLocation: sourceLocation)
      #expect(error.description.contains(field), "\(error)", sourceLocation: sourceLocation)
    }
  }

  /// A header whose first sequence number is near UInt64.max made the reader's sequence
  /// arithmetic overflow.
  @Test(arguments: [UInt64.max, UInt64.max - 1, UInt64(Int64.max) + 1])
  func aHeaderFirstSequenceNearTheTopIsRefused(first: UInt64) throws {
    try expectRefused(
      TraceHeader(
        domain: "counter", actionSchemaVersion: 1, sessionID: "hostile", startTime: 0,
        firstSequence: first,
        checkpointInterval: 0, snapshotInterval: 0),
      naming: "firstSequence")
  }

  /// A header whose start time is not a finite number: every action time is an offset from
  /// it, so `info` printed `start nan` and `export` wrote `null` times.
  @Test(arguments: [Double.nan, .infinity, -.infinity, 9e12, -1e13])
  func aHeaderStartTimeThatIsNotFiniteIsRefused(start: Double) throws {
    try expectRefused(
      TraceHeader(
        domain: "counter", actionSchemaVersion: 1, sessionID: "hostile", startTime: start,
        checkpointInterval: 0, snapshotInterval: 0),
      naming: "startTime")
  }

  /// Action schema versions start at 1; JSON Lines refuse 0, so a trace must too, or its
  /// export could not be imported.
  @Test func aHeaderActionSchemaVersionBelowOneIsRefused() throws {
    try expectRefused(
      TraceHeader(
        domain: "counter", actionSchemaVersion: 0, sessionID: "hostile", startTime: 0,
        checkpointInterval: 0, snapshotInterval: 0),
      naming: "actionSchemaVersion")
  }

  /// The recorder does not write a header the reader refuses: one larger than 1 MiB (it
  /// wrote a 2 MB session ID, and `import` said it had succeeded), a start time that is not
  /// finite or beyond 9e12 seconds, an action schema version below 1. It refuses it when it
  /// is created, so no file is left behind.
  @Test(arguments: [(2 << 20, 0.0, 1), (7, Double.infinity, 1), (7, 1e13, 1), (7, 0, 0)])
  func theRecorderRefusesAHeaderTheReaderWouldRefuse(
    sessionIDLength: Int, start: Double, schema: Int
  ) throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "hostile-\(UUID()).trace"
    ).path
    defer { try? FileManager.default.removeItem(atPath: path) }
    do {
      let recorder = try TraceRecorder<CounterState, CounterAction>(
        path: path, domain: "counter", actionSchemaVersion: schema,
        sessionID: String(repeating: "s", count: sessionIDLength), startTime: start)
      recorder.attached(sequence: 0, state: CounterState())
      try recorder.close()
      Issue.record(
        "wrote a header with a \(sessionIDLength)-byte session ID, start time \(start), schema \(schema)"
      )
    } catch {
      #expect(error.code == (sessionIDLength > 1000 ? .tooLarge : .outOfRange), "\(error)")
    }
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(!FileManager.default.fileExists(atPath: path + ".journal"))
  }

  /// A transaction of Int.max cents on an account with a balance made the banking reducer
  /// trap (`retrace state` and `retrace import` died with SIGILL): it is now refused.
  @Test func aTransactionThatWouldOverflowTheBalanceIsRefused() {
    var state = bankingDomain.initialState
    let iban = "NL83RABO5361038599"
    _ = bankingDomain.reduce(
      into: &state, action: .addAccount(name: "Daily", kind: .checking, iban: iban, date: 0))
    let before = state
    _ = bankingDomain.reduce(
      into: &state, action: .addTransaction(iban: iban, amount: .max, beneficiary: "x", date: 1))
    #expect(state == before)
    _ = bankingDomain.reduce(
      into: &state,
      action: .addTransaction(iban: iban, amount: .max - 200_000, beneficiary: "x", date: 1))
    #expect(state.accounts[0].balance == .max)
    let full = state
    _ = bankingDomain.reduce(
      into: &state, action: .addTransaction(iban: iban, amount: 1, beneficiary: "x", date: 1))
    #expect(state == full)
    for invariant in bankingDomain.invariants {
      #expect(invariant.holds(state), "\(invariant.name)")
    }
  }

  /// A snapshot whose amounts sum past Int.max made the balance invariant trap.
  @Test func anInvariantOnAHostileSnapshotFailsInsteadOfTrapping() throws {
    let value: CBORValue = [
      "accounts": [
        [
          "name": "x", "iban": "NL83RABO5361038599", "kind": "checking", "balance": 0,
          "transactions": [
            ["amount": .init(integerLiteral: Int64.max), "beneficiary": "a", "date": 0.0],
            ["amount": .init(integerLiteral: Int64.max), "beneficiary": "b", "date": 0.0],
          ],
        ]
      ],
      "navigation": try CBORValue(encoding: bankingDomain.initialState.navigation),
    ]
    let state = try CBORDecoder().decode(BankingState.self, from: value.encoded())
    let invariant = try #require(bankingDomain.invariant(named: "balance-matches-transactions"))
    #expect(!invariant.holds(state))
  }

  /// A counter snapshot at Int.max (or Int.min) followed by an increment (a decrement).
  @Test func aCounterAtTheEndsOfIntStaysPut() {
    var state = CounterState(count: .max)
    _ = counterDomain.reduce(into: &state, action: .increment)
    #expect(state.count == .max)
    state = CounterState(count: .min)
    _ = counterDomain.reduce(into: &state, action: .decrement)
    #expect(state.count == .min)
  }
}
