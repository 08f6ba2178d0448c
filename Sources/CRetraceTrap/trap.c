// One line on stderr when a Swift runtime error (an overflow, a nil unwrapped, an index out
// of range: a trap) stops the process, saying what it was doing. A signal handler may call
// only async-signal-safe functions: it writes with write(2) strings set up beforehand.
#include "retrace_trap.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char program_name[128] = "retrace";
static const char *volatile process_context = NULL;
static __thread const char *volatile thread_context = NULL;

void retrace_trap_report_set_thread_context(const char *context) { thread_context = context; }

const char *retrace_trap_report_thread_context(void) { return thread_context; }

void retrace_trap_report_set_process_context(const char *context) { process_context = context; }

static void write_text(const char *text) {
  if (text == NULL) return;
  size_t length = strlen(text);
  while (length > 0) {
    ssize_t written = write(STDERR_FILENO, text, length);
    if (written <= 0) return;
    text += written;
    length -= (size_t)written;
  }
}

static void report(int signal_number) {
  const char *name = signal_number == SIGILL    ? "SIGILL"
                     : signal_number == SIGTRAP ? "SIGTRAP"
                     : signal_number == SIGBUS  ? "SIGBUS"
                     : signal_number == SIGFPE  ? "SIGFPE"
                                                : "SIGSEGV";
  write_text(program_name);
  write_text(": stopped by a Swift runtime error (");
  write_text(name);
  write_text(")");
  const char *context = thread_context != NULL ? thread_context : process_context;
  if (context != NULL) {
    write_text(" while ");
    write_text(context);
  }
  write_text(": an overflow, a nil unwrapped or an index out of range, most often in a "
             "domain's reducer; run with SWIFT_BACKTRACE=enable=yes for where\n");
  // SA_RESETHAND put the default action back: the signal, raised again, ends the process
  // as it would have ended.
  raise(signal_number);
}

void retrace_trap_report_install(const char *program) {
  const char *backtrace = getenv("SWIFT_BACKTRACE");
  if (backtrace != NULL && backtrace[0] != '\0') return;
  if (program != NULL) {
    strncpy(program_name, program, sizeof(program_name) - 1);
    program_name[sizeof(program_name) - 1] = '\0';
  }
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = report;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_NODEFER;
  int signals[] = {SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV};
  for (size_t index = 0; index < sizeof(signals) / sizeof(signals[0]); index++) {
    sigaction(signals[index], &action, NULL);
  }
}
