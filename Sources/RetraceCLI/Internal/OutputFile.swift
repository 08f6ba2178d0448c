import Foundation
import RetraceDebugger
import RetraceLog
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writing an output file (`--output`) so that nothing already there is lost.
///
/// The new file is written beside the old one, in a directory of its own that only this
/// process can write in (`.NAME.retrace-XXXXXX/`, made by `mkdtemp`, holding the file and,
/// while a trace is recorded, its journal), made durable, and only then renamed over `NAME`
/// (a journal still there, beside an unfinished trace, over `NAME.journal` first).
/// A write that fails (a full disk, a header too large, an encoding error) or is interrupted
/// (Ctrl-C, SIGTERM, SIGHUP) removes the directory and leaves the old file as it was;
/// `kill -9` can leave the directory behind, never a half-written `NAME`. Nobody else can
/// plant a link in that directory to redirect the write. A symbolic link named as the output
/// is followed: the file it points to is replaced, the link stays. Text (JSON Lines) may also
/// go to a device or a pipe, written into it, and any name of the file stdout or stderr is
/// open on (`/dev/stdout`, `/dev/fd/1`) is that stream itself; a trace needs a regular file.
enum OutputFile {
  /// Writes the trace for `path`: `write` records it at the path it is given.
  ///
  /// - Parameters:
  ///   - path: The output as the user named it.
  ///   - write: Writes the whole trace to the path it is given.
  /// - Throws: `TraceError` (`io` or `notFound`)
  ///   naming `path`, or what `write` throws, with `path` in place of the temporary name.
  static func replace(_ path: String, _ write: (String) throws(TraceError) -> Void)
    throws(TraceError)
  {
    if try isSpecialFile(path) {
      throw TraceError(
        .io, "not a regular file; a trace is written to a regular file", path: path)
    }
    try replaceRegularFile(path, write)
  }

  /// Writes `bytes` as the whole of `path`: a regular file replaced as the type describes,
  /// or a device or pipe written into.
  ///
  /// - Throws: `TraceError` (`io` or `notFound`)
  ///   naming `path`, with the system's reason, such as "No space left on device".
  static func writeText(_ bytes: [UInt8], to path: String) throws(TraceError) {
    if let stream = standardStream(path) {
      // The stream the shell set up (appending, a pipe, a file), not the file it names.
      fflush(nil)
      try writeAll(bytes, to: stream, path: path)
      return
    }
    if try isSpecialFile(path) {
      try writeAll(bytes, toFile: path, flags: O_WRONLY, path: path)
      return
    }
    try replaceRegularFile(path) { temporary throws(TraceError) in
      try writeAll(bytes, toFile: temporary, flags: O_WRONLY | O_CREAT | O_EXCL, path: path)
    }
  }

  /// 1 or 2 when `path` names the file stdout or stderr is open on (`/dev/stdout`,
  /// `/dev/fd/1`, or the file the shell redirected it to), else `nil`.
  private static func standardStream(_ path: String) -> Int32? {
    var named = stat()
    guard stat(path, &named) == 0 else { return nil }
    for stream: Int32 in [1, 2] {
      var open = stat()
      if fstat(stream, &open) == 0, open.st_dev == named.st_dev, open.st_ino == named.st_ino {
        return stream
      }
    }
    return nil
  }

  // MARK: - Replacing a regular file

  /// Whether `path` names a device or a pipe; `false` for a regular file or none, and an
  /// error for a directory.
  private static func isSpecialFile(_ path: String) throws(TraceError) -> Bool {
    guard !path.isEmpty else { throw TraceError(.io, "an empty file name", path: path) }
    var status = stat()
    guard stat(path, &status) == 0 else { return false }
    switch status.st_mode & S_IFMT {
    case S_IFREG: return false
    case S_IFDIR: throw TraceError(.io, "is a directory", path: path)
    default: return true
    }
  }

