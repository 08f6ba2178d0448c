import Foundation

/// Where the tools built on the engine (the `retrace` commands, Retrace Studio) say what
/// their output has no place for: a warning that a file is damaged or never closed.
///
/// The program's name starts each line (`retrace: warning: …`); an app that embeds the
/// commands under its own name binds ``program`` for the duration of the command, as a
/// task-local value.
package enum StandardError {
  /// The program's name, at the start of every line written.
  @TaskLocal package static var program = "retrace"

  /// Writes `line` and a newline on stderr, after what stdout holds.
  package static func writeLine(_ line: String) {
    fflush(nil)
    write(line + "\n")
  }

  /// Writes `program: warning: message` on one line.
  package static func warn(_ message: String) {
    writeLine("\(program): warning: \(message)".oneLine())
  }

  /// Writes `text` on stderr; a stderr that cannot take it (`2>/dev/full`, closed) is
  /// ignored, not a trap as with `FileHandle.write`: the tool keeps its own outcome.
  package static func write(_ text: String) {
    var text = text
    _ = text.withUTF8 { FileDescriptor.writeFully(2, UnsafeRawBufferPointer($0)) }
  }
}

/// Writing to a file descriptor, as the tools write their output files and stderr.
package enum FileDescriptor {
  /// Writes all of `bytes` to `descriptor`, going on after an interrupted or partial write;
  /// `false` (with `errno` set) when a write fails.
  package static func writeFully(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var done = 0
    while done < bytes.count {
      let written = Foundation.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return false }
      done += written
    }
    return true
  }
}
