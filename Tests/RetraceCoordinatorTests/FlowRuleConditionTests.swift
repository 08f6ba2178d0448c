import RetraceCoordinator
import Testing

/// A notes app: a list, a note's screen, and an edit sheet for a note. The names alone
/// would let a note's screen present the edit sheet of any note; the condition allows only
/// the note that is shown.
enum NotesRoute: Routable {
  case list
  case detail(id: String)
  case edit(id: String)

  var name: String {
    switch self {
    case .list: "list"
    case .detail: "detail"
    case .edit: "edit"
    }
  }

  var noteID: String? {
    switch self {
    case .list: nil
    case .detail(let id), .edit(let id): id
    }
  }
}

enum Notes {
  static let rules = FlowRules<NotesRoute>()
    .root("list")
    .allowPush(from: "list", to: "detail")
    .allowPresent(from: "detail", to: "edit") { from, to in from.noteID == to.noteID }

  /// Patterns written as paths from the list down, as a web app writes its routes: a
  /// note's pattern begins with the list's segment.
  static let links = RouteTable<NotesRoute>(scheme: "notes")
    .route(.list, pattern: "notes")
    .route(
      "detail", pattern: "notes/:id",
      build: { .detail(id: $0[0]) },
      parameters: { if case .detail(let id) = $0 { [id] } else { nil } }
    )
    .route(
      "edit", pattern: "edit/:id", presentedAs: .sheet,
      build: { .edit(id: $0[0]) },
      parameters: { if case .edit(let id) = $0 { [id] } else { nil } })

  static var atNoteOne: NavigationState<NotesRoute> {
    var state = NavigationState(root: NotesRoute.list)
    state.apply(.push(route: .detail(id: "n1")), rules: rules)
    return state
  }
}

@Suite("Flow rules with conditions")
struct FlowRuleConditionTests {
  @Test func aConditionRefusesEditingANoteOtherThanTheOneShown() throws {
    var state = Notes.atNoteOne
    let applied = state.apply(.present(route: .edit(id: "n2"), style: .sheet), rules: Notes.rules)
    let refusal = try #require(applied)
    #expect(refusal.reason == .presentNotAllowed)
    #expect(refusal.from == .detail(id: "n1"))
    #expect(refusal.to == .edit(id: "n2"))
    #expect(state.visibleRoute == .detail(id: "n1"))
    #expect(state.refusalCount == 1)

    #expect(state.apply(.present(route: .edit(id: "n1"), style: .sheet), rules: Notes.rules) == nil)
    #expect(state.visibleRoute == .edit(id: "n1"))
  }

  @Test func aConditionSeesBothRoutesOfAPush() {
    let rules = FlowRules<NotesRoute>()
      .root("list")
      .allowPush(from: "list", to: "detail") { _, to in to.noteID?.hasPrefix("n") == true }
    var state = NavigationState(root: NotesRoute.list)
    #expect(state.apply(.push(route: .detail(id: "x9")), rules: rules)?.reason == .pushNotAllowed)
    #expect(state.apply(.push(route: .detail(id: "n9")), rules: rules) == nil)
    #expect(rules.allowsPush(fromName: "list", toName: "detail"))
    #expect(rules.hasCondition(pushFrom: "list", to: "detail"))
    #expect(!rules.hasCondition(presentFrom: "list", to: "detail"))
  }

  @Test func aDeepLinkIsCheckedByTheConditions() throws {
    let error = try #require(throws: CoordinatorError.self) {
      try Notes.links.path(for: "notes://notes/n1/edit/n2", rules: Notes.rules)
    }
    #expect(error.code == .forbidden)
    #expect(error.segmentIndex == 2)
    #expect(error.refusalReason == NavigationRefusal<NotesRoute>.Reason.presentNotAllowed.rawValue)
  }

  @Test func pathsAndValidationCheckConditions() {
    let bad = RoutePath<NotesRoute>(
      stack: [.list, .detail(id: "n1")],
      presentations: [Presentation(.edit(id: "n2"), style: .sheet)])
    var state = NavigationState(root: NotesRoute.list)
    #expect(state.apply(.setPath(path: bad), rules: Notes.rules)?.reason == .presentNotAllowed)

    let unchecked = NavigationState(
      tabs: [NavigationTab<NotesRoute>(name: "main", stack: [.list, .detail(id: "n1")])],
      selectedTab: "main",
      presentations: [Presentation(.edit(id: "n2"), style: .sheet)])
    #expect(!unchecked.isValid(under: Notes.rules))
    #expect(throws: CoordinatorError.self) { try unchecked.validate(rules: Notes.rules) }
  }

  @Test func aRuleWithoutAConditionForTheSamePairAllowsEveryValue() {
    let always: @Sendable (NotesRoute, NotesRoute) -> Bool = { _, _ in false }
    let after = Notes.rules.allowPresent(from: "detail", to: "edit")
    let before = FlowRules<NotesRoute>()
      .root("list")
      .allowPush(from: "list", to: "detail")
      .allowPresent(from: "detail", to: "edit")
      .allowPresent(from: "detail", to: "edit", when: always)
    for rules in [after, before] {
      #expect(rules.allowsPresent(from: .detail(id: "n1"), to: .edit(id: "n2")))
      #expect(!rules.hasCondition(presentFrom: "detail", to: "edit"))
    }
  }

  @Test func severalConditionsForOnePairAllowWhenAnyHolds() {
    let rules = FlowRules<NotesRoute>()
      .root("list")
      .allowPush(from: "list", to: "detail") { _, to in to.noteID == "a" }
      .allowPush(from: "list", to: "detail") { _, to in to.noteID == "b" }
    #expect(rules.allowsPush(from: .list, to: .detail(id: "a")))
    #expect(rules.allowsPush(from: .list, to: .detail(id: "b")))
    #expect(!rules.allowsPush(from: .list, to: .detail(id: "c")))
  }

  @Test func conditionsHoldInTheOpenWorld() {
    let rules = FlowRules<NotesRoute>.allowingEverything
      .allowPresent(from: "detail", to: "edit") { from, to in from.noteID == to.noteID }
    #expect(rules.allowsPresent(from: .list, to: .edit(id: "n2")))
    #expect(rules.allowsPresent(from: .detail(id: "n2"), to: .edit(id: "n2")))
    #expect(!rules.allowsPresent(from: .detail(id: "n1"), to: .edit(id: "n2")))
    var state = NavigationState(root: NotesRoute.list)
    let path = RoutePath<NotesRoute>(
      stack: [.list, .detail(id: "n1")],
      presentations: [Presentation(.edit(id: "n2"), style: .sheet)])
    #expect(state.apply(.setPath(path: path), rules: rules)?.reason == .presentNotAllowed)
  }

  @Test func theAllowedGraphShowsAConditionalRuleAsAnEdge() {
    let graph = FlowGraph.allowed(by: Notes.rules)
    #expect(graph.edges[FlowGraph.Edge(from: "detail", to: "edit", kind: .present)] == 0)
  }
}
