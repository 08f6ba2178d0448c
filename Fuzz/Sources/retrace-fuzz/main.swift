// The libFuzzer harness over Retrace's readers. The target to run is chosen by the
// environment variable RETRACE_FUZZ_TARGET: `trace` (the default), `chunk` or `record`
// (see Targets.swift). Run it with scripts/dev/fuzz; docs/RELIABILITY.md has the details.
//
// SwiftPM renames an executable's `main` (so that tests can import it), which hides the
// `main` of libFuzzer; this one hands the command line to libFuzzer's driver instead.
import CFuzzSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

enum FuzzTarget: String {
  case trace, chunk, record
}

let name = getenv("RETRACE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
guard let target = name.isEmpty ? .trace : FuzzTarget(rawValue: name) else {
  let message = "retrace-fuzz: unknown RETRACE_FUZZ_TARGET '\(name)' (trace, chunk or record)\n"
  _ = message.withCString { write(2, $0, strlen($0)) }
  exit(2)
}

let callbacks: [FuzzTarget: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt] = [
  .trace: { start, count in
    Targets.trace(count == 0 ? [] : Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
  },
  .chunk: { start, count in
    Targets.chunk(count == 0 ? [] : Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
  },
  .record: { start, count in
    Targets.record(count == 0 ? [] : Array(UnsafeBufferPointer(start: start, count: count)))
    return 0
  },
]

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, callbacks[target]!))
