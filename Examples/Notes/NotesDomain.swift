import Retrace
import RetraceCoordinator

/// The `notes` domain: notes that sync with a server, a debounced search, a periodic sync,
/// and a detail screen whose edit sheet saves with an effect of its own; every effect
/// reaches the server and the clock through swift-dependencies (``NotesClient``).
///
/// A replay runs none of the effects, so it needs no server: the answers are recorded as
/// `loaded`, `searched`, `saved` and the failures.
public let notesDomain = DomainDefinition(
  name: "notes",
  summary:
    "Notes that sync: a server client and a clock as dependencies, a debounced search, a timer and an edit sheet.",
  initialState: NotesState(),
  reducer: NotesReducer.feature,
  actionCases: NotesAction.caseNames,
  invariants: notesInvariants,
  workload: NotesWorkload.workload,
  explorationActions: NotesExploration.actions,
  stateConstraint: NotesExploration.constraint,
  predicates: notesPredicates,
  statesHashEveryField: true
)

/// The notes domain's invariants.
public let notesInvariants: [Invariant<NotesState>] = [
  Invariant(
    "valid-navigation",
    "The stack starts at the list, and a detail presents the edit sheet of its own note only."
  ) {
    $0.navigation.isValid(under: NotesFlow.rules)
  },
  Invariant(
    "editor-matches-sheet",
    "The editor is open exactly while an edit sheet is presented, and edits that sheet's note: no sheet shows nothing."
  ) { state in
    state.editor?.note.id == state.presentedEditID
  },
  Invariant(
    "results-answer-query",
    "Search results, when shown, answer the text in the search field."
  ) {
    $0.results == nil || $0.results?.query == $0.query
  },
  NavigationChecks.returnsToRoot(
    reducer: NotesReducer.feature, navigation: { $0.navigation },
    action: { .navigation(action: $0) }),
]
