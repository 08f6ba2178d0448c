import CasePathsCore
import Retrace
import RetraceCoordinator

/// The notes example's actions.
///
/// Encoded with labelled values, for example `{"queryChanged":{"query":"mil"}}` or
/// `{"editor":{"action":{"saveTapped":{}}}}`.
public enum NotesAction: Codable, Equatable, Sendable {
  /// Loads the notes.
  case load
  /// The server's notes.
  case loaded(notes: [Note])
  /// The load failed.
  case loadFailed(message: String)
  /// The search field changed; the search runs once typing stops for 300 ms.
  case queryChanged(query: String)
  /// The server's answer to a search.
  case searched(query: String, ids: [String])
  /// Starts the periodic sync (every 30 seconds).
  case startSync
  /// Stops the periodic sync.
  case stopSync
  /// The periodic sync fired: the notes load again.
  case syncTick
  /// A navigation action: pushes, pops, the edit sheet and deep links.
  case navigation(action: NavigationAction<NotesRoute>)
  /// An action of the edit sheet.
  case editor(action: EditorAction)

  /// The names of all the cases.
  public static let caseNames = [
    "load", "loaded", "loadFailed", "queryChanged", "searched", "startSync", "stopSync",
    "syncTick", "navigation", "editor",
  ]
}

/// The edit sheet's actions.
public enum EditorAction: BindableAction, Codable, Equatable, Sendable {
  /// A field changed: one action per keystroke, naming the field.
  case binding(BindingAction<EditorState>)
  /// Saves the note.
  case saveTapped
  /// The server saved it.
  case saved(note: Note)
  /// The save failed.
  case saveFailed(message: String)

  /// The binding action, if this is one.
  public var binding: BindingAction<EditorState>? {
    if case .binding(let action) = self { action } else { nil }
  }
}

/// The case paths of the cases that reducers scope to and tests receive by case, written by
/// hand as swift-case-paths' `@CasePathable` macro would write them (Retrace builds no
/// macros; an app that uses the macro gets this for free): `store.receive(\.loaded)`.
extension NotesAction: CasePathable {
  /// The case paths: `\.loaded`, `\.loadFailed`, `\.searched`, `\.syncTick`, `\.navigation`
  /// and `\.editor`.
  public struct AllCasePaths: Sendable {
    /// `navigation(action:)`.
    public var navigation: AnyCasePath<NotesAction, NavigationAction<NotesRoute>> {
      AnyCasePath(
        embed: { .navigation(action: $0) },
        extract: { if case .navigation(let action) = $0 { action } else { nil } })
    }
    /// `loaded(notes:)`.
    public var loaded: AnyCasePath<NotesAction, [Note]> {
      AnyCasePath(
        embed: { .loaded(notes: $0) },
        extract: { if case .loaded(let notes) = $0 { notes } else { nil } })
    }
    /// `loadFailed(message:)`.
    public var loadFailed: AnyCasePath<NotesAction, String> {
      AnyCasePath(
        embed: { .loadFailed(message: $0) },
        extract: { if case .loadFailed(let message) = $0 { message } else { nil } })
    }
    /// `searched(query:ids:)`.
    public var searched: AnyCasePath<NotesAction, (query: String, ids: [String])> {
      AnyCasePath(
        embed: { .searched(query: $0.query, ids: $0.ids) },
        extract: { if case .searched(let query, let ids) = $0 { (query, ids) } else { nil } })
    }
    /// `syncTick`.
    public var syncTick: AnyCasePath<NotesAction, Void> {
      AnyCasePath(embed: { .syncTick }, extract: { if case .syncTick = $0 { () } else { nil } })
    }
    /// `editor(action:)`.
    public var editor: AnyCasePath<NotesAction, EditorAction> {
      AnyCasePath(
        embed: { .editor(action: $0) },
        extract: { if case .editor(let action) = $0 { action } else { nil } })
    }
  }

  /// The case paths.
  public static var allCasePaths: AllCasePaths { AllCasePaths() }
}
