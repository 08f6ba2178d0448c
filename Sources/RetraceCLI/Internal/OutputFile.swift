import Foundation
import RetraceDebugger
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
/// The new file is written beside the old one under a temporary name
/// (`.NAME.retrace-PID.tmp`, and its `.journal` while a trace is recorded), made durable, and
/// only then renamed over `NAME`. A write that fails (a full disk, a header too large, an
/// encoding error) or is interrupted (Ctrl-C, SIGTERM, SIGHUP) removes the temporary files and
/// leaves the old file as it was; `kill -9` can leave the temporary file behind, never a
/// half-written `NAME`. A symbolic link is followed: the file it points to is replaced, the
/// link stays. A text output (JSON Lines) may also go to a device or a pipe such as
/// `/dev/stdout`, written directly; a trace needs a regular file.
enum OutputFile {
  /// Writes the output for `path`: `write` is called with the path to write to.
  ///
  /// - Parameters:
  ///   - path: The output as the user named it.
  ///   - allowsSpecialFiles: Whether `path` may be an existing device or pipe, written
  ///     directly (text outputs).
  ///   - write: Writes the whole output to the path it is given.
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/io`` or ``DebuggerError/Code/notFound``)
  ///   naming `path`, or what `write` throws, with `path` in place of the temporary name.
  static func replace(
    _ path: String, allowsSpecialFiles: Bool, _ write: (String) throws(DebuggerError) -> Void
  ) throws(DebuggerError) {
    // /dev/stdout and the like name a stream, not a file to replace.
    if allowsSpecialFiles, path.hasPrefix("/dev/") || path.hasPrefix("/proc/") {
      try write(path)
      return
    }
    var status = stat()
    if stat(path, &status) == 0 {
      switch status.st_mode & S_IFMT {
      case S_IFREG:
        break
      case S_IFDIR:
        throw DebuggerError(.io, "is a directory", path: path)
      default:
        guard allowsSpecialFiles else {
          throw DebuggerError(.io, "not a regular file; a trace is written to a regular file", path: path)
        }
        try write(path)
        return
      }
    }
    let target = resolvingLinks(path)
    let directory = (target as NSString).deletingLastPathComponent
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory.isEmpty ? "." : directory, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw DebuggerError(.notFound, "no such directory: \(directory)", path: path)
    }
    let name = (target as NSString).lastPathComponent
    let temporary = (directory as NSString).appendingPathComponent(".\(name).retrace-\(getpid()).tmp")
    let leftovers = [temporary, temporary + ".journal"]
    removeOnInterrupt(leftovers)
    defer {
      removeOnInterrupt(nil)
      for file in leftovers { unlink(file) }
    }
    do {
      try write(temporary)
    } catch {
      var error = error
      // The user knows the file by the name they gave (its journal too).
      if let file = error.path, file.hasPrefix(temporary) { error.path = path + file.dropFirst(temporary.count) }
      throw error
    }
    // The new file keeps the old one's permissions.
    if stat(target, &status) == 0 { chmod(temporary, status.st_mode & 0o7777) }
    try sync(temporary, path: path)
    guard rename(temporary, target) == 0 else {
      throw DebuggerError(.io, "cannot replace the file: \(String(cString: strerror(errno)))", path: path)
    }
    try sync(directory.isEmpty ? "." : directory, path: path)
  }

  /// Writes `bytes` to the file at `file` (created or truncated).
  ///
  /// - Throws: ``DebuggerError`` (``DebuggerError/Code/io``) naming `path`, with the system's
  ///   reason, such as "No space left on device".
  static func writeBytes(_ bytes: some ContiguousBytes, toFile file: String, path: String) throws(DebuggerError) {
    let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw failure("cannot write the file", path) }
    defer { close(descriptor) }
    let failed = bytes.withUnsafeBytes { raw -> Bool in
      var done = 0
      while done < raw.count {
        let written = write(descriptor, raw.baseAddress! + done, raw.count - done)
        if written < 0 {
          if errno == EINTR { continue }
          return true
        }
        done += written
      }
      return false
    }
    if failed { throw failure("cannot write the file", path) }
  }

  /// `path` with symbolic links followed to the file they name (which may not exist yet).
  private static func resolvingLinks(_ path: String) -> String {
    var current = path
    // A bound, as the kernel has (ELOOP), for a cycle of links.
    for _ in 0..<40 {
      guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
        return current
      }
      current =
        destination.hasPrefix("/")
        ? destination
        : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(destination)
    }
    return current
  }

  /// Makes the file (or directory) at `file` durable.
  private static func sync(_ file: String, path: String) throws(DebuggerError) {
    let descriptor = open(file, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure("cannot write the file", path) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 || errno == EINVAL else { throw failure("cannot write the file", path) }
  }

  private static func failure(_ what: String, _ path: String) -> DebuggerError {
    DebuggerError(.io, "\(what): \(String(cString: strerror(errno)))", path: path)
  }

  // MARK: - Interruption

  /// The files to remove if a signal ends the process: the address of a block of
  /// NUL-terminated paths, ended by an empty one; 0 when there are none.
  private static let pendingFiles = Atomic<UInt>(0)

  /// Registers `files` (or, with `nil`, none) for removal if SIGINT, SIGTERM or SIGHUP
  /// ends the process (one the process was started ignoring stays ignored). The handler only calls `unlink`, `signal` and `raise`, which are safe
  /// in a signal handler, then lets the signal end the process as it would have.
  private static func removeOnInterrupt(_ files: [String]?) {
    var block: UnsafeMutablePointer<CChar>?
    if let files {
      let bytes: [CChar] = files.reduce(into: []) { $0 += $1.utf8CString } + [0]
      block = .allocate(capacity: bytes.count)
      block!.initialize(from: bytes, count: bytes.count)
      _ = installHandlers
    }
    // The block replaced is not freed: a handler running on another thread may be reading
    // it. A command writes one output, so this is a few hundred bytes at most.
    pendingFiles.store(UInt(bitPattern: block), ordering: .releasing)
  }

  private static let installHandlers: Void = {
    for number in [SIGINT, SIGTERM, SIGHUP] {
      let previous = signal(number) { received in
        var file = UnsafePointer<CChar>(bitPattern: OutputFile.pendingFiles.load(ordering: .acquiring))
        while let current = file, current.pointee != 0 {
          unlink(current)
          file = current + strlen(current) + 1
        }
        _ = signal(received, SIG_DFL)
        raise(received)
      }
      // A signal the process was started ignoring (nohup, a background job) stays ignored.
      if unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { _ = signal(number, SIG_IGN) }
    }
  }()
}
