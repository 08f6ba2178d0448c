import RetraceDebugger
import RetraceLog

/// A file whose head is damaged (a header cut short, with impossible values, or too large),
/// so that no session of it can be read: listed all the same, as damaged, with the error
/// that names the file, the position and the problem; every request for it answers that
/// error (422).
struct DamagedSession: StudioSession {
  let id: String
  /// The file's path, as given.
  let path: String
  let error: TraceError

  /// Whether `error`, from opening a file, is damage to the file rather than a file that
  /// is not there, not a session at all, or not readable here.
  static func isDamage(_ error: TraceError) -> Bool {
    switch error.code {
    case .truncated, .corrupted, .tooLarge, .undecodable: true
    default: false
    }
  }

  /// The session list's entry: `StudioHandler.unreadable(_:_:)`'s, with the file's path.
  func summary() async throws -> any StudioAnswer {
    var listed = StudioHandler.unreadable(self, error)
    listed.file = path
    return listed
  }

  func detail() async throws -> any StudioAnswer { throw error }
  func actions(from: UInt64?, to: UInt64?, type: String?, text: String?, limit: Int)
    async throws -> any StudioAnswer
  { throw error }
  func state(at: UInt64?, window: StateWindow?, full: Bool) async throws -> any StudioAnswer {
    throw error
  }
  func state(at: UInt64?, skipping skipped: Set<UInt64>) async throws -> any StudioAnswer {
    throw error
  }
  func search(at: UInt64?, query: String, limit: Int) async throws -> any StudioAnswer {
    throw error
  }
  func diff(from: UInt64?, to: UInt64?) async throws -> any StudioAnswer { throw error }
  func bisect(invariant: String) async throws -> any StudioAnswer { throw error }
  func bench(repetitions: Int) async throws -> any StudioAnswer { throw error }
  func flows() async throws -> any StudioAnswer { throw error }
  func lanes(buckets: Int, span: ClosedRange<UInt64>?) async throws -> any StudioAnswer {
    throw error
  }
  func export(from: UInt64?, to: UInt64?) async throws -> String { throw error }
  func shrink(invariant: String) async throws -> any StudioAnswer { throw error }
}
