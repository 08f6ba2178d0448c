import Foundation
import Retrace
import RetraceCLI
import RetraceDebugger
import RetraceLog
import Synchronization
import Testing

@testable import RetraceStudio

/// An action that counts how often it is decoded: how often a JSON Lines file is parsed.
enum CountedAction: Codable, Sendable, Equatable {
  case tick(step: Int)

  /// Decodings of every `CountedAction` so far.
  static let decodings = Mutex(0)

  private enum Keys: String, CodingKey { case tick }
  private enum TickKeys: String, CodingKey { case step }

  init(from decoder: any Decoder) throws {
    Self.decodings.withLock { $0 += 1 }
    let tick = try decoder.container(keyedBy: Keys.self)
      .nestedContainer(keyedBy: TickKeys.self, forKey: .tick)
    self = .tick(step: try tick.decode(Int.self, forKey: .step))
  }

  func encode(to encoder: any Encoder) throws {
    guard case .tick(let step) = self else { return }
    var container = encoder.container(keyedBy: Keys.self)
    var tick = container.nestedContainer(keyedBy: TickKeys.self, forKey: .tick)
    try tick.encode(step, forKey: .step)
  }
}

/// A sum of ticks, whose actions count their decodings.
struct CountedReducer: Reducer, Sendable {
  func reduce(into state: inout Int, action: CountedAction) -> Effect<CountedAction> {
    if case .tick(let step) = action { state &+= step }
    return .none
  }
}

let countedDomain = DomainDefinition(
  name: "counted", summary: "Ticks that count how often they are decoded.", initialState: 0,
  reducer: CountedReducer(), actionCases: ["tick"])

@Suite struct JSONLinesSessionTests {
  /// A JSON Lines session is parsed once: pages of actions, states and diffs are read from
  /// the parsed session, not from the file again.
  @Test func aJSONLinesSessionIsParsedOnce() async throws {
    let count = 1_000
    let session = RecordedSession(
      domain: countedDomain, actions: (1...count).map { CountedAction.tick(step: $0) })
    var text = try JSONLines.headerLine(for: session, domain: countedDomain) + "\n"
    let writer = JSONLines.ActionWriter<CountedAction>()
    for action in session.actions { text += try writer.line(for: action) + "\n" }
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("studio-jsonl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("ticks.jsonl").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))

    let catalog = try SessionCatalog.open(
      [path], key: nil, registry: DomainRegistry([countedDomain]), flows: [])
    let served = try #require(catalog.session("ticks"))
    let before = CountedAction.decodings.withLock { $0 }
    for from in stride(from: 1, through: count, by: 200) {
      let page = try await served.actions(
        from: UInt64(from), to: UInt64(from + 199), type: nil, text: nil, limit: 200)
      let body = try JSONSerialization.jsonObject(with: Data(page.text.utf8)) as? [String: Any]
      #expect((body?["actions"] as? [Any])?.count == 200)
    }
    _ = try await served.state(at: 500, window: nil, full: false)
    _ = try await served.diff(from: 10, to: 900)
    let decoded = CountedAction.decodings.withLock { $0 } - before
    // Each action once (a summary made in the background may parse the file once more).
    #expect(decoded <= 2 * count, "\(decoded) decodings of \(count) actions")
  }
}