  /// Calls `write` with a new temporary path beside the file `path` names (links followed),
  /// then renames it over that file.
  private static func replaceRegularFile(
    _ path: String, _ write: (String) throws(TraceError) -> Void
  ) throws(TraceError) {
    let target = try resolvingLinks(path)
    let (directory, name) = split(target)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw TraceError(.notFound, "no such directory: \(directory)", path: path)
    }
    // A directory of its own, beside the target (a rename does not cross file systems),
    // that only this process can write in: nobody can plant a link among the files written
    // there (the trace, its journal), whose names are then known.
    var template = Array(
      join(directory, ".\(String(name.unicodeScalars.prefix(48))).retrace-XXXXXX").utf8CString)
    // The handlers first: only a signal in the microseconds between making the directory and
    // registering it leaves it behind (empty).
    _ = installHandlers
    guard let created = mkdtemp(&template) else { throw failure("cannot write the file", path) }
    let workspace = String(cString: created)
    let temporary = join(workspace, "output")
    // Removed in this order, the directory last: also by the signal handler.
    let leftovers = [temporary, temporary + ".journal", workspace]
    removeOnInterrupt(leftovers)
    defer {
      removeOnInterrupt(nil)
      for file in leftovers where unlink(file) != 0 { rmdir(file) }
    }
    do {
      try write(temporary)
    } catch {
      var error = error
      // The user knows the file by the name they gave (its journal too).
      if let file = error.path, file.hasPrefix(temporary) {
        error.path = path + file.dropFirst(temporary.count)
      }
      throw error
    }
    var status = stat()
    // The new file keeps the old one's owner and group (where this process may give them)
    // and permissions, without set-user-ID and set-group-ID bits.
    if stat(target, &status) == 0 {
      _ = chown(temporary, status.st_uid, status.st_gid)
      _ = chmod(temporary, status.st_mode & 0o777)
    }
    try sync(temporary, path: path)
    // An unfinished trace's journal goes beside it first (`upgrade` writes one): a trace
    // without an index needs its journal, which a clean close would have removed.
    if access(temporary + ".journal", F_OK) == 0 {
      try sync(temporary + ".journal", path: path + ".journal")
      guard rename(temporary + ".journal", target + ".journal") == 0 else {
        throw failure("cannot replace the file", path + ".journal")
      }
    }
    guard rename(temporary, target) == 0 else { throw failure("cannot replace the file", path) }
    try sync(directory, path: path)
  }

  /// Opens `file` with `flags` and writes all of `bytes` to it.
  private static func writeAll(_ bytes: [UInt8], toFile file: String, flags: Int32, path: String)
    throws(TraceError)
  {
    let descriptor = open(file, flags | O_CLOEXEC, 0o666)
    guard descriptor >= 0 else { throw failure("cannot write the file", path) }
    defer { close(descriptor) }
    try writeAll(bytes, to: descriptor, path: path)
  }

  /// Creates `path` holding `bytes`, readable by others only if `mode` says so; never over an
  /// existing file, and never through a symbolic link (what `keygen` and `report extract`
  /// write: a key, or files named by a report that may be hostile). A file left half-written
  /// by a failure is removed.
  ///
  /// - Throws: `TraceError` (`io`) naming `path`: it exists, or cannot be written.
  static func createNew(_ path: String, _ bytes: [UInt8], mode: mode_t) throws(TraceError) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    guard descriptor >= 0 else {
      if errno == EEXIST || errno == ELOOP {
        throw TraceError(.io, "already exists; it is never overwritten", path: path)
      }
      throw failure("cannot create the file", path)
    }
    let written = bytes.withUnsafeBytes { FileDescriptor.writeFully(descriptor, $0) }
    let synced = fsync(descriptor) == 0
    close(descriptor)
    guard written, synced else {
      unlink(path)
      throw TraceError(.io, "cannot write the file", path: path)
    }
  }

  /// Writes all of `bytes` to `descriptor`.
  private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String)
    throws(TraceError)
  {
    guard bytes.withUnsafeBytes({ FileDescriptor.writeFully(descriptor, $0) }) else {
      throw failure("cannot write the file", path)
    }
  }

  /// `path` with symbolic links followed to the file they name (which may not exist yet).
  ///
  /// - Throws: `TraceError` for a cycle of links or a chain of more than 40, as the
  ///   kernel counts (ELOOP).
  private static func resolvingLinks(_ path: String) throws(TraceError) -> String {
    var current = path
    for _ in 0..<40 {
      guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current)
      else {
        return current
      }
      current =
        destination.hasPrefix("/") ? destination : join(split(current).directory, destination)
    }
    throw TraceError(.io, "too many levels of symbolic links", path: path)
  }

  /// The directory (`.` for none) and the name of `path`.
  private static func split(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = String(path[..<slash])
    return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
  }

  private static func join(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
  }

  /// Makes the file (or directory) at `file` durable.
  private static func sync(_ file: String, path: String) throws(TraceError) {
    let descriptor = open(file, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure("cannot sync the file", path) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 || errno == EINVAL else {
      throw failure("cannot sync the file", path)
    }
  }

  private static func failure(_ what: String, _ path: String) -> TraceError {
    TraceError(.io, "\(what): \(String(cString: strerror(errno)))", path: path)
  }

  // MARK: - Interruption

  /// The files to remove if a signal ends the process: the address of ``pendingPaths``
  /// when it holds them, 0 while there are none (or while they change).
  private static let pendingFiles = Atomic<UInt>(0)

  /// Room for the NUL-terminated paths of the files to remove, ended by an empty one:
  /// allocated once and never freed, so the handler never reads freed memory. Written only
  /// while ``pendingFiles`` is 0, by the one thread that writes outputs.
  nonisolated(unsafe) private static let pendingPaths = UnsafeMutablePointer<CChar>.allocate(
    capacity: pendingCapacity)
  private static let pendingCapacity = 3 * 4_096 + 1

  /// Registers `files` (or, with `nil`, none) for removal if SIGINT, SIGTERM or SIGHUP
  /// ends the process (one the process was started ignoring stays ignored); a directory
  /// among them, empty by then, is removed too. The handler only calls `unlink`, `rmdir`,
  /// `strlen`, `signal` and `raise`, which are safe in a signal handler, then lets the signal
  /// end the process as it would have.
  private static func removeOnInterrupt(_ files: [String]?) {
    pendingFiles.store(0, ordering: .releasing)
    guard let files else { return }
    let bytes: [CChar] = files.reduce(into: []) { $0 += $1.utf8CString } + [0]
    // Paths longer than the system's (PATH_MAX, 4,096 bytes) cannot be registered.
    guard bytes.count <= pendingCapacity else { return }
    pendingPaths.update(from: bytes, count: bytes.count)
    pendingFiles.store(UInt(bitPattern: pendingPaths), ordering: .releasing)
  }

  private static let installHandlers: Void = {
    // The global the handler reads exists before the handler does.
    pendingFiles.store(0, ordering: .releasing)
    for number in [SIGINT, SIGTERM, SIGHUP] {
      // A signal the process was started ignoring (nohup, a background job) stays ignored:
      // ignored while its disposition is read, then handled only if it was not.
      let previous = signal(number, SIG_IGN)
      guard unsafeBitCast(previous, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self) else {
        continue
      }
      _ = signal(number) { received in
        var file = UnsafePointer<CChar>(
          bitPattern: OutputFile.pendingFiles.load(ordering: .acquiring))
        while let current = file, current.pointee != 0 {
          if unlink(current) != 0 { rmdir(current) }
          file = current + strlen(current) + 1
        }
        _ = signal(received, SIG_DFL)
        raise(received)
      }
    }
  }()
}
