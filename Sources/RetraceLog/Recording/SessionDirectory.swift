import Foundation
import Retrace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A directory of traces, one per session, with retention by count and by total size.
///
/// File names start with the session's UTC start time, so they sort by time:
/// `20251122T002320.000Z-1f0c9a2e.trace`. Retention removes the oldest traces (and their
/// journals) first, and never the live session's.
///
/// ```swift
/// let sessions = try SessionDirectory(path: appSupport + "/traces",
///                                     retention: .init(maxCount: 20, maxBytes: 50 << 20))
/// let recorder = try sessions.startSession(domain: bankingDomain)
/// store.attach(recorder)
/// ```
public struct SessionDirectory: Sendable {
  /// How many traces, and how many bytes of them, to keep.
  public struct Retention: Sendable, Equatable {
    /// The most traces to keep, the live one included; `nil` for no limit.
    public var maxCount: Int?
    /// The most bytes of traces to keep, the live one included; `nil` for no limit.
    public var maxBytes: Int?

    /// Creates a retention policy.
    public init(maxCount: Int? = nil, maxBytes: Int? = nil) {
      self.maxCount = maxCount
      self.maxBytes = maxBytes
    }
  }

  /// A trace in the directory.
  public struct Session: Sendable, Equatable {
    /// The trace's path.
    public var path: String
    /// Its size in bytes, its journal included.
    public var byteCount: Int
  }

  /// The directory.
  public let path: String
  /// The retention policy applied when a session starts.
  public var retention: Retention

  /// Opens (creating if needed) a session directory.
  ///
  /// - Throws: ``TraceError`` when the directory cannot be created.
  public init(path: String, retention: Retention = Retention()) throws(TraceError) {
    self.path = path
    self.retention = retention
    do {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
      throw TraceError(
        .io, "cannot create the session directory: \(error.localizedDescription)", path: path)
    }
  }

  /// The traces in the directory, oldest first.
  public func sessions() throws(TraceError) -> [Session] {
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: path)
    } catch {
      throw TraceError(
        .io, "cannot list the session directory: \(error.localizedDescription)", path: path)
    }
    return names.filter { $0.hasSuffix(".trace") }.sorted().map { name in
      let file = path + "/" + name
      return Session(path: file, byteCount: fileSize(file) + fileSize(file + ".journal"))
    }
  }

  /// The path for a new session's trace.
  ///
  /// - Parameters:
  ///   - startTime: The session's start, in seconds since 1970.
  ///   - sessionID: The session's identifier; its first 8 characters go into the name.
  public func tracePath(startTime: Double, sessionID: String) -> String {
    path + "/" + Self.timestamp(startTime) + "-" + String(sessionID.prefix(8)) + ".trace"
  }

  /// Starts recording a new session of `domain`: creates its trace, then applies the
  /// retention policy to the older ones.
  ///
  /// - Parameters:
  ///   - domain: The domain being recorded.
  ///   - startTime: The session's start; now by default.
  ///   - app: Facts about the app (name, version, build), written into the trace's header.
  ///   - configuration: The recorder's configuration.
  ///   - onError: Called once if recording fails.
  /// - Returns: The recorder, ready to attach to the store.
  public func startSession<D: Domain>(
    domain: D,
    startTime: Double? = nil,
    app: [String: String] = [:],
    configuration: TraceRecorderConfiguration = TraceRecorderConfiguration(),
    onError: (@Sendable (TraceError) -> Void)? = nil
  ) throws(TraceError) -> TraceRecorder<D.State, D.Action> {
    let start = startTime ?? StoreClock.system.now(0)
    let sessionID = UUID().uuidString.lowercased()
    let file = tracePath(startTime: start, sessionID: sessionID)
    let recorder = try TraceRecorder(
      path: file, domain: domain, sessionID: sessionID, startTime: start, app: app,
      configuration: configuration, onError: onError)
    _ = try applyRetention(keeping: file)
    return recorder
  }

  /// Removes the oldest traces until the policy holds, never removing `live`.
  ///
  /// - Parameter live: The trace being recorded, which is kept whatever its size.
  /// - Returns: The paths removed.
  @discardableResult
  public func applyRetention(keeping live: String?) throws(TraceError) -> [String] {
    var sessions = try sessions()
    var removed: [String] = []
    func overLimit() -> Bool {
      if let maxCount = retention.maxCount, sessions.count > maxCount { return true }
      if let maxBytes = retention.maxBytes, sessions.reduce(0, { $0 + $1.byteCount }) > maxBytes {
        return true
      }
      return false
    }
    while overLimit(), let oldest = sessions.firstIndex(where: { $0.path != live }) {
      let victim = sessions.remove(at: oldest)
      unlink(victim.path)
      unlink(victim.path + ".journal")
      removed.append(victim.path)
    }
    return removed
  }

  /// `YYYYMMDDTHHMMSS.mmmZ` in UTC.
  static func timestamp(_ time: Double) -> String {
    let millis = Int64((time * 1000).rounded(.down))
    let seconds = millis.quotientAndRemainder(dividingBy: 1000)
    let utc = UTCTime(secondsSince1970: seconds.quotient)
    let pad = UTCTime.padded
    return pad(utc.year, 4) + pad(utc.month, 2) + pad(utc.day, 2) + "T" + pad(utc.hour, 2)
      + pad(utc.minute, 2) + pad(utc.second, 2) + "."
      + pad(Int64(seconds.remainder), 3) + "Z"
  }
}

private func fileSize(_ path: String) -> Int {
  var info = stat()
  return stat(path, &info) == 0 ? Int(info.st_size) : 0
}
