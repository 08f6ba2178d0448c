import Foundation
import Retrace
import RetraceDebugger
import RetraceLog
import Synchronization

/// The sessions a Studio serves: the files, in the order they were found, then the live
/// sessions' segments as they start.
final class SessionCatalog: Sendable {
  private let list: Mutex<[any StudioSession]>

  /// A catalog of `sessions`.
  init(sessions: [any StudioSession]) {
    list = Mutex(sessions)
  }

  /// The sessions.
  var sessions: [any StudioSession] { list.withLock { $0 } }

  /// The session called `id`.
  func session(_ id: String) -> (any StudioSession)? {
    list.withLock { $0.first { $0.id == id } }
  }

  /// Adds the session that `make` creates with an id made of `base` that no session has
  /// (`base`, `base-2`, `base-3`, …), and returns it.
  func add<S: StudioSession>(idBase base: String, _ make: (String) throws -> S) rethrows -> S {
    try list.withLock { list in
      let ids = Set(list.map(\.id))
      var id = Self.slug(base)
      if ids.contains(id) {
        var number = 2
        while ids.contains("\(id)-\(number)") { number += 1 }
        id = "\(id)-\(number)"
      }
      let session = try make(id)
      list.append(session)
      return session
    }
  }

  /// Removes the session called `id` from the list, and returns it; `nil` when there is none.
  @discardableResult
  func remove(_ id: String) -> (any StudioSession)? {
    list.withLock { list in
      guard let index = list.firstIndex(where: { $0.id == id }) else { return nil }
      return list.remove(at: index)
    }
  }

  /// Removes the live segments that have ended, oldest first, while more than `limit` of them
  /// are listed; returns those removed.
  func removeEndedLiveSegments(keeping limit: Int) -> [any StudioSession] {
    list.withLock { list in
      let ended = list.indices.filter {
        (list[$0] as? any LiveSegment).map { !$0.isConnected } ?? false
      }
      guard ended.count > limit else { return [] }
      let removed = Set(ended.prefix(ended.count - limit))
      let sessions = removed.sorted().map { list[$0] }
      list = list.indices.filter { !removed.contains($0) }.map { list[$0] }
      return sessions
    }
  }

  /// Opens every session in `paths`: files as given, and the `.trace` and `.jsonl` files in
  /// directories (not their subdirectories), sorted by name. A file given by name must open;
  /// a file in a directory that does not is skipped with a warning. A file whose head is
  /// damaged is listed as a ``DamagedSession`` either way.
  ///
  /// No paths give an empty catalog, for live sessions only.
  ///
  /// The files are read with `registry`'s domains and `flows`, given here rather than read
  /// from the command's task-local context (`CommandContext`): the sessions do their work on
  /// the Studio's worker threads, which see no task-local value.
  ///
  /// - Throws: `TraceError` or `DebuggerError` for a path that cannot be read, or when paths
  ///   are given and no session is found in them.
  ///
  /// `key` reads encrypted traces (`--key`); one without it cannot be served.
  static func open(
    _ paths: [String], key: TracePrivateKey?, registry: DomainRegistry, flows: [NavigationFlow]
  ) throws -> SessionCatalog {
    var sessions: [any StudioSession] = []
    var ids = Set<String>()
    func uniqueID(_ path: String) -> String {
      var id = Self.slug(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)
      if ids.contains(id) {
        var number = 2
        while ids.contains("\(id)-\(number)") { number += 1 }
        id = "\(id)-\(number)"
      }
      ids.insert(id)
      return id
    }
    func add(_ path: String) throws {
      let file: SessionFile
      let domain: any Domain
      do {
        (file, domain) = try openFile(path, key: key, registry: registry)
      } catch let error as TraceError where DamagedSession.isDamage(error) {
        // Listed as damaged, with where and why, rather than stopping the Studio.
        sessions.append(DamagedSession(id: uniqueID(path), path: path, error: error))
        return
      }
      sessions.append(
        makeFileSession(domain, file: file, id: uniqueID(path), flows: flows, key: key))
    }
    for path in paths {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw TraceError(.notFound, "no such file or directory", path: path)
      }
      guard isDirectory.boolValue else {
        try add(path)
        continue
      }
      let names: [String]
      do {
        names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
      } catch {
        throw TraceError(
          .io, "cannot list the directory: \(error.localizedDescription)", path: path)
      }
      for name in names where name.hasSuffix(".trace") || name.hasSuffix(".jsonl") {
        let file = (path as NSString).appendingPathComponent(name)
        do {
          try add(file)
        } catch {
          warn("warning: \(file): skipped: \(error)")
        }
      }
    }
    guard !sessions.isEmpty || paths.isEmpty else {
      throw TraceError(
        .notFound, "no trace or JSON Lines file found in \(paths.joined(separator: ", "))")
    }
    return SessionCatalog(sessions: sessions)
  }

  /// Opens the trace or JSON Lines file at `path` and finds its domain in `registry`.
  ///
  /// - Throws: `TraceError` for a file that cannot be read (or an encrypted one without
  ///   `key`), `DebuggerError` for a domain the registry lacks.
  static func openFile(_ path: String, key: TracePrivateKey?, registry: DomainRegistry) throws
    -> (SessionFile, any Domain)
  {
    let file = try SessionFile.open(path, usingIndex: true, key: key)
    if case .trace(let reader) = file.content, let encryption = reader.header.encryption,
      !reader.canReadRecords
    {
      throw TraceError.keyNeeded(encryption, path: path)
    }
    return (file, try file.domain(in: registry))
  }

  /// `name` with every character but letters, digits, `-`, `_` and `.` replaced by `-`.
  static func slug(_ name: String) -> String {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
    let slug = String(name.map { allowed.contains($0) ? $0 : "-" })
    // Never `.` or `..`, which the page's URLs would read as path steps.
    return slug.allSatisfy { $0 == "." } ? "session" : slug
  }
}
