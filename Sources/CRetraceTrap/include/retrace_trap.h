#ifndef RETRACE_TRAP_H
#define RETRACE_TRAP_H

/// Installs handlers for the signals a Swift runtime error raises (SIGILL, SIGTRAP, SIGBUS,
/// SIGFPE, SIGSEGV) that write one line to stderr, `PROGRAM: stopped by a Swift runtime
/// error (SIGILL) while CONTEXT: …`, and then end the process with the signal, as it would
/// have ended. Nothing is installed when `SWIFT_BACKTRACE` is set: the Swift runtime's own
/// handler then prints the stack trace asked for.
void retrace_trap_report_install(const char *program);

/// What this thread is doing, for the line: a string that lives until it is replaced, or
/// NULL.
void retrace_trap_report_set_thread_context(const char *context);

/// This thread's context, as last set (for tests).
const char *retrace_trap_report_thread_context(void);

/// What the process is doing, for the line when the thread says nothing: a string that
/// lives until it is replaced, or NULL.
void retrace_trap_report_set_process_context(const char *context);

#endif
