import FlyingFox
import Foundation
import Retrace
import RetraceDebugger
import RetraceExamples
import Testing

@testable import RetraceStudio

/// What the Studio says of the states of a live session that no checkpoint has checked, and
/// how a short session gets checked at all.
@Suite(.serialized)
struct LiveCheckTests {
  /// Banking with fees, under the app's name: a Studio whose reducer is not the app's.
  static let otherBanking = DomainDefinition(
    name: "banking", summary: "Banking with fees, under the app's name.",
    actionSchemaVersion: bankingDomain.actionSchemaVersion, initialState: BankingState(),
    reducer: BankingWithFeesReducer(), actionCases: bankingDomain.actionCases,
    upcaster: BankingSchema.upcast, legacyEncoder: BankingSchema.legacyEncoding)

  /// A demo of 200 actions, fewer than the link's checkpoint interval, that then waits,
  /// streamed to a Studio with `domains`: the session once `condition` holds for it.
  static func shortSession(
    domains: [any Domain], until what: String, _ condition: @escaping ([String: Any]) -> Bool
  ) async throws -> [String: Any] {
    let studio = try await StudioHarness.live(domains: domains)
    defer { studio.end() }
    let demo = try LiveSessionTests.Demo([
      "banking", "--live", LiveSessionTests.address(studio), "--rate", "0", "--actions", "200",
      "--exit-after-idle", "20",
    ])
    defer { demo.process.terminate() }
    var session: [String: Any] = [:]
    try await LiveSessionTests.eventually(what, timeout: .seconds(20)) {
      session = try await LiveSessionTests.liveSessions(studio).first ?? [:]
      return condition(session)
    }
    return session
  }

  /// The link's checkpoint when it goes idle finds the Studio's reducer is not the app's.
  @Test func aShortSessionWithAnotherReducerIsFoundDiverged() async throws {
    let session = try await Self.shortSession(
      domains: [Self.otherBanking], until: "a diverged session"
    ) { $0["diverged"] as? Bool == true }
    #expect(session["lastSequence"] as? Int == 200)
    #expect((session["checkedThrough"] as? Int ?? 200) < 200, "\(session)")
  }

  /// With the app's own reducer, the same short session is checked through its last action.
  @Test func aShortSessionIsCheckedThroughItsLastAction() async throws {
    let session = try await Self.shortSession(
      domains: Examples.domains, until: "checked through 200"
    ) { $0["checkedThrough"] as? Int == 200 }
    #expect(session["diverged"] as? Bool == false)
  }

  /// The summary of `segment`, as the list gives it.
  static func summary(_ segment: any LiveSegment) async throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(try await segment.summary().text.utf8))
        as? [String: Any])
  }

  /// Until a checkpoint covers them, the actions after the hello's state are unchecked:
  /// `checkedThrough` says the last action whose state was checked.
  @Test func statesNoCheckpointCoversAreUnchecked() async throws {
    let studio = try await StudioHarness.live()
    defer { studio.end() }
    let link = try await studio.connectApp("unchecked")
    defer { link.close() }
    let (actions, final) = bankingDomain.generate(count: 100, seed: 3)
    try await link.send(try LiveMemoryTests.actions(actions, first: 1))
    let segment = try await LiveMemoryTests.segment(in: studio) { _ in true }
    var summary: [String: Any] = [:]
    for _ in 0..<600 where summary["lastSequence"] as? Int != 100 {
      try await Task.sleep(for: .milliseconds(50))
      summary = try await Self.summary(segment)
    }
    #expect(summary["checkedThrough"] as? Int == 0, "\(summary)")
    #expect(summary["diverged"] as? Bool == false)

    try await link.send(Self.checkpoint(100, try StateHash(of: final)))
    for _ in 0..<600 where summary["checkedThrough"] as? Int != 100 {
      try await Task.sleep(for: .milliseconds(50))
      summary = try await Self.summary(segment)
    }
    #expect(summary["checkedThrough"] as? Int == 100, "\(summary)")
  }

  /// A `checkpoint` message.
  static func checkpoint(_ sequence: UInt64, _ hash: StateHash) -> [UInt8] {
    CBORValue.map([
      .init(.textString("type"), .textString("checkpoint")),
      .init(.textString("sequence"), .unsigned(sequence)),
      .init(.textString("hash"), .unsigned(hash.rawValue)),
    ]).encoded()
  }

  /// Moving the app of a diverged session to a state past the last one checked would give it
  /// a state its own reducer never produced: refused, with the reason; a checked one is sent.
  @Test func aDivergedSessionMovesTheAppOnlyToCheckedStates() async throws {
    let studio = try await StudioHarness.live()
    defer { studio.end() }
    let link = try await studio.connectApp("diverged")
    defer { link.close() }
    let actions = bankingDomain.generate(count: 100, seed: 3).actions
    try await link.send(try LiveMemoryTests.actions(actions, first: 1))
    try await link.send(Self.checkpoint(64, StateHash(rawValue: 42)))
    let segment = try await LiveMemoryTests.segment(in: studio) { _ in true }
    var summary: [String: Any] = [:]
    for _ in 0..<600 where summary["diverged"] as? Bool != true {
      try await Task.sleep(for: .milliseconds(50))
      summary = try await Self.summary(segment)
    }
    #expect(summary["diverged"] as? Bool == true)
    let path = "/api/sessions/\(segment.id)/jump"
    for to in ["80", "last"] {
      let refused = try await studio.get(path, ["to": to], method: .POST)
      #expect(refused.status == 409, "\(to)")
      let message = try refused.error() ?? ""
      #expect(message.contains("diverged") && message.contains("never produced"), "\(message)")
    }
    #expect(try await studio.get(path, ["to": "0"], method: .POST).status == 200)
  }
}
