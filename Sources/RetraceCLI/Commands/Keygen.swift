import ArgumentParser
import Foundation
import RetraceLog

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `retrace keygen`: a key pair to encrypt traces to.
struct Keygen: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Make a key pair to encrypt traces to: NAME.key (private) and NAME.pub.",
    discussion: """
      The app encrypts its traces to NAME.pub (TraceRecorderConfiguration.encryptionKey), \
      and only NAME.key reads them: give it to any command with --key NAME.key or the \
      RETRACE_KEY environment variable. NAME.key is created readable by its owner only; \
      keep it out of the app and out of version control. Existing files are never \
      overwritten: a lost private key cannot be made again, and neither can the traces \
      encrypted to it be read.
      """)

  @Option(
    name: .shortAndLong, help: "The name of the pair: writes NAME.key and NAME.pub.",
    transform: outputName)
  var output: String

  mutating func run() async throws {
    let key = TracePrivateKey.generate()
    let privatePath = output + ".key"
    let publicPath = output + ".pub"
    for path in [privatePath, publicPath] where FileManager.default.fileExists(atPath: path) {
      throw TraceError(.io, "already exists; a key file is never overwritten", path: path)
    }
    try Self.create(privatePath, key.text + "\n", mode: 0o600)
    do {
      try Self.create(publicPath, key.publicKey.text + "\n", mode: 0o644)
    } catch {
      unlink(privatePath)
      throw error
    }
    print(
      "wrote \(privatePath) (private: keep it secret) and \(publicPath) (key \(key.publicKey.id))")
  }

  /// Creates `path` with `text`, failing if it exists.
  private static func create(_ path: String, _ text: String, mode: mode_t) throws(TraceError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else { throw TraceError.posix("cannot create", path: path) }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { OutputFile.writeFully(fd, $0) }
    let synced = fsync(fd) == 0
    close(fd)
    guard written, synced else {
      unlink(path)
      throw TraceError(.io, "cannot write the key file", path: path)
    }
  }
}
