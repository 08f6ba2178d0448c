import RetraceLog

@testable import RetraceStudio

/// A session for a test of the server: each request answers `null` (its summary, its id),
/// but for the ones the test's type answers itself.
protocol TestSession: StudioSession {}

extension TestSession {
  func summary() async throws -> JSONValue { .object([("id", .string(id))]) }
  func detail() async throws -> JSONValue { try await summary() }
  func actions(from: UInt64?, to: UInt64?, type: String?, text: String?, limit: Int) async throws
    -> JSONValue
  {
    .null
  }
  func state(at: UInt64?, window: StateWindow?, full: Bool) async throws -> JSONValue { .null }
  func state(at: UInt64?, skipping skipped: Set<UInt64>) async throws -> JSONValue { .null }
  func search(at: UInt64?, query: String, limit: Int) async throws -> JSONValue { .null }
  func diff(from: UInt64?, to: UInt64?) async throws -> JSONValue { .null }
  func bisect(invariant: String) async throws -> JSONValue { .null }
  func bench(repetitions: Int) async throws -> JSONValue { .null }
  func flows() async throws -> JSONValue { .null }
  func lanes(buckets: Int, span: ClosedRange<UInt64>?) async throws -> JSONValue { .null }
  func export(from: UInt64?, to: UInt64?) async throws -> String { "" }
  func shrink(invariant: String) async throws -> JSONValue { .null }
}
