import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// A recorder with a redaction key writes none of a session's personal data, and the same
/// pseudonym for the same value.
@Suite struct RedactionTests {
  /// The strings of a banking session that its policy redacts: IBANs, account names and
  /// beneficiaries (those of six characters or more, which cannot turn up by chance in a
  /// few kilobytes of other bytes).
  static func personalStrings(of actions: [BankingAction]) -> Set<String> {
    var strings: Set<String> = []
    for action in actions {
      switch action {
      case .addAccount(let name, _, let iban, _):
        strings.insert(name)
        strings.insert(iban)
        strings.insert(String(iban.dropFirst(2)))
      case .addTransaction(let iban, _, let beneficiary, _):
        strings.insert(iban)
        strings.insert(beneficiary)
      default:
        break
      }
    }
    return strings.filter { $0.utf8.count >= 6 }
  }

  /// Every record's bytes, decompressed: the actions and the starting state.
  static func decompressedContent(of path: String) throws -> [UInt8] {
    var content: [UInt8] = []
    try TraceReader(path: path).forEachChunk { records throws(TraceError) in
      for record in records { content += Array(record.payload) }
      return true
    }
    return content
  }

  static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
    Data(haystack).range(of: Data(needle.utf8)) != nil
  }

  @Test func aRedactedTraceHoldsNoneOfTheSessionsPersonalStrings() throws {
    let directory = temporaryDirectory()
    var configuration = smallChunks(checkpoints: 50, snapshots: 500, reproducible: true)
    configuration.redactionKey = RedactionKey.random()
    let plainPath = directory + "/plain.trace"
    let redactedPath = directory + "/redacted.trace"
    let (actions, _, _) = try recordWithoutStore(
      bankingDomain, count: 3_000, seed: 33, to: plainPath,
      configuration: smallChunks(checkpoints: 50, snapshots: 500, reproducible: true))
    _ = try recordWithoutStore(
      bankingDomain, count: 3_000, seed: 33, to: redactedPath, configuration: configuration)
    let strings = Self.personalStrings(of: actions)
    #expect(strings.count > 20)

    // The test can fail: the plain trace holds them.
    let plain = try Self.decompressedContent(of: plainPath)
    #expect(strings.allSatisfy { Self.contains(plain, $0) })

    let raw = Array(try Data(contentsOf: URL(fileURLWithPath: redactedPath)))
    let content = try Self.decompressedContent(of: redactedPath)
    for string in strings {
      #expect(!Self.contains(raw, string), "\(string) in the file")
      #expect(!Self.contains(content, string), "\(string) in the decompressed records")
    }
    // Nor the key, in any form.
    let key = configuration.redactionKey!.bytes
    #expect(!Self.contains(raw, String(decoding: key, as: UTF8.self)))
    #expect(raw.indices.dropLast(31).allSatisfy { raw[$0..<($0 + 32)].elementsEqual(key) == false })
    // The header says, in the clear, that the values are pseudonyms.
    #expect(try TraceReader(path: redactedPath).header.app["redaction"] == "keyed pseudonyms")
    // Its snapshots, searched above with every record, are of the state the redacted
    // actions give: there are some after the starting one, as in the clear.
    let reader = try TraceReader(path: redactedPath)
    #expect(reader.chunks.filter(\.startsWithSnapshot).count > 1)
  }

  @Test func pseudonymsAreKeyedDeterministicAndKeepTheShape() throws {
    let key = RedactionKey.random()
    let policy = RedactionPolicy(
      actions: ["**.iban": .pseudonymizeKeepingPrefix(2), "addAccount.name": .pseudonymize])
    func redacted(_ action: BankingAction, key: RedactionKey) throws -> CBORValue {
      var redactor = Redactor(policy: policy, key: key)
      let bytes = try CBOREncoder().encode(action)
      let out = try bytes.withBytes { try redactor.redactAction($0) }
      return try out.withUnsafeBytes { try CBORValue(decoding: $0) }
    }
    let action = BankingAction.addAccount(
      name: "Zoë Ångström-Smith", kind: .checking, iban: "NL91ABNA0417164300", date: 1)
    let first = try redacted(action, key: key)
    #expect(try redacted(action, key: key) == first)
    #expect(try redacted(action, key: RedactionKey.random()) != first)
    let fields = try #require(first["addAccount"])
    let iban = try #require(fields["iban"]?.stringValue)
    #expect(iban.hasPrefix("NL") && iban != "NL91ABNA0417164300")
    #expect(iban.count == 18)
    #expect(
      zip(iban, "NL91ABNA0417164300").allSatisfy {
        $0.isNumber == $1.isNumber && $0.isUppercase == $1.isUppercase
      })
    let name = try #require(fields["name"]?.stringValue)
    #expect(name.count == "Zoë Ångström-Smith".count)
    #expect(name.unicodeScalars.allSatisfy { $0.isASCII })
    #expect(name.split(separator: " ").map(\.count) == [3, 14])
    #expect(name.contains("-") && name.first!.isUppercase)
    // What no rule names stays.
    #expect(fields["kind"] == "checking" && fields["date"] == 1.0)
  }

  @Test func droppedValuesBecomePlaceholdersOfTheirType() throws {
    let policy = RedactionPolicy(
      actions: ["addTransaction.beneficiary": .drop, "addTransaction.amount": .drop])
    var redactor = Redactor(policy: policy, key: .random())
    let action = BankingAction.addTransaction(
      iban: "NL91ABNA0417164300", amount: -1_199, beneficiary: "Spotify", date: 5)
    let bytes = try CBOREncoder().encode(action)
    let redacted = try bytes.withBytes { try redactor.redactAction($0) }
    let decoded = try CBORDecoder().decode(BankingAction.self, from: redacted)
    #expect(
      decoded
        == .addTransaction(iban: "NL91ABNA0417164300", amount: 0, beneficiary: "", date: 5))
  }

  @Test func aNumberUnderPseudonymizeIsDroppedNotKept() throws {
    let policy = RedactionPolicy(actions: ["addTransaction.amount": .pseudonymize])
    var redactor = Redactor(policy: policy, key: .random())
    let action = BankingAction.addTransaction(
      iban: "NL91ABNA0417164300", amount: -1_199, beneficiary: "Spotify", date: 5)
    let bytes = try CBOREncoder().encode(action)
    let redacted = try bytes.withBytes { try redactor.redactAction($0) }
    #expect(
      try CBORDecoder().decode(BankingAction.self, from: redacted)
        == .addTransaction(iban: "NL91ABNA0417164300", amount: 0, beneficiary: "Spotify", date: 5))
  }

  @Test func anActionFieldNoRuleNamesStaysAsItIsEvenWhenItEqualsAPseudonymizedValue() throws {
    var redactor = Redactor(policy: bankingRedaction, key: .random())
    // An account named like its kind: the name is pseudonymized, the kind must stay
    // decodable.
    for action in [
      BankingAction.addAccount(
        name: "savings", kind: .savings, iban: "NL91ABNA0417164300", date: 1),
      BankingAction.addAccount(
        name: "Holiday", kind: .savings, iban: "NL02RABO0123456789", date: 2),
    ] {
      let bytes = try CBOREncoder().encode(action)
      let redacted = try bytes.withBytes { try redactor.redactAction($0) }
      guard
        case .addAccount(let name, let kind, _, _) = try CBORDecoder().decode(
          BankingAction.self, from: redacted)
      else {
        Issue.record("not an addAccount")
        continue
      }
      #expect(kind == .savings && name != "savings" && name != "Holiday")
    }
  }

  @Test func aKeyForADomainWithoutAPolicyIsRefusedBeforeAnythingIsWritten() throws {
    let path = temporaryDirectory() + "/counter.trace"
    var configuration = TraceRecorderConfiguration()
    configuration.redactionKey = .random()
    #expect(throws: TraceError.self) {
      _ = try TraceRecorder(path: path, domain: counterDomain, configuration: configuration)
    }
    #expect(!FileManager.default.fileExists(atPath: path))
  }

  @Test func aKeyNeverPrintsItsBytes() {
    let key = RedactionKey.random()
    #expect("\(key)" == "RedactionKey(32 bytes)")
    #expect(RedactionKey(bytes: Array(repeating: 1, count: 31)) == nil)
  }
}
