#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a recorder's bytes go: the trace file and its journal.
///
/// ``FileStorage`` (the default) writes real files, with the journal memory-mapped. Tests
/// inject their own storage to make writes fail part way, fill the disk, or lose what was
/// not synced (as SQLite's test VFS does).
package protocol TraceStorage: Sendable {
  /// Creates (or truncates) the trace file at `path`.
  func createTrace(at path: String) throws(TraceError) -> any StorageFile
  /// Creates (or reuses) the journal at `path`, sized to hold `capacity` bytes.
  func createJournal(at path: String, capacity: Int) throws(TraceError) -> any StorageFile
  /// Removes the file at `path`; a missing file is not an error.
  func remove(_ path: String)
}

/// One open file of a ``TraceStorage``.
package protocol StorageFile: AnyObject {
  /// Writes `bytes` at `offset`.
  func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(TraceError)
  /// Makes everything written so far durable (fsync, or msync for a mapped journal).
  func sync() throws(TraceError)
  /// Closes the file.
  func close()
}

/// Real files: the trace written with `pwrite`, the journal memory-mapped so that a record
/// reaches the kernel (and survives the process's death) with a `memcpy`, no system call.
package struct FileStorage: TraceStorage {
  package init() {}

  package func createTrace(at path: String) throws(TraceError) -> any StorageFile {
    let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw TraceError.posix("cannot create the trace", path: path) }
    return DescriptorFile(fd: fd, path: path)
  }

  package func createJournal(at path: String, capacity: Int) throws(TraceError) -> any StorageFile {
    let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw TraceError.posix("cannot create the journal", path: path) }
    // The journal's blocks are reserved now, not when a page is first written through the
    // mapping: on a full disk that write would kill the process with SIGBUS, where this
    // fails with ENOSPC. (A file system without fallocate gets zeros written instead.)
    let reserved = reserveSpace(fd, capacity)
    guard reserved == 0 else {
      errno = reserved
      let error = TraceError.posix("cannot reserve space for the journal", path: path)
      closeDescriptor(fd)
      unlink(path)
      throw error
    }
    guard let base = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
      base != MAP_FAILED
    else {
      let error = TraceError.posix("cannot map the journal", path: path)
      closeDescriptor(fd)
      throw error
    }
    return MappedFile(fd: fd, base: base, capacity: capacity, path: path)
  }

  package func remove(_ path: String) {
    unlink(path)
  }
}

/// A file written with `pwrite`.
final class DescriptorFile: StorageFile {
  private var fd: Int32
  private let path: String

  init(fd: Int32, path: String) {
    self.fd = fd
    self.path = path
  }

  func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(TraceError) {
    var done = 0
    while done < bytes.count {
      let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
      if n < 0 {
        if errno == EINTR { continue }
        throw TraceError.posix("cannot write", path: path, offset: offset + done)
      }
      done += n
    }
    try checkStillLinked()
  }

  func sync() throws(TraceError) {
    guard fsync(fd) == 0 else { throw TraceError.posix("cannot sync", path: path) }
    try checkStillLinked()
  }

  /// Fails when the file has been removed (or its directory deleted) while open: writes to
  /// it still succeed, into a file nobody can ever read, so without this check a session
  /// would be lost silently. One `fstat` per chunk or flush.
  private func checkStillLinked() throws(TraceError) {
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw TraceError.posix("cannot stat", path: path) }
    guard info.st_nlink > 0 else {
      throw TraceError(
        .notFound, "the trace file (or its directory) was removed while recording", path: path)
    }
  }

  func close() {
    if fd >= 0 { closeDescriptor(fd) }
    fd = -1
  }

  deinit { close() }
}

/// A memory-mapped file of fixed capacity: writes are `memcpy`, sync is `msync`.
final class MappedFile: StorageFile {
  private var fd: Int32
  private var base: UnsafeMutableRawPointer?
  private let capacity: Int
  private let path: String

  init(fd: Int32, base: UnsafeMutableRawPointer, capacity: Int, path: String) {
    self.fd = fd
    self.base = base
    self.capacity = capacity
    self.path = path
  }

  func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(TraceError) {
    guard let base else { throw TraceError(.closed, "the journal is closed", path: path) }
    guard offset >= 0, offset + bytes.count <= capacity else {
      throw TraceError(
        .tooLarge, "a journal write past its capacity of \(capacity) bytes", path: path,
        offset: offset)
    }
    (base + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
  }

  func sync() throws(TraceError) {
    guard let base else { return }
    guard msync(base, capacity, MS_SYNC) == 0 else {
      throw TraceError.posix("cannot sync the journal", path: path)
    }
  }

  func close() {
    if let base { munmap(base, capacity) }
    base = nil
    if fd >= 0 { closeDescriptor(fd) }
    fd = -1
  }

  deinit { close() }
}

extension TraceError {
  /// An I/O error from the last POSIX call, with `errno`'s text.
  package static func posix(_ what: String, path: String, offset: Int? = nil) -> TraceError {
    let code = errno
    let text = String(cString: strerror(code))
    return TraceError(
      code == ENOENT ? .notFound : .io, "\(what): \(text)", path: path, offset: offset)
  }
}

/// Makes the file `capacity` bytes long with its blocks allocated; returns 0 or an `errno`
/// value.
private func reserveSpace(_ fd: Int32, _ capacity: Int) -> Int32 {
  #if canImport(Darwin)
    // No posix_fallocate: size the file (sparse), as before.
    return ftruncate(fd, off_t(capacity)) == 0 ? 0 : errno
  #else
    return posix_fallocate(fd, 0, off_t(capacity))
  #endif
}

/// `close(2)`, named apart from the protocol's `close()`.
func closeDescriptor(_ fd: Int32) {
  #if canImport(Glibc)
    _ = Glibc.close(fd)
  #elseif canImport(Musl)
    _ = Musl.close(fd)
  #elseif canImport(Darwin)
    _ = Darwin.close(fd)
  #endif
}
