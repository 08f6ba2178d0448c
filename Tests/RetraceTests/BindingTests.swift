import Foundation
import IssueReporting
import Retrace
import RetraceTesting
import Synchronization
import Testing

/// A note editor: a form whose fields are edited with binding actions.
struct NoteForm: Codable, Equatable, Sendable {
  enum Color: String, Codable, Equatable, Sendable { case plain, yellow, blue }
  struct Reminder: Codable, Equatable, Sendable {
    var minutes: Int
    var repeats: Bool
  }

  var title = ""
  var isPinned = false
  var priority = 0
  var fontSize = 14.0
  var color = Color.plain
  var tags: [String] = []
  var dueDate: Date? = nil
  var reminder: Reminder? = nil
  /// Not declared bindable: only the reducer sets it.
  var isSaveEnabled = false
  /// Not declared bindable either, though a form could edit it.
  var body = ""
}

extension NoteForm: BindableState {
  static let bindings = Bindings<NoteForm>()
    .field("title", \.title)
    .field("isPinned", \.isPinned)
    .field("priority", \.priority)
    .field("fontSize", \.fontSize)
    .field("color", \.color)
    .field("tags", \.tags)
    .field("dueDate", \.dueDate)
    .field("reminder", \.reminder)
}

enum NoteFormAction: BindableAction, Codable, Equatable, Sendable {
  case binding(BindingAction<NoteForm>)
  case save

  var binding: BindingAction<NoteForm>? {
    if case .binding(let action) = self { action } else { nil }
  }
}

/// The feature's own reducer: it reacts to a title edit, after ``BindingReducer`` set it.
struct NoteFormReducer: Reducer, Sendable {
  func reduce(into state: inout NoteForm, action: NoteFormAction) -> Effect<NoteFormAction> {
    switch action {
    case .binding(\.title):
      state.isSaveEnabled = !state.title.isEmpty
    case .binding:
      break
    case .save:
      state.isSaveEnabled = false
    }
    return .none
  }
}

let noteFormReducer = BindingReducer().combined(with: NoteFormReducer())

