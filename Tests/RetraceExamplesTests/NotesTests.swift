import CasePathsCore
import IdentifiedCollections
import Retrace
import RetraceCoordinator
import RetraceDependencies
import RetraceTesting
import Testing

@testable import RetraceExamples

@MainActor
@Suite struct NotesTests {
  let groceries = Note(id: "n1", title: "Groceries", body: "Milk, eggs.")
  let trip = Note(id: "n2", title: "Trip", body: "Book the train.")

  /// A store on an in-memory server holding the two notes, loaded and showing the list.
  func loadedStore() async -> TestStore<NotesState, NotesAction> {
    let notes = [groceries, trip]
    let store = TestStore(initialState: NotesState(), reducer: NotesReducer.feature) {
      $0.notesClient = .inMemory(notes)
    }
    await store.send(.load) { $0.isLoading = true }
    await store.receive(.loaded(notes: notes)) {
      $0.isLoading = false
      $0.notes = IdentifiedArray(uniqueElements: notes)
    }
    return store
  }

  @Test func theSearchRunsOnceTypingStops() async {
    let store = await loadedStore()
    await store.send(.queryChanged(query: "m")) { $0.query = "m" }
    await store.advance(by: .milliseconds(100))
    await store.send(.queryChanged(query: "mi")) { $0.query = "mi" }
    await store.advance(by: .milliseconds(100))
    await store.send(.queryChanged(query: "mil")) { $0.query = "mil" }
    await store.advance(by: .milliseconds(299))
    #expect(store.receivedActions.isEmpty)
    await store.advance(by: .milliseconds(1))
    await store.receive(.searched(query: "mil", ids: ["n1"])) {
      $0.results = SearchResults(query: "mil", ids: ["n1"])
    }
    await store.finish()
  }

  @Test func anAnswerToAnOlderQueryIsDropped() async {
    let store = await loadedStore()
    await store.send(.queryChanged(query: "tr")) { $0.query = "tr" }
    await store.send(.searched(query: "t", ids: ["n2"]))
    await store.advance(by: .milliseconds(300))
    await store.receive(\.searched) { $0.results = SearchResults(query: "tr", ids: ["n2"]) }
    await store.finish()
  }

  @Test func clearingTheSearchCancelsIt() async {
    let store = await loadedStore()
    await store.send(.queryChanged(query: "eggs")) { $0.query = "eggs" }
    await store.send(.queryChanged(query: "")) { $0.query = "" }
    await store.advance(by: .seconds(1))
    await store.finish()
  }

  @Test func theSyncLoadsEveryThirtySecondsUntilStopped() async {
    let store = await loadedStore()
    await store.send(.startSync)
    await store.advance(by: .seconds(30))
    await store.receive(.syncTick) {
      $0.syncs = 1
      $0.isLoading = true
    }
    await store.receive(\.loaded) { $0.isLoading = false }
    await store.send(.stopSync)
    await store.advance(by: .seconds(120))
    await store.finish()
  }

  @Test func theEditSheetSavesWithItsOwnEffect() async {
    let store = await loadedStore()
    await store.send(.navigation(action: .push(route: .detail(id: "n1")))) {
      $0.navigation.apply(.push(route: .detail(id: "n1")), rules: NotesFlow.rules)
    }
    await store.send(.navigation(action: .present(route: .edit(id: "n1"), style: .sheet))) {
      $0.navigation.apply(.present(route: .edit(id: "n1"), style: .sheet), rules: NotesFlow.rules)
      $0.editor = EditorState(note: groceries)
    }
    await store.send(.editor(action: .binding(.set(\.note.title, "Shopping")))) {
      $0.editor?.note.title = "Shopping"
    }
    await store.send(.editor(action: .saveTapped)) { $0.editor?.isSaving = true }
    var saved = groceries
    saved.title = "Shopping"
    await store.receive(.editor(action: .saved(note: saved))) {
      $0.notes[id: "n1"] = saved
      $0.navigation.apply(.dismiss, rules: NotesFlow.rules)
      $0.editor = nil
    }
    await store.finish()
  }

