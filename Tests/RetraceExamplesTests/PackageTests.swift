import Foundation
import Retrace
import RetraceExamples
import RetraceTesting
import Testing

@MainActor
@Suite struct PackageTests {
  static let ada = Recipient(
    firstName: "Ada", lastName: "Lovelace", postalAddress: "12 St James's Square, London")

  func holds(_ state: PackageState) -> Bool {
    packageDomain.invariant(named: "summary-matches-model")!.holds(state)
  }

  @Test func theSummaryDescribesTheParcel() {
    #expect(Parcel().summary == "To no one at no address: 0 items")
    #expect(
      Parcel(recipient: Self.ada, contents: ["Book", "Tea"]).summary
        == "To Ada Lovelace at 12 St James's Square, London: 2 items")
    #expect(
      Parcel(recipient: Recipient(lastName: "Hopper"), contents: ["Mug"]).summary
        == "To Hopper at no address: 1 item")
  }

  @Test func everyChangeFromTheFormOrFromOutsideRefreshesTheSummary() async {
    let store = TestStore(initialState: PackageState(), reducer: PackageReducer())
    await store.send(.edit(field: .firstName, value: "Ada")) {
      $0.parcel.recipient.firstName = "Ada"
      $0.summary = "To Ada at no address: 0 items"
    }
    await store.send(.addItem(name: "Book")) {
      $0.parcel.contents = ["Book"]
      $0.summary = "To Ada at no address: 1 item"
    }
    let outside = Parcel(recipient: Self.ada, contents: ["Book", "Tea"])
    await store.send(.externalChange(parcel: outside)) {
      $0.parcel = outside
      $0.summary = "To Ada Lovelace at 12 St James's Square, London: 2 items"
    }
    await store.send(.removeItem(index: 0)) {
      $0.parcel.contents = ["Tea"]
      $0.summary = "To Ada Lovelace at 12 St James's Square, London: 1 item"
    }
    await store.send(.removeItem(index: 1))
    await store.send(.removeItem(index: -1))
    #expect(holds(store.state))
    await store.finish()
  }

  @Test func summaryMatchesModelFailsOnASummaryTheParcelNoLongerHas() {
    var state = PackageState(parcel: Parcel(recipient: Self.ada))
    #expect(holds(state))
    // A change that went around the reducer's refresh, as an outside change applied by hand.
    state.parcel.contents.append("Book")
    #expect(!holds(state))
  }

  /// The form and the outside record, kept in step by the adapter: the record's changes are
  /// recorded as externalChange, the form's are written to the record, and a replay of the
  /// recorded actions gives the live state.
  @Test func theAdapterKeepsTheFormAndTheRecordInStepAndTheSessionReplays() {
    let store = Store(initialState: PackageState(), reducer: PackageReducer())
    let capture = Capture<PackageState, PackageAction>()
    store.attach(capture)
    let record = ParcelRecord()
    let adapter = ExternalModelAdapter(
      store: store, state: \.parcel, model: record, keyPath: \.parcel,
      externalChange: { .externalChange(parcel: $0) })

    store.send(.edit(field: .firstName, value: "Ada"))
    store.send(.addItem(name: "Book"))
    #expect(record.firstName == "Ada")
    #expect(record.contents == ["Book"])

    record.postalAddress = "Damrak 1, Amsterdam"
    record.contents.append("Tea")
    #expect(store.state.parcel.recipient.postalAddress == "Damrak 1, Amsterdam")
    #expect(store.state.summary == "To Ada at Damrak 1, Amsterdam: 2 items")

    store.send(.removeItem(index: 0))
    #expect(record.contents == ["Tea"])

    let actions = capture.actions.value
    #expect(
      actions.map { actionCaseName(of: $0) } == [
        "edit", "addItem", "externalChange", "externalChange", "removeItem",
      ])
    var replayed = PackageState()
    for action in actions { _ = PackageReducer().reduce(into: &replayed, action: action) }
    #expect(replayed == store.state)
    #expect(holds(store.state))
    _ = adapter
  }

  @Test func theWorkloadIsDeterministicAndMixesFormAndOutsideChanges() {
    let (actions, final) = packageDomain.generate(count: 1_000, seed: 4)
    #expect(packageDomain.generate(count: 1_000, seed: 4).actions == actions)
    #expect(packageDomain.generate(count: 1_000, seed: 5).actions != actions)
    #expect(Set(actions.map { actionCaseName(of: $0) }) == Set(packageDomain.actionCases))
    #expect(holds(final))
    // Every outside change changes the parcel, as the adapter records only changes.
    var state = packageDomain.initialState
    for action in actions {
      let before = state.parcel
      _ = packageDomain.reduce(into: &state, action: action)
      if case .externalChange = action { #expect(state.parcel != before) }
    }
  }

  @Test func actionsEncodeAsTheDocumentedJSON() throws {
    let json = #"{"addItem":{"name":"Book"}}"#
    let action = PackageAction.addItem(name: "Book")
    #expect(try JSONDecoder().decode(PackageAction.self, from: Data(json.utf8)) == action)
    #expect(
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(action)) as? NSDictionary
        == JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
  }
}
