import Retrace
import Testing

@Suite struct DisplayFormatTests {
  @Test func moneyIsShownInMajorUnits() {
    let euros = DisplayFormat.money(currencyCode: "EUR")
    #expect(euros.format("4412") == "44.12 EUR")
    #expect(euros.format("-172850") == "-1,728.50 EUR")
    #expect(euros.format("5") == "0.05 EUR")
    #expect(euros.format("-5") == "-0.05 EUR")
    #expect(euros.format("123456789012") == "1,234,567,890.12 EUR")
    #expect(DisplayFormat.money(currencyCode: "JPY", minorUnits: 0).format("1500") == "1,500 JPY")
    #expect(DisplayFormat.money(currencyCode: "BHD", minorUnits: 3).format("1500") == "1.500 BHD")
    // Not a whole number of cents: shown as it is.
    #expect(euros.format("12.5") == nil)
    #expect(euros.format("\"12\"") == nil)
  }

  @Test func datesAreShownInUTC() {
    let seconds = DisplayFormat.date(.epochSeconds)
    #expect(seconds.format("1763771000.5") == "2025-11-22 00:23:20 UTC")
    #expect(seconds.format("0") == "1970-01-01 00:00:00 UTC")
    #expect(seconds.format("-1") == "1969-12-31 23:59:59 UTC")
    #expect(seconds.format("951782400") == "2000-02-29 00:00:00 UTC")
    #expect(
      DisplayFormat.date(.epochMilliseconds).format("1763771000500") == "2025-11-22 00:23:20 UTC")
    #expect(seconds.format("1e300") == nil)
    #expect(seconds.format("abc") == nil)
  }

  @Test func patternsMatchPathsMostSpecificFirst() {
    let table = DisplayFormatTable([
      "**.amount": .money(currencyCode: "USD"),
      "accounts.*.transactions.*.amount": .money(currencyCode: "EUR"),
      "accounts.*.balance": .money(currencyCode: "EUR"),
      "**.date": .date(.epochSeconds),
    ])
    #expect(table.format(at: ["accounts", nil, "balance"]) == .money(currencyCode: "EUR"))
    #expect(table.format(at: ["balance"]) == nil)
    #expect(
      table.format(at: ["accounts", nil, "transactions", nil, "amount"])
        == .money(currencyCode: "EUR"))
    #expect(table.format(at: ["pending", nil, "amount"]) == .money(currencyCode: "USD"))
    #expect(table.format(at: ["amount"]) == .money(currencyCode: "USD"))
    #expect(table.format(at: ["a", "b", "date"]) == .date(.epochSeconds))
    // `*` is one key or index, a literal key never an index.
    #expect(table.format(at: ["accounts", "x", "y", "balance"]) == nil)
    #expect(DisplayFormatTable(["list.0": .date(.epochSeconds)]).format(at: ["list", nil]) == nil)
  }
}
