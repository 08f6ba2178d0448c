/// A note in the notes example.
public struct Note: Codable, Equatable, Hashable, Identifiable, Sendable {
  /// The note's identifier, given by the server (`n1`, `n2`, …).
  public var id: String
  /// The title shown in the list.
  public var title: String
  /// The text.
  public var body: String

  /// Creates a note.
  public init(id: String, title: String, body: String) {
    self.id = id
    self.title = title
    self.body = body
  }

  /// Whether the title or the text contains `query`, ignoring case: what the server's search
  /// answers.
  public func matches(_ query: String) -> Bool {
    title.localizedStandardContains(query) || body.localizedStandardContains(query)
  }

  /// The notes a new account starts with.
  public static let samples = [
    Note(id: "n1", title: "Groceries", body: "Milk, eggs, bread, coffee."),
    Note(id: "n2", title: "Trip to Lisbon", body: "Book the train; ask Ana about the tram."),
    Note(id: "n3", title: "Ideas", body: "A coffee timer; notes that sync."),
  ]
}
