import Retrace
import RetraceDebugger
import Testing

struct FormattedWallet: Equatable {
  var owner: String
  var entries: [FormattedEntry]
  var total: Int
  var notes: [String: Int]
}

struct FormattedEntry: Equatable {
  var amount: Int
  var date: Double
  var total: Int
}

/// `displayFormatted` writes the formatted value beside each number a format names, found by
/// its path in a dump or a diff.
@Suite struct DisplayFormattingTests {
  let formats: [String: DisplayFormat] = [
    "total": .money(currencyCode: "EUR"),
    "entries.*.amount": .money(currencyCode: "EUR"),
    "**.date": .date(.epochSeconds),
    "notes.*": .money(currencyCode: "USD"),
  ]
  let wallet = FormattedWallet(
    owner: "Ann", entries: [FormattedEntry(amount: -250, date: 0, total: 7)], total: -250,
    notes: ["fee": 12])

  @Test func aDumpShowsFormattedValuesBesideRawOnes() {
    let text = displayFormatted(stateDump(wallet), formats)
    #expect(text.contains("      amount: -250 (-2.50 EUR),\n"))
    #expect(text.contains("      date: 0.0 (1970-01-01 00:00:00 UTC),\n"))
    #expect(text.contains("  total: -250 (-2.50 EUR),\n"))
    #expect(text.contains(#""fee": 12 (0.12 USD)"#))
    // A field of the same name elsewhere is not formatted.
    #expect(text.contains("      total: 7\n"))
    #expect(text.contains(#"  owner: "Ann","#))
    // Nothing named: the same text.
    #expect(displayFormatted(stateDump(wallet), [:]) == stateDump(wallet))
  }

  @Test func aDiffShowsFormattedValuesBesideRawOnes() throws {
    var after = wallet
    after.total = 1_000
    let text = displayFormatted(try #require(stateDiff(wallet, after)), formats)
    #expect(text.contains("-   total: -250 (-2.50 EUR),\n"))
    #expect(text.contains("+   total: 1000 (10.00 EUR),\n"))
  }
}
