import Foundation
import Synchronization

@testable import RetraceLog

/// Storage in memory that can fail on demand and lose what was not synced, like SQLite's
/// test VFS: the way to test disk-full, I/O errors and power loss without a real disk.
final class SimulatedStorage: TraceStorage {
  struct Faults: Sendable {
    /// Fail every write once this many bytes have been written in total (a full disk).
    var capacity: Int? = nil
    /// Fail the write that would start at or after this many writes.
    var failAtWrite: Int? = nil
    /// Fail `sync`.
    var failSync = false
    /// The write with this number writes its first half, then fails (a torn write).
    var tornWriteAt: Int? = nil
    /// Writes wait while this is set: a disk that stalls the writer.
    var stalled = false
  }

  private struct FileState {
    var bytes: [UInt8] = []
    var durable: [UInt8] = []
  }

  private let files = Mutex<[String: FileState]>([:])
  private let counters = Mutex((writes: 0, bytes: 0, waiting: 0))
  let faults: Mutex<Faults>

  init(faults: Faults = Faults()) {
    self.faults = Mutex(faults)
  }

  func createTrace(at path: String) throws(TraceError) -> any StorageFile {
    files.withLock { $0[path] = FileState() }
    return SimulatedFile(storage: self, path: path)
  }

  func createJournal(at path: String, capacity: Int) throws(TraceError) -> any StorageFile {
    files.withLock {
      $0[path] = FileState(
        bytes: [UInt8](repeating: 0, count: capacity),
        durable: [UInt8](repeating: 0, count: capacity))
    }
    return SimulatedFile(storage: self, path: path)
  }

  func remove(_ path: String) {
    _ = files.withLock { $0.removeValue(forKey: path) }
  }

  /// Writes so far, the failed ones included.
  var writeCount: Int { counters.withLock { $0.writes } }

  /// Whether a write is waiting on a stalled disk.
  var isStalling: Bool { counters.withLock { $0.waiting > 0 } }

  fileprivate func write(_ bytes: UnsafeRawBufferPointer, at offset: Int, path: String)
    throws(TraceError)
  {
    if faults.withLock({ $0.stalled }) {
      counters.withLock { $0.waiting += 1 }
      while faults.withLock({ $0.stalled }) { usleep(1_000) }
      counters.withLock { $0.waiting -= 1 }
    }
    let faults = self.faults.withLock { $0 }
    let (writes, total) = counters.withLock { c in
      c.writes += 1
      return (c.writes, c.bytes)
    }
    if let failAt = faults.failAtWrite, writes >= failAt {
      throw TraceError(
        .io, "cannot write: Input/output error (simulated)", path: path, offset: offset)
    }
    if faults.tornWriteAt == writes {
      let part = bytes.count / 2
      apply(UnsafeRawBufferPointer(rebasing: bytes[0..<part]), at: offset, path: path)
      counters.withLock { $0.bytes += part }
      throw TraceError(
        .io, "cannot write: Input/output error after \(part) bytes (simulated)", path: path,
        offset: offset + part)
    }
    if let capacity = faults.capacity, total + bytes.count > capacity {
      // A full disk accepts part of the write, then fails.
      let part = max(0, capacity - total)
      apply(UnsafeRawBufferPointer(rebasing: bytes[0..<part]), at: offset, path: path)
      counters.withLock { $0.bytes += part }
      throw TraceError(
        .io, "cannot write: No space left on device (simulated)", path: path, offset: offset + part)
    }
    apply(bytes, at: offset, path: path)
    counters.withLock { $0.bytes += bytes.count }
  }

  private func apply(_ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) {
    files.withLock { files in
      guard var file = files[path] else { return }
      if file.bytes.count < offset + bytes.count {
        file.bytes.append(
          contentsOf: repeatElement(0, count: offset + bytes.count - file.bytes.count))
      }
      file.bytes.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
      files[path] = file
    }
  }

  fileprivate func sync(path: String) throws(TraceError) {
    if faults.withLock({ $0.failSync }) {
      throw TraceError(.io, "cannot sync (simulated)", path: path)
    }
    files.withLock { files in
      let current = files[path]?.bytes ?? []
      files[path]?.durable = current
    }
  }

  /// The file as the process sees it (what survives a process crash).
  func contents(_ path: String) -> [UInt8]? {
    files.withLock { $0[path]?.bytes }
  }

  /// The file after a power loss: only what was synced, and, if `garble` is set, the first
  /// unsynced bytes after it turned to noise rather than dropped.
  func afterPowerLoss(_ path: String, garble: Bool = false) -> [UInt8]? {
    files.withLock { files -> [UInt8]? in
      guard let file = files[path] else { return nil }
      var durable = file.durable
      if garble, file.bytes.count > durable.count {
        durable.append(
          contentsOf: (0..<min(64, file.bytes.count - durable.count)).map {
            UInt8(truncatingIfNeeded: $0 &* 151 &+ 7)
          })
      }
      return durable
    }
  }
}

final class SimulatedFile: StorageFile {
  let storage: SimulatedStorage
  let path: String

  init(storage: SimulatedStorage, path: String) {
    self.storage = storage
    self.path = path
  }

  func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(TraceError) {
    try storage.write(bytes, at: offset, path: path)
  }

  func sync() throws(TraceError) {
    try storage.sync(path: path)
  }

  func close() {}
}
