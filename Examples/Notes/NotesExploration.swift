import Retrace
import RetraceCoordinator

/// What `retrace check` may send in a notes state: a load, starting and stopping the sync
/// and its tick, typing one of three queries, the server's answers (to a load in flight,
/// with or without a note written on another device, and to the search for the query shown
/// while it has none), the navigation the visible screen offers (open a loaded note, edit
/// it, back, close the sheet, the deep link to the first note's edit sheet), and on the edit
/// sheet the title changed to ``editedTitle``, Save and the save's two answers while it is
/// in flight.
///
/// At most 15 actions a state. The sync counts its ticks, so ``constraint`` stops exploring
/// after the first: about 29,000 states, searched completely in a few seconds.
public enum NotesExploration {
  /// The server's failure message.
  public static let failure = "The server returned status 503."

  /// The note another device writes, which a load may bring.
  public static let written = Note(
    id: "n4", title: "Tram times", body: "Written on another device.")

  /// The notes the server holds: the samples until the first load, then what the app last
  /// loaded or saved (the server has every save).
  public static func serverNotes(_ state: NotesState) -> [Note] {
    state.notes.isEmpty ? Note.samples : Array(state.notes)
  }

  /// The title an edit gives a note.
  public static let editedTitle = "Shopping"

  /// The queries that may be typed.
  public static let queries = ["", "coffee", "tram"]

  /// The actions that may be sent in `state`.
  @Sendable public static func actions(in state: NotesState) -> [NotesAction] {
    var actions: [NotesAction] = [.load, .startSync, .stopSync, .syncTick]
    let server = serverNotes(state)
    if state.isLoading {
      actions.append(.loaded(notes: server))
      if !server.contains(where: { $0.id == written.id }) {
        actions.append(.loaded(notes: server + [written]))
      }
      actions.append(.loadFailed(message: failure))
    }
    for query in queries where query != state.query {
      actions.append(.queryChanged(query: query))
    }
    if !state.query.isEmpty, state.results == nil {
      let ids = server.filter { $0.matches(state.query) }.map(\.id)
      actions.append(.searched(query: state.query, ids: ids))
    }
    switch state.navigation.visibleRoute {
    case .list:
      for note in state.notes {
        actions.append(.navigation(action: .push(route: .detail(id: note.id))))
      }
      if let first = state.notes.first {
        // The deep link notes://notes/n1/edit.
        let path = RoutePath<NotesRoute>(
          stack: [.list, .detail(id: first.id)],
          presentations: [Presentation(.edit(id: first.id))])
        actions.append(.navigation(action: .setPath(path: path)))
      }
    case .detail(let id):
      actions.append(.navigation(action: .pop))
      actions.append(.navigation(action: .present(route: .edit(id: id), style: .sheet)))
    case .edit:
      actions.append(.navigation(action: .dismiss))
    }
    if let editor = state.editor {
      if editor.note.title != editedTitle {
        actions.append(.editor(action: .binding(.set(\.note.title, editedTitle))))
      }
      if editor.isSaving {
        actions.append(.editor(action: .saved(note: editor.note)))
        actions.append(.editor(action: .saveFailed(message: failure)))
      } else {
        actions.append(.editor(action: .saveTapped))
      }
    }
    return actions
  }

  /// Which states are explored further: those in which the sync ticked at most once.
  @Sendable public static func constraint(_ state: NotesState) -> Bool {
    state.syncs <= 1
  }
}

/// The notes screens, by route name, that `shows-…` predicates name.
public let notesScreens = ["list", "detail", "edit"]

/// Named conditions `retrace check --reach` can search for in a notes state: one for each
/// screen (`shows-edit`, …) and these.
public let notesPredicates: [StatePredicate<NotesState>] =
  [
    StatePredicate("search-answered", "The search shows the server's answer.") {
      $0.results?.ids.isEmpty == false
    },
    StatePredicate("load-failed", "The last load failed.") { $0.loadError != nil },
    StatePredicate("edit-saved", "A note was saved with a new title.") { state in
      state.notes.contains { note in
        Note.samples.first { $0.id == note.id }.map { $0.title != note.title } ?? false
      }
    },
  ] + NavigationChecks.screenPredicates(notesScreens, navigation: { $0.navigation })