/// One binding action of each supported value type, and the JSON its payload encodes as.
let bindingSamples: [(action: BindingAction<NoteForm>, json: String)] = [
  (.set(\.title, "Groceries"), #"{"field":"title","value":"Groceries"}"#),
  (.set(\.isPinned, true), #"{"field":"isPinned","value":true}"#),
  (.set(\.priority, -3), #"{"field":"priority","value":-3}"#),
  (.set(\.fontSize, 17.5), #"{"field":"fontSize","value":17.5}"#),
  (.set(\.color, .yellow), #"{"field":"color","value":"yellow"}"#),
  (.set(\.tags, ["home", "weekly"]), #"{"field":"tags","value":["home","weekly"]}"#),
  (
    .set(\.dueDate, Date(timeIntervalSinceReferenceDate: 86_400)),
    #"{"field":"dueDate","value":86400}"#
  ),
  (.set(\.dueDate, nil), #"{"field":"dueDate","value":null}"#),
  (
    .set(\.reminder, NoteForm.Reminder(minutes: 15, repeats: false)),
    #"{"field":"reminder","value":{"minutes":15,"repeats":false}}"#
  ),
  (.set(\.reminder, nil), #"{"field":"reminder","value":null}"#),
]

private func json(_ value: some Encodable) throws -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  return String(decoding: try encoder.encode(value), as: UTF8.self)
}

private func decodingError(_ json: String) -> DecodingError? {
  do {
    _ = try JSONDecoder().decode(NoteFormAction.self, from: Data(json.utf8))
    return nil
  } catch {
    return error as? DecodingError
  }
}

private func message(_ error: DecodingError?) -> String {
  switch error {
  case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?,
    .keyNotFound(_, let context)?, .dataCorrupted(let context)?:
    context.debugDescription
  default:
    "no decoding error"
  }
}

@Suite struct BindingTests {
  @Test(arguments: bindingSamples.indices)
  func aBindingActionEncodesAsItsFieldAndTheValuesOwnEncoding(index: Int) throws {
    let (action, expected) = bindingSamples[index]
    #expect(try json(action) == expected)
    #expect(try json(NoteFormAction.binding(action)) == #"{"binding":{"_0":"# + expected + "}}")
  }

  @Test(arguments: bindingSamples.indices)
  func aBindingActionRoundTripsThroughJSONAndCBOR(index: Int) throws {
    let action = NoteFormAction.binding(bindingSamples[index].action)
    let fromJSON = try JSONDecoder().decode(NoteFormAction.self, from: JSONEncoder().encode(action))
    #expect(fromJSON == action)
    let fromCBOR = try CBORDecoder().decode(
      NoteFormAction.self, from: CBOREncoder().encode(action))
    #expect(fromCBOR == action)
    var live = NoteForm()
    var decoded = NoteForm()
    bindingSamples[index].action.apply(to: &live)
    fromCBOR.binding?.apply(to: &decoded)
    #expect(decoded == live)
  }

  @Test func equalityComparesTheFieldAndTheValue() {
    let title = BindingAction<NoteForm>.set(\.title, "a")
    #expect(title == .set(\.title, "a"))
    #expect(title != .set(\.title, "b"))
    #expect(BindingAction<NoteForm>.set(\.priority, 1) != .set(\.fontSize, 1))
    #expect(title.field == "title")
    #expect(title.description == #"title = "a""#)
  }

  @Test func anUnknownFieldIsADecodingErrorNamingItAndTheDeclaredOnes() throws {
    let error = decodingError(#"{"binding":{"_0":{"field":"body","value":"x"}}}"#)
    guard case .dataCorrupted(let context)? = error else {
      Issue.record("expected dataCorrupted, got \(String(describing: error))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["binding", "_0", "field"])
    #expect(
      context.debugDescription
        == #""body" is not a bindable field of NoteForm (it declares "title", "isPinned", "#
        + #""priority", "fontSize", "color", "tags", "dueDate", "reminder")"#)
  }

  @Test func aValueOfTheWrongTypeIsATypeMismatchNamingTheField() throws {
    let error = decodingError(#"{"binding":{"_0":{"field":"isPinned","value":"yes"}}}"#)
    guard case .typeMismatch(let type, let context)? = error else {
      Issue.record("expected typeMismatch, got \(String(describing: error))")
      return
    }
    #expect(type is Bool.Type)
    #expect(context.codingPath.map(\.stringValue) == ["binding", "_0", "value"])
    #expect(
      context.debugDescription.hasPrefix(
        #"field "isPinned" of NoteForm holds Bool, and the value is not one ("#))
    // A struct's value with a field missing is reported the same way.
    let reminder = decodingError(
      #"{"binding":{"_0":{"field":"reminder","value":{"minutes":5}}}}"#)
    #expect(
      message(reminder).hasPrefix(
        #"field "reminder" of NoteForm holds Optional<Reminder>, and the value is not one ("#))
  }

  @Test func aMissingFieldOrValueIsAKeyNotFoundError() {
    #expect(
      message(decodingError(#"{"binding":{"_0":{"field":"title"}}}"#))
        == #"binding of field "title" of NoteForm has no value"#)
    guard case .keyNotFound(let key, _)? = decodingError(#"{"binding":{"_0":{"value":"x"}}}"#)
    else {
      Issue.record("expected keyNotFound")
      return
    }
    #expect(key.stringValue == "field")
  }

  @Test func aNameDeclaredTwiceIsReportedAndTheFirstDeclarationStays() {
    var bindings: Bindings<NoteForm>?
    withKnownIssue {
      bindings = Bindings<NoteForm>().field("title", \.title).field("title", \.body)
    } matching: { issue in
      issue.description.contains(#"the field name "title" is declared twice"#)
    }
    #expect(bindings?.names == ["title"])
  }

  @Test func aKeyPathDeclaredTwiceIsReportedAndTheFirstDeclarationStays() {
    var bindings: Bindings<NoteForm>?
    withKnownIssue {
      bindings = Bindings<NoteForm>().field("title", \.title).field("heading", \.title)
    } matching: { issue in
      issue.description.contains(
        #"the field "heading" has the key path of the field "title", declared first"#)
    }
    #expect(bindings?.names == ["title"])
  }

  @Test func anUndeclaredKeyPathIsReportedAndStillSetsTheValue() throws {
    var action: BindingAction<NoteForm>?
    withKnownIssue {
      action = .set(\.body, "draft")
    } matching: { issue in
      issue.description.contains(
        #"\NoteForm.body is not a bindable field of NoteForm: declare it in NoteForm.bindings"#)
    }
    let undeclared = try #require(action)
    var state = NoteForm()
    undeclared.apply(to: &state)
    #expect(state.body == "draft")
    // What it records cannot be read back: the reader says which field is unknown.
    let encoded = try JSONEncoder().encode(NoteFormAction.binding(undeclared))
    #expect(
      message(decodingError(String(decoding: encoded, as: UTF8.self))).hasPrefix(
        #""\NoteForm.body" is not a bindable field of NoteForm"#))
  }

  @Test func bindingReducerSetsTheFieldAndLetsOtherActionsPass() {
    var state = NoteForm(title: "old", isSaveEnabled: true)
    _ = BindingReducer<NoteForm, NoteFormAction>().reduce(into: &state, action: .save)
    #expect(state == NoteForm(title: "old", isSaveEnabled: true))
    _ = BindingReducer<NoteForm, NoteFormAction>().reduce(
      into: &state, action: .binding(.set(\.title, "new")))
    #expect(state.title == "new")
  }

  @Test func theBindingActionCaseEmbedsAndExtracts() {
    let binding = ActionCase<NoteFormAction, BindingAction<NoteForm>>.binding
    #expect(binding.embed(.set(\.isPinned, true)) == .binding(.set(\.isPinned, true)))
    #expect(binding.extract(.binding(.set(\.priority, 2))) == .set(\.priority, 2))
    #expect(binding.extract(.save) == nil)
  }

  @MainActor @Test func aStoreAppliesBindingsBeforeTheFeaturesReducer() {
    let store = Store(initialState: NoteForm(), reducer: noteFormReducer)
    store.send(.binding(.set(\.title, "Groceries")))
    #expect(store.state.title == "Groceries")
    #expect(store.state.isSaveEnabled)
    store.send(.binding(.set(\.color, .blue)))
    #expect(store.state.color == .blue)
    #expect(store.sequence == 2)
  }

  @MainActor @Test func writingAFieldThroughTheStoreSendsOneBindingAction() {
    let store = Store(initialState: NoteForm(), reducer: noteFormReducer)
    let recorder = EditLog()
    store.attach(recorder)
    store.title = "Groceries"
    store.isPinned = true
    #expect(
      recorder.actions.withLock { $0 } == [
        .binding(.set(\.title, "Groceries")), .binding(.set(\.isPinned, true)),
      ])
    #expect(store.title == "Groceries")
    #expect(store.state.isSaveEnabled)
  }

  /// SwiftUI's `$store.title` (`@Bindable`) writes through this key path.
  @MainActor @Test func aDeclaredFieldIsAReferenceWritableKeyPathOfTheStore() {
    let store = Store(initialState: NoteForm(), reducer: noteFormReducer)
    let title: ReferenceWritableKeyPath<Store<NoteForm, NoteFormAction>, String> = \.title
    store[keyPath: title] = "Groceries"
    #expect(store[keyPath: title] == "Groceries")
    #expect(store.sequence == 1)
  }

  @MainActor @Test func writingAnUndeclaredFieldThroughTheStoreIsReported() {
    let store = Store(initialState: NoteForm(), reducer: noteFormReducer)
    withKnownIssue {
      store.body = "draft"
    } matching: { issue in
      issue.description.contains("\\NoteForm.body is not a bindable field of NoteForm")
    }
    #expect(store.state.body == "draft")
  }

  @MainActor @Test func aTestStoreAssertsABindingLikeAnyAction() async {
    let store = TestStore(initialState: NoteForm(), reducer: noteFormReducer)
    await store.send(.binding(.set(\.title, "x"))) {
      $0.title = "x"
      $0.isSaveEnabled = true
    }
    await store.send(.binding(.set(\.tags, ["a"]))) { $0.tags = ["a"] }
    await store.send(.save) { $0.isSaveEnabled = false }
    await store.finish()
  }
}

/// A recorder that keeps the actions it is given.
final class EditLog: StoreRecorder {
  let actions = Mutex<[NoteFormAction]>([])
  func record(_ transition: Transition<NoteForm, NoteFormAction>) {
    actions.withLock { $0.append(transition.action) }
  }
}
