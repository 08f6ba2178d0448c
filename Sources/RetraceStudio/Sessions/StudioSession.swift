import Foundation
import Retrace
import RetraceDebugger
import RetraceLog
import Synchronization

/// A session the Studio shows, whatever it comes from: a file now, a running app's session
/// streamed to the Studio later. The page reads every session through these requests, so a
/// session that is not a file needs only to answer them.
protocol StudioSession: Sendable {
  /// The session's id in the API's paths: its file's name, made unique.
  var id: String { get }
  /// What `GET /api/sessions` lists for it.
  func summary() async throws -> any StudioAnswer
  /// `GET /api/sessions/{id}`: the summary with the domain's invariants and action cases.
  func detail() async throws -> any StudioAnswer
  /// `GET …/actions`: those of case `type` whose label or JSON contains `text` (ignoring
  /// case), when given.
  func actions(from: UInt64?, to: UInt64?, type: String?, text: String?, limit: Int)
    async throws -> any StudioAnswer
  /// `GET …/state`: the state's preview, or the part of it at a path, with an array's
  /// window there; or the whole state when `full`.
  func state(at: UInt64?, window: StateWindow?, full: Bool) async throws -> any StudioAnswer
  /// `GET …/state?skip=…`: the state after `at` with the actions in `skipped` left out of
  /// the replay, and what differs from the recorded state there.
  func state(at: UInt64?, skipping skipped: Set<UInt64>) async throws -> any StudioAnswer
  /// `GET …/search`: the paths in the state after `at` whose key or value contains `query`
  /// (ignoring case), at most `limit`.
  func search(at: UInt64?, query: String, limit: Int) async throws -> any StudioAnswer
  /// `GET …/diff`.
  func diff(from: UInt64?, to: UInt64?) async throws -> any StudioAnswer
  /// `GET …/bisect`.
  func bisect(invariant: String) async throws -> any StudioAnswer
  /// `GET …/bench`.
  func bench(repetitions: Int) async throws -> any StudioAnswer
  /// `GET …/flows`.
  func flows() async throws -> any StudioAnswer
  /// `GET …/lanes`: over the actions in `span` (sequence numbers), or all of them.
  func lanes(buckets: Int, span: ClosedRange<UInt64>?) async throws -> any StudioAnswer
  /// `GET …/export`: JSON Lines text.
  func export(from: UInt64?, to: UInt64?) async throws -> String
  /// `GET …/shrink`.
  func shrink(invariant: String) async throws -> any StudioAnswer
}

/// The items of the array at `path` that a request for part of a state asks for.
struct StateWindow: Sendable {
  var path: [PathStep]
  var range: Range<Int>
}
