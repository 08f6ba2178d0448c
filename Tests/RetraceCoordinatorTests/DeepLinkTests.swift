import PropertyBased
import RetraceCoordinator
import RetraceExamples
import Testing

@Suite("Deep links")
struct DeepLinkTests {
  let links = PostsFlow.links
  let rules = PostsFlow.rules

  @Test func aLinkParsesIntoAFullPath() throws {
    #expect(
      try links.path(for: "app://posts/42", rules: rules)
        == RoutePath(tab: "feed", stack: [.postList, .postDetail(id: 42)]))
    #expect(
      try links.path(for: "app://posts/42/share", rules: rules)
        == RoutePath(
          tab: "feed", stack: [.postList, .postDetail(id: 42)],
          presentations: [Presentation(.share)]))
    #expect(
      try links.path(for: "app://settings/about", rules: rules)
        == RoutePath(tab: "settings", stack: [.settings, .about]))
    // Scheme case, an empty authority, a trailing slash, a query and a fragment do not matter.
    #expect(
      try links.path(for: "APP:///posts/42/?from=mail#top", rules: rules)
        == RoutePath(tab: "feed", stack: [.postList, .postDetail(id: 42)]))
  }

  @Test func theParsedPathNavigates() throws {
    var state = PostsState()
    let reducer = PostsReducer(loader: { [] })
    let path = try links.path(for: "app://posts/7/share", rules: rules)
    _ = reducer.reduce(into: &state, action: .navigation(action: .setPath(path: path)))
    #expect(state.navigation.lastRefusal == nil)
    #expect(state.navigation.visibleRoute == .share)
    #expect(state.detail(7) != nil)
  }

  struct Failure: CustomTestStringConvertible {
    var url: String
    var code: CoordinatorError.Code
    var index: Int?
    var segment: String?
    var testDescription: String { url }
  }

  @Test(arguments: [
    Failure(url: "app://posts/abc", code: .invalidParameter, index: 1, segment: "abc"),
    Failure(url: "app://posts/42/comments", code: .unknownSegment, index: 2, segment: "comments"),
    Failure(url: "app://settings/42", code: .forbidden, index: 1, segment: "42"),
    Failure(url: "app://about", code: .forbidden, index: 0, segment: "about"),
    Failure(url: "app://posts/share", code: .forbidden, index: 1, segment: "share"),
    Failure(url: "app://posts/1/share/about", code: .forbidden, index: 3, segment: "about"),
    Failure(url: "app://posts/%zz", code: .malformedURL, index: 1, segment: "%zz"),
    Failure(url: "web://posts", code: .wrongScheme),
    Failure(url: "posts/42", code: .malformedURL),
    Failure(url: "app://", code: .emptyPath),
  ])
  func aBadLinkSaysWhichSegmentFailed(_ failure: Failure) throws {
    let error = try #require(throws: CoordinatorError.self) {
      try links.path(for: failure.url, rules: rules)
    }
    #expect(error.code == failure.code)
    #expect(error.segmentIndex == failure.index)
    #expect(error.segment == failure.segment)
  }

  @Test func errorsExplainThemselves() throws {
    let forbidden = try #require(throws: CoordinatorError.self) {
      try links.path(for: "app://settings/42", rules: rules)
    }
    #expect(forbidden.refusalReason == "pushNotAllowed")
    #expect(
      forbidden.description
        == #"forbidden at segment 1 "42": push from settings to postDetail refused: no rule lets settings push postDetail"#
    )
    let unknown = try #require(throws: CoordinatorError.self) {
      try links.path(for: "app://posts/42/comments", rules: rules)
    }
    #expect(unknown.message == #"no route matches "comments" after postDetail"#)
    let invalid = try #require(throws: CoordinatorError.self) {
      try links.path(for: "app://posts/abc", rules: rules)
    }
    #expect(invalid.message == #""abc" is not a valid parameter of postDetail"#)
  }

  @Test func withoutRulesALinkOnlyHasToMatch() throws {
    let path = try links.path(for: "app://about/42/share")
    #expect(
      path
        == RoutePath(
          tab: nil, stack: [.about, .postDetail(id: 42)], presentations: [Presentation(.share)]))
  }

  @Test func aPathBecomesALink() throws {
    #expect(
      try links.url(for: RoutePath(stack: [.postList, .postDetail(id: 42)])) == "app://posts/42")
    #expect(try links.url(for: PostsFlow.initialNavigation.path) == "app://posts")
    let unlinkable = try #require(throws: CoordinatorError.self) {
      try links.url(
        for: RoutePath(
          stack: [.postList], presentations: [Presentation(.share, style: .fullScreen)]))
    }
    #expect(unlinkable.code == .unlinkable)
    #expect(unlinkable.message == "the table has no entry for share presented as a fullScreen")
  }

  @Test func parametersArePercentEncoded() throws {
    let iban = "DE89 3704/0044 ü"
    let path = RoutePath<BankingRoute>(
      stack: [.accounts, .account(iban: iban)],
      presentations: [Presentation(.newTransaction(iban: iban))])
    let url = try BankingRoute.links.url(for: path)
    #expect(
      url
        == "bank://accounts/DE89%203704%2F0044%20%C3%BC/transactions/new/DE89%203704%2F0044%20%C3%BC"
    )
    #expect(try BankingRoute.links.path(for: url, rules: BankingRoute.rules) == path)
    #expect(
      try BankingRoute.links.path(for: "bank://accounts/new", rules: BankingRoute.rules)
        == RoutePath(stack: [.accounts], presentations: [Presentation(.newAccount)]))
    // A transaction sheet only from an account's screen, in links too.
    let error = try #require(throws: CoordinatorError.self) {
      try BankingRoute.links.path(
        for: "bank://accounts/transactions/new/DE89", rules: BankingRoute.rules)
    }
    #expect(error.code == .forbidden)
    #expect(error.segmentIndex == 1)
  }

  /// Every path reachable by random navigation reads back from its link unchanged.
  @Test func pathsRoundTripThroughLinks() async throws {
    await propertyCheck(input: Gen.int(in: 0...10_000).array(of: 0...40)) { seeds in
      var nav = PostsFlow.initialNavigation
      for seed in seeds {
        nav.apply(postsNavigationAction(seed), rules: rules)
        let path = nav.path
        if path.presentations.allSatisfy({ $0.style == .sheet }) {
          let url = try links.url(for: path)
          #expect(try links.path(for: url, rules: rules) == path, "\(url)")
        } else {
          #expect(throws: CoordinatorError.self) { try links.url(for: path) }
        }
      }
    }
  }

  /// Every link made of known segments either parses, and then writes back the same, or
  /// fails with a segment index inside the link.
  @Test func linksRoundTripThroughPaths() async throws {
    let words = ["posts", "settings", "about", "share", "1", "42", "x", "%41"]
    await propertyCheck(input: Gen.int(in: 0..<words.count).array(of: 1...5)) { indices in
      let url = "app://" + indices.map { words[$0] }.joined(separator: "/")
      do {
        let path = try links.path(for: url, rules: rules)
        let again = try links.url(for: path)
        #expect(try links.path(for: again, rules: rules) == path)
      } catch let error as CoordinatorError {
        if let index = error.segmentIndex { #expect(index < indices.count) }
      }
    }
  }
}

