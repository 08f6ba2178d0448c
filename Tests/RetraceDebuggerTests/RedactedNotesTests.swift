import Foundation
import PropertyBased
import Retrace
import RetraceDebugger
import RetraceLog
import RetraceTestSupport
import Testing

/// A notes app whose note bodies and search query are redacted: whatever the user types
/// (a field name, a kept title, a case name), the redacted session verifies under the
/// reducer that recorded it, and is hashed and snapshotted as often as in the clear.
@Suite struct RedactedNotesTests {
  struct Note: Codable, Equatable, Sendable {
    var id: String
    var title: String
    var body: String
  }

  struct Notes: Codable, Equatable, Sendable {
    var notes: [Note] = []
    var shown: String?
    var draft: Note?
    var query = ""
    var results: [String] = []
    var tabs = ["list", "search"]
  }

  enum NotesAction: Codable, Equatable, Sendable {
    case loaded([Note])
    case open(id: String)
    case presentEdit
    case draftChanged(title: String, body: String)
    case save
    case search(String)
  }

  static let reducer = Reduce<Notes, NotesAction> { state, action in
    switch action {
    case .loaded(let notes): state.notes = notes
    case .open(let id): state.shown = id
    case .presentEdit: state.draft = state.notes.first { $0.id == state.shown }
    case .draftChanged(let title, let body):
      state.draft?.title = title
      state.draft?.body = body
    case .save:
      if let draft = state.draft, let index = state.notes.firstIndex(where: { $0.id == draft.id }) {
        state.notes[index] = draft
      }
      state.draft = nil
    case .search(let query):
      // Reads the redacted values beyond equality: a search in the bodies.
      state.query = query
      state.results = state.notes.filter { $0.body.contains(query) || $0.title.contains(query) }
        .map(\.id)
    }
    return .none
  }

  static let domain = DomainDefinition(
    name: "notes", summary: "Notes with redacted bodies and search.", initialState: Notes(),
    reducer: reducer,
    actionCases: ["loaded", "open", "presentEdit", "draftChanged", "save", "search"],
    redaction: RedactionPolicy(
      actions: [
        "loaded._0.*.body": .pseudonymize,
        "draftChanged.body": .pseudonymize,
        "search._0": .pseudonymize,
      ],
      state: ["notes.*.body": .pseudonymize, "draft.body": .pseudonymize, "query": .pseudonymize]))

  /// Records `actions` through a store on the main actor, with the recorder's default
  /// schedule of hashes unless `configure` changes it, and reads the session back.
  @MainActor
  static func record(
    _ actions: [NotesAction], redacted: Bool = true,
    configure: (inout TraceRecorderConfiguration) -> Void = { _ in }
  ) throws -> (RecordedSession<DomainDefinition<Notes, NotesAction>>, TraceReader) {
    let path = try Fixtures.temporaryDirectory().appendingPathComponent("notes.trace").path
    var configuration = TraceRecorderConfiguration()
    if redacted { configuration.redactionKey = RedactionKey(bytes: Array(repeating: 9, count: 32)) }
    configure(&configuration)
    let recorder = try TraceRecorder(path: path, domain: domain, configuration: configuration)
    let store = Store(initialState: Notes(), reducer: reducer)
    store.attach(recorder)
    for action in actions { store.send(action) }
    try recorder.close()
    let reader = try TraceReader(path: path)
    return (try TraceSession(reader, domain: domain).session(), reader)
  }

  static let opening: [NotesAction] = [
    .loaded([
      Note(id: "n1", title: "T", body: "x"), Note(id: "n2", title: "Groceries", body: "milk"),
    ]),
    .open(id: "n1"), .presentEdit,
  ]

  @Test(arguments: [
    // A body equal to a field name, to a kept title, to a case name, to an id.
    ["title"], ["T"], ["draftChanged"], ["n1"], ["body", "title", "T"],
  ])
  @MainActor func aBodyEqualToAnyOtherValueVerifies(bodies: [String]) throws {
    let actions =
      Self.opening + bodies.map { NotesAction.draftChanged(title: "T", body: $0) } + [.save]
    let (session, _) = try Self.record(actions)
    let report = ReplayEngine(domain: Self.domain, session: session).verify()
    #expect(report.isVerified, "\(String(describing: report.divergence))")
    // The kept title stays in the clear; the body is a pseudonym.
    #expect(session.actions.contains { $0.action == .draftChanged(title: "T", body: "x") } == false)
    let replayed = try ReplayEngine(domain: Self.domain, session: session).state(
      at: session.endSequence)
    #expect(replayed.notes.first?.title == "T")
    #expect(replayed.tabs == ["list", "search"])
  }

