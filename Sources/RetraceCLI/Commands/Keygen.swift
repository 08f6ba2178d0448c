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
    try OutputFile.createNew(privatePath, Array((key.text + "\n").utf8), mode: 0o600)
    do {
      try OutputFile.createNew(publicPath, Array((key.publicKey.text + "\n").utf8), mode: 0o644)
    } catch {
      unlink(privatePath)
      throw error
    }
    print(
      "wrote \(privatePath) (private: keep it secret) and \(publicPath) (key \(key.publicKey.id))")
  }
}
