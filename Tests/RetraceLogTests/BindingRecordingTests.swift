import Foundation
import Retrace
import Testing

@testable import RetraceLog

/// A sign-up form edited field by field with binding actions.
private struct SignUpForm: Codable, Equatable, Sendable, BindableState {
  var name = ""
  var age = 0
  var newsletter = false
  var nameIsValid = false

  static let bindings = Bindings<SignUpForm>()
    .field("name", \.name)
    .field("age", \.age)
    .field("newsletter", \.newsletter)
}

private enum SignUpAction: BindableAction, Codable, Equatable, Sendable {
  case binding(BindingAction<SignUpForm>)
  case submit

  var binding: BindingAction<SignUpForm>? {
    if case .binding(let action) = self { action } else { nil }
  }
}

private let signUpDomain = DomainDefinition(
  name: "sign-up", summary: "A sign-up form.", initialState: SignUpForm(),
  reducer: BindingReducer().combined(
    with: Reduce<SignUpForm, SignUpAction> { state, action in
      if case .binding(\.name) = action { state.nameIsValid = state.name.count >= 2 }
      return .none
    }),
  sampleActions: [.binding(.set(\.name, "")), .submit])

/// Binding actions go through the real recorder and come back as the same actions.
@MainActor
@Suite struct BindingRecordingTests {
  fileprivate let edits: [SignUpAction] = [
    .binding(.set(\.name, "A")), .binding(.set(\.name, "Ada")), .binding(.set(\.age, 36)),
    .binding(.set(\.newsletter, true)), .submit,
  ]

  private func recordSession() throws -> (path: String, state: SignUpForm) {
    let path = temporaryDirectory() + "/sign-up.trace"
    let store = Store(
      initialState: signUpDomain.initialState,
      reducer: Reduce { signUpDomain.reduce(into: &$0, action: $1) },
      clock: .fixed(start: 1_763_771_000, interval: 0.25))
    let recorder = try TraceRecorder(
      path: path, domain: signUpDomain, sessionID: "sign-up-1", startTime: 1_763_771_000)
    store.attach(recorder)
    for edit in edits { store.send(edit) }
    try recorder.close()
    return (path, store.state)
  }

  @Test func everyEditIsOneRecordedActionThatDecodesEqualAndReplays() throws {
    let (path, live) = try recordSession()
    #expect(live == SignUpForm(name: "Ada", age: 36, newsletter: true, nameIsValid: true))
    let reader = try TraceReader(path: path)
    #expect(reader.integrity.status == .clean)
    #expect(reader.actionCount == edits.count)
    let trace = try TraceSession(reader, domain: signUpDomain)
    #expect(try trace.actions().map(\.action) == edits)
    #expect(try trace.state(at: UInt64(edits.count)) == live)
  }

  /// The session as `retrace export --format jsonl` writes it.
  private func jsonLines() throws -> String {
    let (path, _) = try recordSession()
    let session = try TraceSession(try TraceReader(path: path), domain: signUpDomain).session()
    var text = try JSONLines.headerLine(for: session, domain: signUpDomain) + "\n"
    let writer = JSONLines.ActionWriter<SignUpAction>()
    for action in session.actions { text += try writer.line(for: action) + "\n" }
    return text
  }

  @Test func anExportShowsTheFieldAndTheValue() throws {
    let lines = try jsonLines().split(separator: "\n")
    #expect(
      lines[2]
        == #"{"seq":2,"time":1763771000.5,"action":{"binding":{"_0":{"field":"name","value":"Ada"}}}}"#
    )
  }

  private func importError(_ text: String) -> TraceError? {
    do {
      _ = try JSONLines.readSession(from: Data(text.utf8), domain: signUpDomain, path: "s.jsonl")
      return nil
    } catch {
      return error
    }
  }

  @Test func anEditedExportWithAnUnknownFieldIsAnUndecodableActionNamingIt() throws {
    let text = try jsonLines().replacingOccurrences(
      of: #""field":"age""#, with: #""field":"years""#)
    let error = try #require(importError(text))
    #expect(error.code == .undecodable)
    #expect(error.line == 4)
    #expect(
      error.message.contains(
        #""years" is not a bindable field of SignUpForm (it declares "name", "age", "newsletter")"#),
      "\(error)")
  }

  @Test func anEditedExportWithAValueOfTheWrongTypeIsAnUndecodableActionNamingTheField() throws {
    let text = try jsonLines().replacingOccurrences(of: #""value":36"#, with: #""value":"36""#)
    let error = try #require(importError(text))
    #expect(error.code == .undecodable)
    #expect(error.line == 4)
    #expect(
      error.message.contains(#"field "age" of SignUpForm holds Int, and the value is not one"#),
      "\(error)")
  }
}