  @Test func aFailedSaveKeepsTheSheetOpenWithTheError() async {
    let store = await loadedStore()
    store.exhaustivity = .off
    await store.send(.navigation(action: .push(route: .detail(id: "n2"))))
    await store.send(.navigation(action: .present(route: .edit(id: "n2"), style: .sheet)))
    store.exhaustivity = .on
    let failing = NotesReducer.feature.dependency(
      \.notesClient,
      NotesClient(
        load: { [] }, search: { _ in [] },
        save: { _ in throw NotesTestError.offline }))
    let failingStore = TestStore(initialState: store.state, reducer: failing)
    await failingStore.send(.editor(action: .saveTapped)) { $0.editor?.isSaving = true }
    await failingStore.receive(\.editor) {
      $0.editor?.isSaving = false
      $0.editor?.saveError = "offline"
    }
    #expect(failingStore.state.presentedEditID == "n2")
    await failingStore.finish()
  }

  @Test func dismissingTheSheetCancelsItsSave() async {
    let store = await loadedStore()
    store.exhaustivity = .off
    await store.send(.navigation(action: .push(route: .detail(id: "n1"))))
    await store.send(.navigation(action: .present(route: .edit(id: "n1"), style: .sheet)))
    store.exhaustivity = .on
    // A server that answers only after 10 seconds on the test clock.
    let slow = NotesReducer.feature.transformDependency {
      @Dependency(\.continuousClock) var clock
      $0.notesClient.save = { note in
        try await clock.sleep(for: .seconds(10))
        return note
      }
    }
    let sheet = TestStore(initialState: store.state, reducer: slow)
    await sheet.send(.editor(action: .saveTapped)) { $0.editor?.isSaving = true }
    await sheet.send(.navigation(action: .dismiss)) {
      $0.navigation.apply(.dismiss, rules: NotesFlow.rules)
      $0.editor = nil
    }
    await sheet.advance(by: .seconds(30))
    #expect(sheet.receivedActions.isEmpty)
    await sheet.finish()
  }

  @Test func editingANoteOtherThanTheOneShownIsRefused() async {
    let store = await loadedStore()
    store.exhaustivity = .off
    await store.send(.navigation(action: .push(route: .detail(id: "n1"))))
    await store.send(.navigation(action: .present(route: .edit(id: "n2"), style: .sheet)))
    #expect(store.state.navigation.lastRefusal?.reason == .presentNotAllowed)
    #expect(store.state.editor == nil)
    #expect(store.state.presentedEditID == nil)
  }

  @Test func aDeepLinkOpensTheEditSheetOfTheNoteItNames() throws {
    let path = try NotesFlow.links.path(for: "notes://notes/n2/edit", rules: NotesFlow.rules)
    #expect(path.stack == [.list, .detail(id: "n2")])
    #expect(path.presentations == [Presentation(.edit(id: "n2"), style: .sheet)])
  }

  @Test func anEffectThatUsesTheServerWithoutATestValueFails() async {
    let store = TestStore(initialState: NotesState(), reducer: NotesReducer.feature)
    await withKnownIssue {
      await store.send(.load) { $0.isLoading = true }
      await store.receive(\.loadFailed) {
        $0.isLoading = false
        $0.loadError = "unimplemented"
      }
    } matching: {
      $0.description.contains("NotesClient.load")
    }
    store.exhaustivity = .off
    await store.finish()
  }

  @Test func everyInvariantHoldsOnGeneratedSessions() throws {
    for seed in 1...20 {
      var state = NotesState()
      var random = SeededRandom(seed: UInt64(seed))
      let workload = try #require(notesDomain.workload)
      for step in 0..<400 {
        let action = workload.next(state, step, &random)
        _ = notesDomain.reduce(into: &state, action: action)
        for invariant in notesInvariants {
          #expect(invariant.holds(state), "seed \(seed), step \(step): \(invariant.name)")
        }
      }
    }
  }
}

enum NotesTestError: Error, CustomStringConvertible {
  case offline
  var description: String { "offline" }
}
