import RetraceCoordinator

/// The screens of the notes example: the list, a note's detail, and the sheet that edits it.
public enum NotesRoute: Routable {
  /// The list of notes, with the search field. The root.
  case list
  /// One note's detail screen.
  case detail(id: String)
  /// The sheet that edits a note, presented from that note's detail.
  case edit(id: String)

  /// The route's node name: `list`, `detail` or `edit`.
  public var name: String {
    switch self {
    case .list: "list"
    case .detail: "detail"
    case .edit: "edit"
    }
  }
}

/// The notes example's navigation rules and deep links.
public enum NotesFlow {
  /// The list pushes a detail, and a detail presents the edit sheet of its own note only:
  /// editing a note other than the one shown is refused.
  public static let rules = FlowRules<NotesRoute>()
    .root("list")
    .allowPush(from: "list", to: "detail")
    .allowPresent(from: "detail", to: "edit") { from, to in
      if case .detail(let shown) = from, case .edit(let edited) = to {
        shown == edited
      } else {
        false
      }
    }

  /// The deep links, written as paths from the root down: `notes://notes`,
  /// `notes://notes/n1` and `notes://notes/n1/edit`, whose edit sheet takes its note from
  /// the segment before it.
  public static let links = RouteTable<NotesRoute>(scheme: "notes")
    .route(.list, pattern: "notes")
    .route(
      "detail", pattern: "notes/:id", build: { .detail(id: $0[0]) },
      parameters: { if case .detail(let id) = $0 { [id] } else { nil } }
    )
    .route(
      "edit", pattern: "notes/:id/edit", presentedAs: .sheet, build: { .edit(id: $0[0]) },
      parameters: { if case .edit(let id) = $0 { [id] } else { nil } })
}
