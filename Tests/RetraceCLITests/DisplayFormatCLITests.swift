import Foundation
import Testing

private let packageRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `retrace state` and `retrace diff` show the numbers a domain has display formats for
/// beside their raw values; `--json` keeps the raw values only.
@Suite struct DisplayFormatCLITests {
  @Test func stateAndDiffShowFormattedValues() throws {
    let trace = "traces/banking-overdraft.trace"
    let state = try CLI.run(["state", trace, "--at", "1069", "--no-color"], in: packageRoot)
    #expect(state.exitCode == 0, "\(state)")
    #expect(state.stdout.contains("balance: -1728 (-17.28 EUR)"), "\(state)")

    let full = try CLI.run(
      ["state", trace, "--at", "3", "--full", "--no-color"], in: packageRoot)
    #expect(full.stdout.contains("amount: 200000 (2,000.00 EUR)"), "\(full)")
    #expect(full.stdout.contains(" UTC)"), "\(full)")

    let diff = try CLI.run(
      ["diff", trace, "--from", "1068", "--to", "1069", "--no-color"], in: packageRoot)
    #expect(diff.stdout.contains("-       balance: 971 (9.71 EUR)\n"), "\(diff)")
    #expect(diff.stdout.contains("+       balance: -1728 (-17.28 EUR)\n"), "\(diff)")

    let json = try CLI.run(["state", trace, "--at", "1069", "--json"], in: packageRoot)
    #expect(!json.stdout.contains("EUR"))
  }

  /// `diff --json` lists the changes as the Studio marks them: paths into the state's JSON,
  /// raw values.
  @Test func diffJSONListsTheChangesAtTheirJSONPaths() throws {
    let trace = "traces/banking-overdraft.trace"
    let diff = try CLI.run(
      ["diff", trace, "--from", "1068", "--to", "1069", "--json"], in: packageRoot)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any])
    let changes = try #require(json["changes"] as? [[String: Any]])
    // The balance, and the two transactions the payment added.
    #expect(changes.count == 3, "\(changes)")
    #expect(
      changes.dropFirst().map { $0["path"] as? [AnyHashable] } == [
        ["accounts", 0, "transactions", 40], ["accounts", 0, "transactions", 41],
      ])
    #expect(changes.dropFirst().allSatisfy { $0["kind"] as? String == "added" })
    #expect(changes.first?["path"] as? [AnyHashable] == ["accounts", 0, "balance"])
    #expect(changes.first?["kind"] as? String == "changed")
    #expect(changes.first?["old"] as? Int == 971)
    #expect(json["changesComplete"] as? Bool == true)
  }
}
