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
    let days = Int64((Double(seconds.quotient) / 86_400).rounded(.down))
    let secondOfDay = seconds.quotient - days * 86_400
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    func pad(_ value: Int64, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return pad(year, 4) + pad(month, 2) + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2)
      + pad(secondOfDay / 60 % 60, 2) + pad(secondOfDay % 60, 2) + "."
      + pad(Int64(seconds.remainder), 3) + "Z"
  }
}

private func fileSize(_ path: String) -> Int {
  var info = stat()
  return stat(path, &info) == 0 ? Int(info.st_size) : 0
}
