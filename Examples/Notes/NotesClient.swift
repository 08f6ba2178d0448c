import RetraceDependencies

/// The notes server, as the notes example's effects reach it: through swift-dependencies,
/// `@Dependency(\.notesClient)`.
///
/// The reducer never calls it: only its effects do, and what they get back comes into the
/// store as actions (`loaded`, `searched`, `saved`, …), so a recorded session replays
/// without a server.
public struct NotesClient: Sendable {
  /// Loads every note.
  public var load: @Sendable () async throws -> [Note]
  /// The identifiers of the notes that match a query.
  public var search: @Sendable (_ query: String) async throws -> [String]
  /// Saves a note and returns it as the server stored it.
  public var save: @Sendable (_ note: Note) async throws -> Note

  /// Creates a client from its three endpoints.
  public init(
    load: @escaping @Sendable () async throws -> [Note],
    search: @escaping @Sendable (_ query: String) async throws -> [String],
    save: @escaping @Sendable (_ note: Note) async throws -> Note
  ) {
    self.load = load
    self.search = search
    self.save = save
  }

  /// A server held in memory, starting with `notes`: what the example runs on, having no
  /// network of its own.
  public static func inMemory(_ notes: [Note] = Note.samples) -> NotesClient {
    let storage = LockIsolated(notes)
    return NotesClient(
      load: { storage.value },
      search: { query in storage.value.filter { $0.matches(query) }.map(\.id) },
      save: { note in
        storage.withValue { notes in
          if let index = notes.firstIndex(where: { $0.id == note.id }) {
            notes[index] = note
          } else {
            notes.append(note)
          }
        }
        return note
      })
  }
}

extension NotesClient: DependencyKey {
  /// The in-memory server.
  public static let liveValue = NotesClient.inMemory()
  /// Fails the test that uses an endpoint it did not provide.
  public static let testValue = NotesClient(
    load: unimplemented("NotesClient.load"),
    search: unimplemented("NotesClient.search"),
    save: unimplemented("NotesClient.save"))
}

extension DependencyValues {
  /// The notes server.
  public var notesClient: NotesClient {
    get { self[NotesClient.self] }
    set { self[NotesClient.self] = newValue }
  }
}
