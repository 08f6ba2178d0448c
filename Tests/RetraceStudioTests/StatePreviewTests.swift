import Foundation
import RetraceCLI
import RetraceDebugger
import RetraceExamples
import RetraceLog
import RetraceTestSupport
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

  /// An item changed in the middle of a long array, outside both ends the preview keeps, is
  /// found to its field, with its old value, and the new preview keeps it.
  @Test func aChangeInTheMiddleOfALongArrayIsFound() throws {
    struct Item: Codable, Equatable { var value: Int }
    struct Ledger: Codable { var entries: [Item] }
    let old = Ledger(entries: (0..<1_000).map { Item(value: $0) })
    var new = old
    new.entries[500].value = -1
    let (before, arrays) = try StatePreview.capturing(old)
    #expect(before.changes(to: try StatePreview(new)).isEmpty)
    let (preview, changes) = try StatePreview.changes(from: before, arrays, to: new)
    #expect(changes.map(\.path) == [[.key("entries"), .index(500), .key("value")]])
    #expect(changes.first?.kind == "changed")
    #expect(changes.first?.old == "500")
    #expect(preview.node(at: [.key("entries"), .index(500)]) != nil)
    // Nothing changed: nothing found, and only the ends kept.
    let (same, none) = try StatePreview.changes(from: before, arrays, to: old)
    #expect(none.isEmpty)
    #expect(same.node(at: [.key("entries"), .index(500)]) == nil)
  }

  /// A movie rated in the middle of a list of 300 (an `IdentifiedArray`, compared item by
  /// item) is in `changed`, and the state shows it between the list's ends.
  @Test func theStateShowsAnItemChangedInTheMiddleOfALongList() async throws {
    let actions =
      (1...300).map {
        MoviesAction.addMovie(id: $0, title: "Movie \($0)", year: 2000, genre: .drama)
      } + [MoviesAction.rate(id: 151, stars: 4)]
    let path = try Fixtures.jsonLinesFile(actions, of: moviesDomain, named: "movies")
    defer {
      try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
    let catalog = try SessionCatalog.open(
      [path], key: nil, registry: DomainRegistry([moviesDomain]), flows: [])
    let served = try #require(catalog.session("movies"))
    // Sought from the start, then again as a step forward from the state before it.
    let jump = try await served.state(at: 301, window: nil, full: false)
    _ = try await served.state(at: 300, window: nil, full: false)
    let step = try await served.state(at: 301, window: nil, full: false)
    for answer in [jump, step] {
      let body = try #require(
        try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any])
      let changed = try #require(body["changed"] as? [[String: Any]])
      #expect(changed.map { $0["path"] as? [AnyHashable] } == [["movies", 150, "stars"]])
      // An unrated movie has no `stars` key: the rating adds it.
      #expect(changed.first?["kind"] as? String == "added")
      let window = try #require(
        ((body["state"] as? [String: Any])?["movies"] as? [String: Any])?["$window"]
          as? [String: Any])
      let ranges = try #require(window["ranges"] as? [[String: Any]])
      let middle = try #require(ranges.first { $0["start"] as? Int == 150 })
      let movie = try #require((middle["items"] as? [[String: Any]])?.first)
      #expect(movie["stars"] as? Int == 4)
    }
    let diff = try await served.diff(from: 300, to: 301)
    let body = try #require(
      try JSONSerialization.jsonObject(with: Data(diff.text.utf8)) as? [String: Any])
    #expect(
      (body["changes"] as? [[String: Any]])?.map { $0["path"] as? [AnyHashable] }
        == [["movies", 150, "stars"]])
  }

  /// A change the structural diff cannot see (between the ends of a collection too long to
  /// compare, here 20,100 movies in an `IdentifiedArray`) is still a change: `/diff` says
  /// `changed`, not `complete`, and its text names the collection.
  @Test func aChangeBetweenTheEndsOfATooLongListIsNotNoChange() async throws {
    let count = 20_100
    let actions =
      (1...count).map {
        MoviesAction.addMovie(id: $0, title: "Movie \($0)", year: 2000, genre: .drama)
      } + [MoviesAction.rate(id: 10_000, stars: 4)]
    let path = try Fixtures.jsonLinesFile(actions, of: moviesDomain, named: "movies")
    defer {
      try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
    let catalog = try SessionCatalog.open(
      [path], key: nil, registry: DomainRegistry([moviesDomain]), flows: [])
    let served = try #require(catalog.session("movies"))
    let last = UInt64(count + 1)
    let diff = try #require(
      try JSONSerialization.jsonObject(
        with: Data(try await served.diff(from: last - 1, to: last).text.utf8)) as? [String: Any])
    #expect(diff["changed"] as? Bool == true, "\(diff)")
    #expect(diff["complete"] as? Bool == false, "\(diff)")
    #expect((diff["diff"] as? String)?.contains("not compared") == true, "\(diff)")
    // The same state twice: no change, and nothing left unchecked.
    let same = try #require(
      try JSONSerialization.jsonObject(
        with: Data(try await served.diff(from: last, to: last).text.utf8)) as? [String: Any])
    #expect(same["changed"] as? Bool == false, "\(same)")
    #expect(same["complete"] as? Bool == true, "\(same)")
  }

  /// The search endpoint finds every match in the whole state, also where the preview cuts
  /// a long array, and stops at its limit.
  @Test func searchFindsMatchesBetweenTheEndsOfALongArray() async throws {
    let studio = try await StudioHarness.start(["banking-session.trace"])
    defer { Task { await studio.stop() } }
    let whole = try #require(
      try await studio.get("/api/sessions/banking-session/state", ["at": "3000", "full": "1"])
        .json() as? [String: Any])
    // The matches, found in the whole state's JSON.
    var expected: [[AnyHashable]] = []
    func walk(_ value: Any, _ path: [AnyHashable]) {
      if let object = value as? [String: Any] {
        for (key, child) in object.sorted(by: { $0.key < $1.key }) {
          if key.lowercased().contains("spotify") {
            expected.append(path + [key])
          } else if let text = child as? String, text.lowercased().contains("spotify") {
            expected.append(path + [key])
          }
          if child is [String: Any] || child is [Any] { walk(child, path + [key]) }
        }
      } else if let array = value as? [Any] {
        for (index, child) in array.enumerated() {
          if let text = child as? String, text.lowercased().contains("spotify") {
            expected.append(path + [index])
          }
          if child is [String: Any] || child is [Any] { walk(child, path + [index]) }
        }
      }
    }
    walk(try #require(whole["state"]), [])
    let answer = try #require(
      try await studio.get(
        "/api/sessions/banking-session/search", ["at": "3000", "q": "SpOtIfY", "limit": "10000"]
      ).json() as? [String: Any])
    let paths = try #require(answer["paths"] as? [[AnyHashable]])
    // Compared as text: an index from JSONSerialization and a Swift Int hash differently.
    let text = { (path: [AnyHashable]) in path.map { "\($0)" }.joined(separator: "/") }
    #expect(Set(paths.map(text)) == Set(expected.map(text)))
    #expect(paths.count == expected.count)
    #expect(answer["count"] as? Int == expected.count)
    #expect(answer["complete"] as? Bool == true)
    // Some lie between the ends the preview keeps of an account's transactions.
    let transactions = try #require(
      ((whole["state"] as? [String: Any])?["accounts"] as? [[String: Any]])?.map {
        ($0["transactions"] as? [Any])?.count ?? 0
      })
    let hidden = paths.filter { path in
      guard path.count > 3, let account = path[1] as? Int, let index = path[3] as? Int else {
        return false
      }
      return index >= 50 && index < transactions[account] - 50
    }
    #expect(!hidden.isEmpty)

    let cut = try #require(
      try await studio.get(
        "/api/sessions/banking-session/search", ["at": "3000", "q": "spotify", "limit": "3"]
      ).json() as? [String: Any])
    #expect((cut["paths"] as? [Any])?.count == 3)
    #expect(cut["complete"] as? Bool == false)
    for (query, status) in [
      (["at": "3000"], 400), (["at": "abc", "q": "x"], 400), (["at": "99999", "q": "x"], 404),
      (["at": "3000", "q": "x", "limit": "0"], 400),
    ] {
      let response = try await studio.get("/api/sessions/banking-session/search", query)
      #expect(response.status == status, "\(query)")
      #expect(try response.error() != nil)
    }
  }
}