  @Test(arguments: ["id", "name", "tabs", "T", "Groceries", "milk", "x"])
  @MainActor func aSearchForAnyTextVerifies(query: String) throws {
    let (session, _) = try Self.record(Self.opening + [.search(query), .search(query + "s")])
    let report = ReplayEngine(domain: Self.domain, session: session).verify()
    #expect(report.isVerified, "\(String(describing: report.divergence))")
    #expect(report.uncoveredActions == 0)
  }

  /// Whatever the user types, in any order: field names, kept values, case names and
  /// strings of every kind.
  @Test func anyRedactedSessionVerifies() async {
    let words = [
      "id", "title", "body", "notes", "draft", "query", "tabs", "list", "T", "x", "n1", "n2",
      "Groceries", "milk", "search", "save", "", "Zoë Ångström", "👩‍💻", "a.b", "*", "\"",
    ]
    await propertyCheck(count: 40, input: Gen.int(in: 0...100_000).array(of: 1...30)) { picks in
      let actions = picks.map { pick -> NotesAction in
        let word = pick / 8 % 3 == 0 ? "w\(pick)" : words[pick / 8 % words.count]
        switch pick % 8 {
        case 0: return .open(id: pick % 16 < 8 ? "n1" : "n2")
        case 1: return .presentEdit
        case 2, 3: return .draftChanged(title: words[pick / 64 % words.count], body: word)
        case 4: return .save
        case 5:
          return .loaded([
            Note(id: "n1", title: word, body: word), Note(id: word, title: "T", body: "x"),
          ])
        default: return .search(word)
        }
      }
      let verified = await MainActor.run { () -> Bool in
        guard let (session, _) = try? Self.record(Self.opening + actions) else { return false }
        return ReplayEngine(domain: Self.domain, session: session).verify().isVerified
      }
      #expect(verified, "\(actions)")
    }
  }

  @Test @MainActor func aRedactedSessionIsHashedAndSnapshottedAsOftenAsInTheClear() throws {
    let actions =
      Self.opening
      + (0..<400).map { NotesAction.draftChanged(title: "T", body: "draft \($0)") } + [.save]
    let shorter = { (configuration: inout TraceRecorderConfiguration) in
      configuration.snapshotInterval = 64
      configuration.maxSnapshotShare = 1
    }
    let (clear, clearReader) = try Self.record(actions, redacted: false, configure: shorter)
    let (redacted, redactedReader) = try Self.record(actions, configure: shorter)
    let clearReport = ReplayEngine(domain: Self.domain, session: clear).verify()
    let redactedReport = ReplayEngine(domain: Self.domain, session: redacted).verify()
    #expect(redactedReport.isVerified)
    #expect(
      redactedReport.checkpointsChecked + redactedReport.snapshotsChecked
        >= clearReport.checkpointsChecked + clearReport.snapshotsChecked)
    #expect(redactedReport.checkpointsChecked + redactedReport.snapshotsChecked >= 20)
    // Snapshots after the first: a divergence can be shown as a diff, and seeks are short.
    #expect(redactedReader.chunks.filter(\.startsWithSnapshot).count > 1)
    #expect(
      redactedReader.chunks.filter(\.startsWithSnapshot).count
        >= clearReader.chunks.filter(\.startsWithSnapshot).count)
  }

  @Test @MainActor func aRedactedSnapshotHoldsNoneOfTheTypedBodies() throws {
    let secret = "my secret diary"
    let actions =
      Self.opening + (0..<200).map { NotesAction.draftChanged(title: "T", body: "\(secret) \($0)") }
      + [.save, .search(secret)]
    let path = try Fixtures.temporaryDirectory().appendingPathComponent("notes.trace").path
    var configuration = TraceRecorderConfiguration()
    configuration.redactionKey = RedactionKey(bytes: Array(repeating: 9, count: 32))
    configuration.snapshotInterval = 32
    configuration.maxSnapshotShare = 1
    let recorder = try TraceRecorder(path: path, domain: Self.domain, configuration: configuration)
    let store = Store(initialState: Notes(), reducer: Self.reducer)
    store.attach(recorder)
    for action in actions { store.send(action) }
    try recorder.close()
    let reader = try TraceReader(path: path)
    #expect(reader.chunks.filter(\.startsWithSnapshot).count > 2)
    var content: [UInt8] = []
    try reader.forEachChunk { records throws(TraceError) in
      for record in records { content += Array(record.payload) }
      return true
    }
    #expect(content.count > 1_000)
    #expect(Data(content).range(of: Data(secret.utf8)) == nil)
    #expect(Data(content).range(of: Data("diary".utf8)) == nil)
  }
}