@Suite("Deep links whose patterns repeat earlier segments")
struct OverlappingDeepLinkTests {
  @Test func aPatternMayBeginWithTheSegmentsOfTheRouteBefore() throws {
    // `notes/:id` after `notes`: the note's pattern repeats the list's segment.
    let path = try Notes.links.path(for: "notes://notes/n1/edit/n1", rules: Notes.rules)
    #expect(
      path
        == RoutePath(
          stack: [.list, .detail(id: "n1")],
          presentations: [Presentation(.edit(id: "n1"), style: .sheet)]))
    #expect(try Notes.links.url(for: path) == "notes://notes/n1/edit/n1")
    #expect(
      try Notes.links.path(for: "notes://notes/n1", rules: Notes.rules)
        == RoutePath(stack: [.list, .detail(id: "n1")]))
    #expect(
      try Notes.links.path(for: "notes://notes", rules: Notes.rules)
        == RoutePath(stack: [.list]))
  }

  @Test func aLaterPatternMayReuseTheParameterOfAnEarlierSegment() throws {
    // The edit sheet's pattern is the note's path and one more segment: `:id` is the note's.
    let links = RouteTable<NotesRoute>(scheme: "notes")
      .route(.list, pattern: "notes")
      .route(
        "detail", pattern: "notes/:id",
        build: { .detail(id: $0[0]) },
        parameters: { if case .detail(let id) = $0 { [id] } else { nil } }
      )
      .route(
        "edit", pattern: "notes/:id/edit", presentedAs: .sheet,
        build: { .edit(id: $0[0]) },
        parameters: { if case .edit(let id) = $0 { [id] } else { nil } })
    let path = try links.path(for: "notes://notes/n1/edit", rules: Notes.rules)
    #expect(
      path
        == RoutePath(
          stack: [.list, .detail(id: "n1")],
          presentations: [Presentation(.edit(id: "n1"), style: .sheet)]))
    #expect(try links.url(for: path) == "notes://notes/n1/edit")
  }

  @Test func aParameterNamedTwiceInAPatternHasOneValue() throws {
    let links = RouteTable<NotesRoute>(scheme: "notes")
      .route(.list, pattern: "notes")
      .route(
        "detail", pattern: "notes/:id",
        build: { .detail(id: $0[0]) },
        parameters: { if case .detail(let id) = $0 { [id] } else { nil } }
      )
      .route(
        "edit", pattern: "notes/:id/edit/:id", presentedAs: .sheet,
        build: { $0[0] == $0[1] ? .edit(id: $0[0]) : nil },
        parameters: { if case .edit(let id) = $0 { [id, id] } else { nil } })
    let path = try links.path(for: "notes://notes/n1/edit/n1", rules: Notes.rules)
    #expect(path.visibleRoute == .edit(id: "n1"))
    #expect(try links.url(for: path) == "notes://notes/n1/edit/n1")
    let error = try #require(throws: CoordinatorError.self) {
      try links.path(for: "notes://notes/n1/edit/n2", rules: Notes.rules)
    }
    #expect(error.code == .unknownSegment)
    #expect(error.segmentIndex == 2)
  }

  @Test func aPatternThatMatchesAtTheNextSegmentWinsOverOneThatRepeats() throws {
    // The posts links have no overlapping patterns: they read as before.
    #expect(
      try PostsFlow.links.path(for: "app://posts/42/share", rules: PostsFlow.rules)
        == RoutePath(
          tab: "feed", stack: [.postList, .postDetail(id: 42)],
          presentations: [Presentation(.share)]))
    let error = try #require(throws: CoordinatorError.self) {
      try Notes.links.path(for: "notes://notes/n1/n2", rules: Notes.rules)
    }
    #expect(error.code == .unknownSegment)
    #expect(error.segmentIndex == 2)
  }
}
