// A process that records a banking session as fast as it can and reports on stdout how
// many `send`s have returned, so that a test can kill it with SIGKILL at a random moment
// and check what the trace kept. Not installed: the crash test in RetraceLogTests runs it.
import CRetraceTrap
import Foundation
import Retrace
import RetraceExamples
import RetraceLog

//
// With `--actions N` it records N actions with the default configuration instead (with
// `--flush`, then flushes), prints `ready`, and waits to be killed: an app's short session
// that crashes before its first chunk is full.
let arguments = Array(CommandLine.arguments.dropFirst())
// With `--trap CONTEXT` it overflows an integer, as a domain's reducer might, with the trap
// report installed and CONTEXT as what the process is doing: the line it writes, and the
// signal it ends with, are what `retrace` does.
if arguments.count == 2, arguments[0] == "--trap" {
  retrace_trap_report_install("retrace-crash-child")
  retrace_trap_report_set_process_context(strdup(arguments[1]))
  let big = Int(arguments[1].count) + Int.max - 1
  print(big + 1)
  exit(0)
}
guard
  arguments.count == 1
    || (arguments.count >= 3 && arguments[1] == "--actions" && Int(arguments[2]) != nil)
else {
  FileHandle.standardError.write(
    Data("usage: retrace-crash-child TRACE [--actions N [--flush]]\n".utf8))
  exit(2)
}
let path = arguments[0]
if arguments.count >= 3 {
  MainActor.assumeIsolated {
    do {
      let recorder = try TraceRecorder(path: path, domain: bankingDomain)
      let store = Store(initialState: bankingDomain.initialState, reducer: BankingReducer())
      store.attach(recorder)
      var random = SeededRandom(seed: 11)
      for step in 0..<Int(arguments[2])! {
        store.send(bankingDomain.workload!.next(store.state, step, &random))
      }
      if arguments.contains("--flush") { try recorder.flush() }
      _ = "ready\n".withCString { write(1, $0, strlen($0)) }
      while true { sleep(60) }
    } catch {
      FileHandle.standardError.write(Data("retrace-crash-child: \(error)\n".utf8))
      exit(1)
    }
  }
}
MainActor.assumeIsolated {
  do {
    var configuration = TraceRecorderConfiguration()
    configuration.chunkSize = 64 << 10
    // The trace format to write, when the test asks for one.
    if let format = ProcessInfo.processInfo.environment["RETRACE_CRASH_CHILD_FORMAT"] {
      configuration.formatVersion = UInt16(format) ?? 0
    }
    let recorder = try TraceRecorder(
      path: path, domain: bankingDomain, configuration: configuration)
    let store = Store(initialState: bankingDomain.initialState, reducer: BankingReducer())
    store.attach(recorder)
    var random = SeededRandom(seed: 11)
    var step = 0
    while true {
      for _ in 0..<10 {
        store.send(bankingDomain.workload!.next(store.state, step, &random))
        step += 1
      }
      // Every send up to `step` has returned.
      let line = "\(step)\n"
      _ = line.withCString { write(1, $0, strlen($0)) }
      if step % 500 == 0 {
        // Everything up to `step` is durable, whenever the kill comes.
        try recorder.flush()
        let flushed = "flushed \(step)\n"
        _ = flushed.withCString { write(1, $0, strlen($0)) }
      }
      usleep(5_000)  // about 2,000 actions a second: far above what a person does
    }
  } catch {
    FileHandle.standardError.write(Data("retrace-crash-child: \(error)\n".utf8))
    exit(1)
  }
}
