import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import RetraceLog
import RetraceTestSupport
import Testing

/// A redacted trace replays and verifies without the key when the reducer uses its
/// redacted values only by equality, and reports a divergence, never a pass, when it reads
/// them otherwise.
@Suite struct RedactedReplayTests {
  /// Records `actions` of `domain` through a store and a recorder with a redaction key, and
  /// reads the trace back.
  @MainActor
  static func recordRedacted<D: Domain>(_ domain: D, _ actions: [D.Action], in directory: URL)
    throws -> RecordedSession<D>
  {
    let path = directory.appendingPathComponent("redacted.trace").path
    var configuration = TraceRecorderConfiguration()
    // A fixed key: the pseudonyms, and so the test, are the same every run.
    configuration.redactionKey = RedactionKey(bytes: Array(repeating: 7, count: 32))
    configuration.checkpointInterval = 8
    configuration.reproducibleCheckpoints = true
    // A hash every 8 actions, however large the state: every one a redacted state to match.
    configuration.maxStateBytesPerAction = 1 << 20
    let recorder = try TraceRecorder(path: path, domain: domain, configuration: configuration)
    let store = Store(
      initialState: domain.initialState,
      reducer: Reduce { domain.reduce(into: &$0, action: $1) })
    store.attach(recorder)
    for action in actions { store.send(action) }
    try recorder.close()
    return try TraceSession(TraceReader(path: path), domain: domain).session()
  }

  @Test @MainActor func aBankingSessionRecordedRedactedVerifiesAndBisectsAsRecordedInTheClear()
    throws
  {
    let (actions, _) = bankingDomain.generate(count: 2_000, seed: 33)
    let session = try Self.recordRedacted(
      bankingDomain, actions, in: Fixtures.temporaryDirectory())
    let debugger = ReplayEngine(domain: bankingDomain, session: session)
    let report = debugger.verify()
    #expect(report.isVerified, "\(String(describing: report.divergence))")
    #expect(report.checkpointsChecked > 100)
    let plain = ReplayEngine(
      domain: bankingDomain, session: RecordedSession(domain: bankingDomain, actions: actions))
    let redactedViolation = try debugger.bisect(invariant: "non-negative-balance").firstViolation
    #expect(redactedViolation != nil)
    #expect(
      redactedViolation == (try plain.bisect(invariant: "non-negative-balance").firstViolation))
  }

  struct Profile: Codable, Equatable, Sendable {
    var name = ""
    var initial = ""
  }

  enum ProfileAction: Codable, Equatable, Sendable {
    case rename(name: String)
  }

  /// A reducer that keeps a name's first letter: it reads the value, not only compares it.
  static let initials = DomainDefinition(
    name: "initials", summary: "A name and its first letter.", initialState: Profile(),
    reducer: Reduce<Profile, ProfileAction> { state, action in
      guard case .rename(let name) = action else { return .none }
      state.name = name
      state.initial = String(name.prefix(1))
      return .none
    },
    actionCases: ["rename"],
    redaction: RedactionPolicy(actions: ["rename.name": .pseudonymize]))

  @Test @MainActor func aReducerThatReadsARedactedValueVerifiesAndReplaysThePseudonyms() throws {
    let session = try Self.recordRedacted(
      Self.initials, [.rename(name: "Alice"), .rename(name: "Bob")],
      in: Fixtures.temporaryDirectory())
    #expect(
      session.actions.allSatisfy { action in
        guard case .rename(let name) = action.action else { return false }
        return name != "Alice" && name != "Bob"
      })
    // The hashes are of the states the redacted actions give: an unchanged reducer
    // reproduces them, whatever it reads of the values.
    let debugger = ReplayEngine(domain: Self.initials, session: session)
    #expect(debugger.verify().isVerified)
    // The replayed initial is the pseudonym's, never the real one.
    let last = try debugger.state(at: session.endSequence)
    #expect(last.initial == String(last.name.prefix(1)) && last.name != "Bob")
  }

  /// The same reducer, changed to keep the last letter: a divergence, never a pass.
  @Test @MainActor func aChangedReducerIsReportedAsADivergence() throws {
    let session = try Self.recordRedacted(
      Self.initials, [.rename(name: "Alice"), .rename(name: "Bob")],
      in: Fixtures.temporaryDirectory())
    let changed = DomainDefinition(
      name: "initials", summary: "A name and its last letter.", initialState: Profile(),
      reducer: Reduce<Profile, ProfileAction> { state, action in
        guard case .rename(let name) = action else { return .none }
        state.name = name
        state.initial = String(name.suffix(1))
        return .none
      },
      actionCases: ["rename"])
    // A name's first letter is upper case and its last lower case, in a pseudonym too.
    let report = ReplayEngine(domain: changed, session: session).verify()
    #expect(!report.isVerified)
    #expect(report.divergence != nil)
  }

  struct Signups: Codable, Equatable, Sendable {
    var ages: [String: Int] = [:]
    var order: [String] = []
  }

  enum SignupAction: Codable, Equatable, Sendable {
    case signUp(email: String, age: Int)
  }

  /// A dictionary keyed by a pseudonymized value: its keys are pseudonyms in the replay, and
  /// its entries in their order.
  static let signups = DomainDefinition(
    name: "signups", summary: "Sign-ups by email.", initialState: Signups(),
    reducer: Reduce<Signups, SignupAction> { state, action in
      guard case .signUp(let email, let age) = action else { return .none }
      state.ages[email] = age
      state.order.append(email)
      return .none
    },
    actionCases: ["signUp"],
    redaction: RedactionPolicy(actions: ["signUp.email": .pseudonymize]))

  @Test @MainActor func aDictionaryKeyedByPseudonymizedValuesVerifies() throws {
    let actions = (1...40).map { SignupAction.signUp(email: "user\($0)@example.com", age: 20 + $0) }
    let session = try Self.recordRedacted(
      Self.signups, actions, in: Fixtures.temporaryDirectory())
    let report = ReplayEngine(domain: Self.signups, session: session).verify()
    #expect(report.isVerified, "\(String(describing: report.divergence))")
    #expect(report.checkpointsChecked >= 5)
  }
}
