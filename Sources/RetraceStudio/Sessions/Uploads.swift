import Foundation
import Retrace
import RetraceDebugger
import RetraceLog
import Synchronization

/// Trace and JSON Lines files the page uploads (`POST /api/uploads?name=N`, dropped on the
/// page or picked with its Open button): each is written into ``directory`` under a name no
/// file there has, opened as a session, and added to the list.
struct Uploads: Sendable {
  /// The default largest upload, in MiB (`retrace serve --upload-limit`).
  static let defaultLimitMiB = 64

  /// The most bytes of records an uploaded trace of `size` bytes may hold once
  /// decompressed: 128 times its size, and 1 MiB more. Sessions compress 5 to 10 times (a
  /// generated counter session of 200,000 actions, the most repetitive, 17); a crafted one
  /// (90 KB declaring 56 million actions) 11,000 times.
  static func expansionLimit(of size: Int) -> Int {
    size.multipliedReportingOverflow(by: 128).partialValue + (1 << 20)
  }

  /// Where uploaded files are written, created at the first upload.
  let directory: String
  /// The largest upload, in bytes; a larger one is refused (413) before it is read.
  let limit: Int
  let catalog: SessionCatalog
  let registry: DomainRegistry
  let flows: [NavigationFlow]
  let key: TracePrivateKey?
  /// The files written and listed, by session id, with their sizes: what the upload
  /// directory holds for this Studio.
  private let written = Written()

  /// The most bytes of uploads listed at once: 16 uploads of ``limit``, 1 GiB by default. One
  /// more is refused (507) until sessions uploaded are removed, which deletes their files: a
  /// page, or a script with the token, cannot fill the disk.
  var totalLimit: Int { limit.multipliedReportingOverflow(by: 16).partialValue }

  /// The uploaded files listed, by session id.
  private final class Written: Sendable {
    let files = Mutex<[String: (path: String, bytes: Int)]>([:])

    /// The bytes of every file listed.
    var total: Int { files.withLock { $0.values.reduce(0) { $0 + $1.bytes } } }
  }

  /// Deletes the file uploaded for session `id`, once the session is off the list; nothing
  /// for a session that was not uploaded.
  func removed(_ id: String) {
    guard let file = written.files.withLock({ $0.removeValue(forKey: id) }) else { return }
    try? FileManager.default.removeItem(atPath: file.path)
  }

  /// The command's name, in the commands the errors suggest (`retrace serve …`).
  var commandName = "retrace"

  /// A new directory in the system's temporary directory, for a Studio given none.
  static func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory
      .appendingPathComponent("retrace-uploads-\(UUID().uuidString.prefix(8).lowercased())").path
  }

  /// Writes `data`, uploaded as `name`, into the directory (as `name`, or `name-2`, … when
  /// that file exists: a file is never overwritten), opens it and lists it.
  ///
  /// - Returns: `{"id", "file", "bytes"}`: the new session's id, the path written, its size.
  /// - Throws: `SessionError`: `invalidRequest` for a name that is not a `.trace` or `.jsonl`
  ///   file's, an empty upload, or a file that does not open (which is then deleted);
  ///   `tooLarge` and `storageFull` past the limits; `failed` when it cannot be written.
  func take(_ data: Data, name: String) async throws -> UploadAnswer {
    let base = URL(fileURLWithPath: name.isEmpty ? "/" : name).lastPathComponent
    let suffix = [".trace", ".jsonl"].first { base.hasSuffix($0) }
    guard let suffix, base.count > suffix.count else {
      throw SessionError(
        .invalidRequest,
        "an upload must be named NAME.trace or NAME.jsonl (?name=), not '\(name.prefix(100))'")
    }
    guard !data.isEmpty else {
      throw SessionError(.invalidRequest, "the upload '\(base)' is empty")
    }
    guard data.count <= limit else {
      throw SessionError(
        .tooLarge, "the upload is larger than \(limit) bytes (\(commandName) serve --upload-limit)")
    }
    let held = written.total
    guard held + data.count <= totalLimit else {
      throw SessionError(
        .storageFull,
        "the Studio holds \(held) bytes of uploads, and takes at most \(totalLimit) (16 times --upload-limit): remove uploaded sessions from the list to make room"
      )
    }
    // A name a file system takes: at most 100 characters before the suffix.
    let stem = SessionCatalog.slug(String(base.dropLast(suffix.count).prefix(100)))
    let (directory, catalog, registry, flows, key, written, commandName) = (
      self.directory, self.catalog, self.registry, self.flows, self.key, self.written,
      self.commandName
    )
    return try await offload {
      let path = try Self.write(data, stem: stem, suffix: suffix, in: directory)
      let file: SessionFile
      let domain: any Domain
      do {
        (file, domain) = try SessionCatalog.openFile(path, key: key, registry: registry)
      } catch {
        try? FileManager.default.removeItem(atPath: path)
        // The reason without the temporary path it was written to: the page names the file.
        let reason = "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
          .replacingOccurrences(of: path + ": ", with: "")
        throw SessionError(.invalidRequest, "it does not open as a session: \(reason)")
      }
      func add<E: Domain>(_ domain: E) -> any StudioSession {
        catalog.add(idBase: stem) { id in
          FileSession<E>(
            id: id, domain: domain, file: file, flow: flows.first { $0.domain == domain.name },
            key: key)
        }
      }
      // A trace whose chunks expand far beyond what zstd makes of real sessions (a small
      // file declaring millions of actions) is refused before any of it is decoded.
      if case .trace(let reader) = file.content {
        let raw = reader.expandedSize()
        guard raw <= Self.expansionLimit(of: data.count) else {
          try? FileManager.default.removeItem(atPath: path)
          throw SessionError(
            .tooLarge,
            "it holds \(raw) bytes of records once decompressed, more than an upload of \(data.count) bytes may (\(Self.expansionLimit(of: data.count))); serve the file with \(commandName) serve FILE instead"
          )
        }
      }
      let session = add(domain)
      written.files.withLock { $0[session.id] = (path, data.count) }
      return UploadAnswer(id: session.id, file: path, bytes: data.count)
    }
  }

  /// Writes `data` to `stem.suffix` in `directory`, or `stem-2.suffix`, … the first name no
  /// file has: the file is created exclusively, so that two uploads never write one file.
  private static func write(_ data: Data, stem: String, suffix: String, in directory: String)
    throws -> String
  {
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw SessionError(.failed, "cannot create the upload directory \(directory): \(error)")
    }
    let path = try NewFile.create(stem, suffix: suffix, in: directory) { path in
      do {
        try data.write(to: URL(fileURLWithPath: path), options: .withoutOverwriting)
        return true
      } catch let error as CocoaError where error.code == .fileWriteFileExists {
        return false
      } catch {
        if FileManager.default.fileExists(atPath: path) { return false }
        throw SessionError(.failed, "cannot write \(path): \(error.localizedDescription)")
      }
    }
    if let path { return path }
    throw SessionError(
      .failed, "the upload directory \(directory) has too many files named \(stem)")
  }
}
