import RetraceLog

@testable import RetraceStudio

/// A session for a test of the server: each request answers `null` (its summary, its id),
/// but for the ones the test's type answers itself.
protocol TestSession: StudioSession {}

extension TestSession {
  func summary() async throws -> any StudioAnswer { TestAnswer(.object([("id", .string(id))])) }
  func detail() async throws -> any StudioAnswer { try await summary() }
  func actions(from: UInt64?, to: UInt64?, type: String?, text: String?, limit: Int) async throws
    -> any StudioAnswer
  {
    TestAnswer(.null)
  }
  func state(at: UInt64?, window: StateWindow?, full: Bool) async throws -> any StudioAnswer {
    TestAnswer(.null)
  }
  func state(at: UInt64?, skipping skipped: Set<UInt64>) async throws -> any StudioAnswer {
    TestAnswer(.null)
  }
  func search(at: UInt64?, query: String, limit: Int) async throws -> any StudioAnswer {
    TestAnswer(.null)
  }
  func diff(from: UInt64?, to: UInt64?) async throws -> any StudioAnswer { TestAnswer(.null) }
  func bisect(invariant: String) async throws -> any StudioAnswer { TestAnswer(.null) }
  func bench(repetitions: Int) async throws -> any StudioAnswer { TestAnswer(.null) }
  func flows() async throws -> any StudioAnswer { TestAnswer(.null) }
  func lanes(buckets: Int, span: ClosedRange<UInt64>?) async throws -> any StudioAnswer {
    TestAnswer(.null)
  }
  func export(from: UInt64?, to: UInt64?) async throws -> String { "" }
  func shrink(invariant: String) async throws -> any StudioAnswer { TestAnswer(.null) }
}

/// What a test session answers: any JSON.
struct TestAnswer: StudioAnswer {
  var json: JSONValue

  init(_ json: JSONValue) {
    self.json = json
  }

  func encode(to encoder: any Encoder) throws {
    try EncodedJSON(json.text).encode(to: encoder)
  }
}
