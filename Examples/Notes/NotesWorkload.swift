import Retrace
import RetraceCoordinator

/// Realistic sessions for the notes domain.
///
/// The generator plays a user and answers for the server, as the effects would: it opens the
/// app (`load`, `startSync`), types searches a keystroke at a time and, once typing stops,
/// answers the debounced search (now and then an older query's answer arrives late, which the
/// reducer drops), opens notes, edits them in the sheet keystroke by keystroke, saves (the
/// server fails one save in ten), cancels some edits, and lets the periodic sync fire.
public enum NotesWorkload {
  /// The workload of ``notesDomain``.
  public static let workload = Workload<NotesState, NotesAction> { state, step, random in
    next(state, step: step, random: &random)
  }

  static func next(_ state: NotesState, step: Int, random: inout SeededRandom) -> NotesAction {
    if step == 0 { return .load }
    if step == 1 { return .startSync }
    let roll = Int.random(in: 0..<100, using: &random)

    // The server answers what is in flight first, as the effects would.
    if state.isLoading {
      if roll < 8 { return .loadFailed(message: "The network connection was lost.") }
      return .loaded(notes: serverNotes(state))
    }
    if let editor = state.editor, editor.isSaving {
      if roll < 10 {
        return .editor(action: .saveFailed(message: "The server returned status 503."))
      }
      return .editor(action: .saved(note: editor.note))
    }
    if !state.query.isEmpty, state.results == nil, state.navigation.visibleRoute == .list,
      let word = words.first(where: { $0.hasPrefix(state.query) && $0.count > state.query.count }),
      roll < 70
    {
      // Typing on, faster than the search waits: no search runs between these keystrokes.
      return .queryChanged(query: String(word.prefix(state.query.count + 1)))
    }
    if !state.query.isEmpty, state.results == nil, roll < 85 {
      // Typing stopped: the debounced search answers (rarely, a stale answer comes first).
      if roll < 3, state.query.count > 1 {
        let older = String(state.query.dropLast())
        return .searched(query: older, ids: matches(older, in: state))
      }
      return .searched(query: state.query, ids: matches(state.query, in: state))
    }
    if roll == 99 { return .syncTick }

    switch state.navigation.visibleRoute {
    case .list:
      switch roll {
      case 0..<35:
        return .queryChanged(query: typing(after: state.query, random: &random))
      case 35..<45 where !state.query.isEmpty:
        return .queryChanged(query: "")
      case 45..<85 where !state.notes.isEmpty:
        let shown = state.results.map { Set($0.ids) }
        let candidates = state.notes.filter { shown?.contains($0.id) ?? true }
        guard let note = candidates.randomElement(using: &random) ?? state.notes.first else {
          return .load
        }
        return .navigation(action: .push(route: .detail(id: note.id)))
      default:
        return .queryChanged(query: typing(after: state.query, random: &random))
      }
    case .detail(let id):
      if roll < 55 { return .navigation(action: .present(route: .edit(id: id), style: .sheet)) }
      return .navigation(action: .pop)
    case .edit:
      guard let editor = state.editor else { return .navigation(action: .dismiss) }
      switch roll {
      case 0..<45:
        return .editor(action: .binding(.set(\.note.body, editor.note.body + word(&random))))
      case 45..<60:
        return .editor(action: .binding(.set(\.note.title, editor.note.title + word(&random))))
      case 60..<85:
        return .editor(action: .saveTapped)
      default:
        return .navigation(action: .dismiss)
      }
    }
  }

  /// The notes as the server has them: the app's, plus a new one now and then.
  private static func serverNotes(_ state: NotesState) -> [Note] {
    var notes = state.notes.isEmpty ? Note.samples : Array(state.notes)
    if state.syncs % 4 == 3, notes.count < 40 {
      let n = notes.count + 1
      notes.append(Note(id: "n\(n)", title: "Note \(n)", body: "Written on another device."))
    }
    return notes
  }

  private static func matches(_ query: String, in state: NotesState) -> [String] {
    state.notes.filter { $0.matches(query) }.map(\.id)
  }

  private static let words = ["milk", "train", "coffee", "tram", "eggs", "Lisbon", "timer", "sync"]

  private static func word(_ random: inout SeededRandom) -> String {
    " " + words.randomElement(using: &random)!
  }

  /// The search field after one more keystroke: a backspace, or the first letter of a new
  /// word (the letters after it come while the search waits).
  private static func typing(after query: String, random: inout SeededRandom) -> String {
    if !query.isEmpty, Int.random(in: 0..<3, using: &random) == 0 {
      return String(query.dropLast())
    }
    return String(words.randomElement(using: &random)!.prefix(1))
  }
}
