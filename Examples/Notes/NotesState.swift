import IdentifiedCollections
import Retrace
import RetraceCoordinator

/// The notes example's state.
public struct NotesState: Codable, Hashable, Sendable {
  /// The notes, as last loaded or saved.
  public internal(set) var notes: IdentifiedArrayOf<Note> = []
  /// Whether a load is in flight.
  public internal(set) var isLoading = false
  /// Why the last load failed, until the next one succeeds.
  public internal(set) var loadError: String?
  /// The search field's text.
  public internal(set) var query = ""
  /// The server's answer to ``query``; `nil` while the query is empty or its answer has not
  /// come yet.
  public internal(set) var results: SearchResults?
  /// How many times the periodic sync has fired.
  public internal(set) var syncs = 0
  /// The list, a note's detail and its edit sheet.
  public internal(set) var navigation = NavigationState(root: NotesRoute.list)
  /// The edit sheet's state, while it is presented.
  public internal(set) var editor: EditorState?

  /// Creates the state of a freshly opened app: no notes yet, the list shown.
  public init() {}

  /// The note the edit sheet shows, if it is presented.
  public var presentedEditID: String? {
    for presentation in navigation.presentations {
      if case .edit(let id)? = presentation.stack.last { return id }
    }
    return nil
  }
}

/// The server's answer to a search.
public struct SearchResults: Codable, Hashable, Sendable {
  /// The query it answers.
  public var query: String
  /// The matching notes' identifiers.
  public var ids: [String]
}

/// The edit sheet's state: a copy of the note being edited, and its save.
///
/// Its two fields are bindable: every keystroke is one `binding` action, recorded with the
/// field's name (`{"field":"title","value":"Groceries"}`).
public struct EditorState: Codable, Hashable, Sendable, BindableState {
  /// The note as edited so far.
  public var note: Note
  /// Whether a save is in flight.
  public var isSaving = false
  /// Why the last save failed.
  public var saveError: String?

  /// Creates an editor for `note`.
  public init(note: Note) {
    self.note = note
  }

  /// The fields a binding action may set: the note's title and text.
  public static let bindings = Bindings<EditorState>()
    .field("title", \.note.title)
    .field("body", \.note.body)
}
