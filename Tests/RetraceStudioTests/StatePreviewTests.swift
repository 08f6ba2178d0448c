import Foundation
import Testing

@testable import RetraceStudio

@Suite struct StatePreviewTests {
  /// A long array keeps its first and last 50 items, as they are in the whole state; a window
  /// of it gives any other items; short arrays are whole.
  @Test func aLongArrayIsShownByItsEndsAndLoadedByWindows() async throws {
    let studio = try await StudioHarness.start(["banking-session.trace"])
    defer { Task { await studio.stop() } }
    let preview = try #require(
      try await studio.get("/api/sessions/banking-session/state", ["at": "3000"]).json()
        as? [String: Any])
    let whole = try #require(
      try await studio.get("/api/sessions/banking-session/state", ["at": "3000", "full": "1"])
        .json() as? [String: Any])
    let previewAccounts = try #require(
      (preview["state"] as? [String: Any])?["accounts"] as? [[String: Any]])
    let wholeAccounts = try #require(
      (whole["state"] as? [String: Any])?["accounts"] as? [[String: Any]])
    #expect(previewAccounts.count == wholeAccounts.count)
    var windows = 0
    for (shown, account) in zip(previewAccounts, wholeAccounts) {
      let all = try #require(account["transactions"] as? [Any])
      if all.count <= 100 {
        #expect((shown["transactions"] as? [Any])?.count == all.count)
        continue
      }
      windows += 1
      let window = try #require(
        (shown["transactions"] as? [String: Any])?["$window"] as? [String: Any])
      #expect(window["count"] as? Int == all.count)
      let ranges = try #require(window["ranges"] as? [[String: Any]])
      #expect(ranges.map { $0["start"] as? Int } == [0, all.count - 50])
      for range in ranges {
        let start = try #require(range["start"] as? Int)
        let items = try #require(range["items"] as? [Any])
        #expect(items.count == 50)
        #expect(NSArray(array: items) == NSArray(array: Array(all[start..<start + 50])))
      }
    }
    #expect(windows == 2)

    let part = try #require(
      try await studio.get(
        "/api/sessions/banking-session/state",
        ["at": "3000", "path": #"["accounts",1,"transactions"]"#, "offset": "600", "limit": "5"]
      ).json() as? [String: Any])
    let ranges = try #require(
      ((part["value"] as? [String: Any])?["$window"] as? [String: Any])?["ranges"]
        as? [[String: Any]])
    let loaded = try #require(ranges.first { $0["start"] as? Int == 600 }?["items"] as? [Any])
    let all = try #require(wholeAccounts[1]["transactions"] as? [Any])
    #expect(NSArray(array: loaded) == NSArray(array: Array(all[600..<605])))

    let bad = try await studio.get(
      "/api/sessions/banking-session/state", ["at": "3000", "path": "accounts"])
    #expect(bad.status == 400)
    let missing = try await studio.get(
      "/api/sessions/banking-session/state", ["at": "3000", "path": #"["nope"]"#])
    #expect(missing.status == 404)
  }

  /// What an action appends at the end of a long array is found, though the array is cut.
  @Test func anItemAddedToALongArrayIsAChange() throws {
    struct Ledger: Encodable { var entries: [Int] }
    let old = try StatePreview(Ledger(entries: Array(0..<1_000)))
    let new = try StatePreview(Ledger(entries: Array(0..<1_001)))
    let changes = old.changes(to: new)
    #expect(changes.map(\.kind) == ["added"])
    #expect(changes.first?.path == [.key("entries"), .index(1_000)])
    let edited = try StatePreview(Ledger(entries: [7] + Array(1..<1_000)))
    #expect(old.changes(to: edited).map(\.path) == [[.key("entries"), .index(0)]])
    #expect(old.changes(to: edited).first?.old == "0")
  }
}
