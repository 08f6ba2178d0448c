import CRetraceTrap
import Foundation

/// The line `retrace` writes when a Swift runtime error (a trap: an overflow, a nil
/// unwrapped, an index out of range), most often in a domain's reducer, stops it:
/// `retrace: stopped by a Swift runtime error (SIGILL) while answering GET /api/…: …`.
///
/// Swift cannot recover from a trap, so the process still ends, with the signal; the line
/// says what it was doing, in place of a stack trace. With `SWIFT_BACKTRACE` set, the Swift
/// runtime's stack trace is printed instead (``install(program:)`` does nothing). Written in
/// C (`CRetraceTrap`): a signal handler may only call what is safe in one, which Swift
/// code cannot promise.
package enum TrapReport {
  /// What the current task is doing (`answering GET /api/sessions/x/state?at=2`), for the
  /// line when a trap stops the process on one of the threads it runs work on.
  @TaskLocal package static var context: String?

  /// Installs the handlers, naming `program` in the line.
  package static func install(program: String) {
    retrace_trap_report_install(program)
  }

  /// Says what the process is doing, for a trap on a thread that says nothing itself.
  package static func setProcessContext(_ context: String) {
    // Kept for the process's life: the handler may read it at any moment.
    retrace_trap_report_set_process_context(strdup(context))
  }

  /// This thread's context, as the line would say it.
  package static var threadContext: String? {
    retrace_trap_report_thread_context().map { String(cString: $0) }
  }

  /// Runs `body` with this thread's context set to `context`, then cleared.
  package static func running<T>(_ context: String?, _ body: () throws -> T) rethrows -> T {
    guard let context else { return try body() }
    return try context.withCString { pointer in
      retrace_trap_report_set_thread_context(pointer)
      defer { retrace_trap_report_set_thread_context(nil) }
      return try body()
    }
  }
}
