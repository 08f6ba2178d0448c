import Retrace
import RetraceDebugger
import RetraceExamples
import Testing

/// A domain's display formats in action labels and in the CLI's action lines: matched by a
/// value's path in the action's encoding (the case, then the labels).
@Suite struct ActionDisplayFormatTests {
  enum Ledger: Codable, Sendable {
    case deposit(amount: Int)
    case transfer(amount: Int, date: Double, memo: String)
    case wrapped(action: Inner)
    case note(String)
  }
  enum Inner: Codable, Sendable {
    case refund(amount: Int)
  }

  static let formats = ActionDisplayFormats([
    "**.amount": .money(currencyCode: "EUR"),
    "transfer.date": .date(.epochSeconds),
    // A state path: no action's payload is there.
    "accounts.*.balance": .money(currencyCode: "USD"),
  ])

  @Test func aLabelShowsTheFormattedValueBesideTheRawOne() {
    #expect(
      actionLabel(Ledger.deposit(amount: 4412), formats: Self.formats)
        == "deposit(amount: 4412 (44.12 EUR))")
    #expect(
      actionLabel(
        Ledger.transfer(amount: -172850, date: 1_763_771_000, memo: "rent"), formats: Self.formats)
        == "transfer(amount: -172850 (-1,728.50 EUR), date: 1763771000 (2025-11-22 00:23:20 UTC), memo: \"rent\")"
    )
    #expect(
      actionLabel(Ledger.wrapped(action: .refund(amount: 5)), formats: Self.formats)
        == "wrapped › refund(amount: 5 (0.05 EUR))")
    #expect(actionLabel(Ledger.note("4412"), formats: Self.formats) == "note(\"4412\")")
    // Without formats, as before.
    #expect(actionLabel(Ledger.deposit(amount: 4412)) == "deposit(amount: 4412)")
  }

  @Test func theCLIsNoteListsTheFormattedValues() {
    #expect(
      Self.formats.note(for: Ledger.deposit(amount: 4412))
        == " (amount: 44.12 EUR)")
    #expect(
      Self.formats.note(for: Ledger.transfer(amount: 100, date: 1_763_771_000, memo: "x"))
        == " (amount: 1.00 EUR, date: 2025-11-22 00:23:20 UTC)")
    #expect(Self.formats.note(for: Ledger.note("x")) == "")
    #expect(ActionDisplayFormats.none.note(for: Ledger.deposit(amount: 1)) == "")
    // Only the patterns that can name an action of the domain's cases are kept.
    let banking = ActionDisplayFormats(bankingDomain)
    #expect(banking.isEmpty)
    #expect(
      !ActionDisplayFormats(["**.amount": .money(currencyCode: "EUR")], actionCases: []).isEmpty)
    #expect(
      ActionDisplayFormats(["transfer.date": .date(.epochSeconds)], actionCases: ["deposit"])
        .isEmpty)
  }
}
