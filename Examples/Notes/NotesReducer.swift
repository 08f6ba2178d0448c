import IdentifiedCollections
import Retrace
import RetraceCoordinator
import RetraceDependencies

/// The notes example's reducer: a list loaded from a server, a debounced search, a periodic
/// sync, and an edit sheet with its own save.
///
/// Every effect reaches the server through `@Dependency(\.notesClient)` and waits on
/// `@Dependency(\.continuousClock)`, so a test sets both (`TestStore`'s clock is a
/// `TestClock`) and a replay needs neither: what the effects did is in the trace as actions.
public struct NotesReducer: Reducer, Sendable {
  /// The identifiers of the effects, for cancellation.
  public enum EffectID: Hashable, Sendable {
    /// The load in flight.
    case load
    /// The debounced search.
    case search
    /// The periodic sync.
    case sync
  }

  /// How long the search waits for typing to stop.
  public static let searchDelay = Duration.milliseconds(300)
  /// How often the notes sync.
  public static let syncInterval = Duration.seconds(30)

  private let navigation = Scope(
    state: \NotesState.navigation, action: ActionCase(\NotesAction.Cases.navigation),
    child: NavigationReducer(rules: NotesFlow.rules))

  /// Creates the reducer.
  public init() {}

  /// The reducer with the edit sheet's reducer run on ``NotesState/editor``.
  public static var feature: some Reducer<NotesState, NotesAction> & Sendable {
    NotesReducer().ifLet(
      \.editor, action: ActionCase(\.editor),
      then: BindingReducer().combined(with: EditorReducer()))
  }

  /// Applies a notes action.
  public func reduce(into state: inout NotesState, action: NotesAction) -> Effect<NotesAction> {
    @Dependency(\.notesClient) var client
    @Dependency(\.continuousClock) var clock
    switch action {
    case .load, .syncTick:
      if case .syncTick = action { state.syncs += 1 }
      state.isLoading = true
      return .run { send in
        await send(.loaded(notes: try await client.load()))
      } catch: { error, send in
        await send(.loadFailed(message: "\(error)"))
      }
      .cancellable(id: EffectID.load, cancelInFlight: true)

    case .loaded(let notes):
      state.isLoading = false
      state.loadError = nil
      // A note the server sends twice counts once, as its last copy.
      state.notes = IdentifiedArray(notes, id: \.id) { _, last in last }
      return .none

    case .loadFailed(let message):
      state.isLoading = false
      state.loadError = message
      return .none

    case .queryChanged(let query):
      state.query = query
      state.results = nil
      guard !query.isEmpty else { return .cancel(id: EffectID.search) }
      return .run { send in
        await send(.searched(query: query, ids: try await client.search(query)))
      } catch: { _, _ in
        // A failed search leaves the results empty; typing again searches again.
      }
      .debounce(id: EffectID.search, for: Self.searchDelay, clock: clock)

    case .searched(let query, let ids):
      // An answer to an older query (a search still in flight when the text changed) is dropped.
      guard query == state.query else { return .none }
      state.results = SearchResults(query: query, ids: ids)
      return .none

    case .startSync:
      return .timer(id: EffectID.sync, every: Self.syncInterval, clock: clock) { .syncTick }

    case .stopSync:
      return .cancel(id: EffectID.sync)

    case .navigation:
      _ = navigation.reduce(into: &state, action: action)
      syncEditor(&state)
      return .none

    case .editor(.saved(let note)):
      state.notes[id: note.id] = note
      _ = navigation.reduce(into: &state, action: .navigation(action: .dismiss))
      syncEditor(&state)
      return .none

    case .editor:
      return .none
    }
  }

  /// Opens the editor when the edit sheet is presented, and drops it when the sheet goes.
  private func syncEditor(_ state: inout NotesState) {
    guard let id = state.presentedEditID else {
      state.editor = nil
      return
    }
    if state.editor?.note.id != id, let note = state.notes[id: id] {
      state.editor = EditorState(note: note)
    }
  }
}

/// The edit sheet's reducer: its save, an effect of its own. Its fields are set by the
/// `BindingReducer` that runs before it.
public struct EditorReducer: Reducer, Sendable {
  /// Creates the reducer.
  public init() {}

  /// Applies an edit sheet action.
  public func reduce(into state: inout EditorState, action: EditorAction) -> Effect<EditorAction> {
    @Dependency(\.notesClient) var client
    switch action {
    case .binding:
      // BindingReducer, before this reducer, set the field.
      state.saveError = nil
      return .none
    case .saveTapped:
      state.isSaving = true
      state.saveError = nil
      let note = state.note
      return .run { send in
        await send(.saved(note: try await client.save(note)))
      } catch: { error, send in
        await send(.saveFailed(message: "\(error)"))
      }
    case .saved:
      state.isSaving = false
      return .none
    case .saveFailed(let message):
      state.isSaving = false
      state.saveError = message
      return .none
    }
  }
}
