import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Nanoseconds on the monotonic clock: what the benchmark times with.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}

/// The process's peak resident memory in bytes: `VmHWM` from `/proc/self/status` on Linux,
/// `ru_maxrss` elsewhere; `nil` when neither is available.
func peakMemoryBytes() -> Int? {
  if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      if fields.count >= 2, let kilobytes = Int(fields[1]) { return kilobytes * 1024 }
    }
  }
  var usage = rusage()
  #if canImport(Glibc)
    guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
  #else
    guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
  #endif
  #if canImport(Darwin)
    return Int(usage.ru_maxrss)  // bytes on Darwin
  #else
    return Int(usage.ru_maxrss) * 1024  // kilobytes elsewhere
  #endif
}
