import FlyingFox
import Foundation
import RetraceDebugger
import RetraceLog
import Synchronization

/// Answers every request: checks its Host header and (for the API) its token, routes it, and
/// turns every error into a JSON `{"error": …}` with a status, never a crash.
final class StudioHandler: HTTPHandler, Sendable {
  let catalog: SessionCatalog
  let token: String
  let page: PageResources
  /// The live link's endpoint, `GET /api/live`.
  let live: WebSocketHTTPHandler
  /// Where uploaded files go, or `nil` when the Studio takes none.
  let uploads: Uploads?
  /// What takes the live link's messages, and counts its connections.
  let hub: LiveHub
  private let served = Mutex<(address: ListenAddress, port: UInt16)?>(nil)

  /// A handler of `catalog`'s sessions, whose live link hands `hub` messages of at most
  /// `maximumLiveMessageSize` bytes.
  init(
    catalog: SessionCatalog, token: String, page: PageResources, hub: LiveHub,
    maximumLiveMessageSize: Int = LiveFrames.defaultMaximumMessageSize, uploads: Uploads? = nil
  ) {
    self.uploads = uploads
    self.catalog = catalog
    self.token = token
    self.page = page
    self.hub = hub
    self.live = WebSocketHTTPHandler(
      handler: LiveFrames(hub: hub, maximumMessageSize: maximumLiveMessageSize))
  }

  /// Sets the address served, whose Host header values to accept, once the port is known.
  func serve(_ address: ListenAddress, port: UInt16) {
    served.withLock { $0 = (address, port) }
  }

  func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
    do {
      return try await respond(to: request)
    } catch let error as APIError {
      return Self.error(error.message, status: error.status)
    } catch let error as SessionError {
      return Self.error(error.message, status: Self.status(error))
    } catch let error as DebuggerError {
      return Self.error(error.message, status: Self.status(error))
    } catch let error as TraceError {
      // The CLI's line: the file, where in it, and what is wrong there.
      return Self.error(error.description.oneLine(), status: Self.status(error))
    } catch {
      return Self.error("\(error)", status: 500)
    }
  }

  static func status(_ error: SessionError) -> Int {
    switch error.code {
    case .invalidRequest: 400
    case .notFound: 404
    case .conflict: 409
    case .tooLarge: 413
    case .failed: 500
    case .busy: 503
    case .storageFull: 507
    }
  }

  static func status(_ error: DebuggerError) -> Int {
    switch error.code {
    case .unknownDomain, .unknownInvariant, .unknownActionCase, .outOfRange: 404
    default: 400
    }
  }

  /// 404 for a sequence number out of range; 422 for a file that is not a session the
  /// Studio can read there (damaged, truncated, of a newer version or another domain,
  /// encrypted to a key not given); 500 for one that cannot be read at all (gone, an I/O
  /// error).
  static func status(_ error: TraceError) -> Int {
    switch error.code {
    case .outOfRange: 404
    case .notATrace, .unsupportedVersion, .truncated, .corrupted, .tooLarge, .undecodable,
      .wrongDomain, .encrypted:
      422
    case .notFound, .io, .closed: 500
    default: 500
    }
  }

  /// Whether `request` asks for an answer that may be hundreds of MB (an export, a whole
  /// state): such answers are made and written two at a time.
  static func isLargeAnswer(_ request: HTTPRequest) -> Bool {
    let path = request.path
    if path.hasSuffix("/export") { return true }
    guard path.hasSuffix("/state") else { return false }
    return request.query.contains { $0.name == "full" && ($0.value == "1" || $0.value == "true") }
  }

  /// Why the Studio will not read the body of `request`, a head with a body larger than an
  /// ordinary request's (an upload): the Host or the token is wrong, or the target does not
  /// decode. `nil` when it will.
  func refusalBeforeBody(_ request: HTTPRequest) -> RequestRefusal? {
    do {
      try checkHost(request)
      try checkToken(request, try RequestTarget(request.target).query)
    } catch let error as APIError {
      return RequestRefusal(error.status, error.message)
    } catch {
      return RequestRefusal(400, "\(error)")
    }
    return nil
  }

  /// DNS rebinding: a page of another site that resolves its name to this address sends
  /// that name as Host; only the address served is answered.
  ///
  /// - Throws: `APIError` 403 for another Host.
  private func checkHost(_ request: HTTPRequest) throws {
    let host = request.headers[.host]?.lowercased() ?? ""
    guard served.withLock({ $0?.address.accepts(host: host, port: $0!.port) ?? false }) else {
      throw APIError(403, "the Host header '\(host)' is not the address served")
    }
  }

  private func respond(to request: HTTPRequest) async throws -> HTTPResponse {
    try checkHost(request)
    let target = try RequestTarget(request.target)
    let parts = target.segments
    if parts == ["api", "live"] {
      try checkToken(request, target.query)
      guard hub.takesConnection else { throw APIError(503, hub.tooMany) }
      return try await live.handleRequest(request)
    }
    // The commands to a live session's app: move it, send it an action (the page posts
    // them, so that no link or prefetch can).
    if request.method == .POST, parts.count == 4, parts[0] == "api", parts[1] == "sessions",
      parts[3] == "jump" || parts[3] == "dispatch"
    {
      try checkToken(request, target.query)
      if parts[3] == "dispatch" {
        return Self.json(try await dispatch(parts[2], try await request.bodyData))
      }
      return Self.json(try await jump(parts[2], Parameters(target.query)))
    }
    // A trace file the page uploads, which then opens as a session.
    if request.method == .POST, parts == ["api", "uploads"] {
      try checkToken(request, target.query)
      guard let uploads else { throw APIError(404, "this Studio takes no uploads") }
      return Self.json(
        try await uploads.take(
          try await request.bodyData, name: Parameters(target.query).string("name") ?? ""))
    }
    // The other command: take a session off the list, and let go of what it holds.
    if request.method == .DELETE, parts.count == 3, parts[0] == "api", parts[1] == "sessions" {
      try checkToken(request, target.query)
      return Self.json(try remove(parts[2]))
    }
    guard request.method == .GET else {
      throw APIError(
        405,
        "only GET is served, and POST to …/jump, …/dispatch and /api/uploads, DELETE to /api/sessions/ID"
      )
    }
    guard parts.first == "api" else {
      let name = parts.isEmpty ? "index.html" : parts.joined(separator: "/")
      guard let file = page.files[name] else {
        if page.files.isEmpty { return Self.missingPage }
        throw APIError(404, "no such page: /\(name)")
      }
      return HTTPResponse(
        statusCode: .ok,
        headers: Self.commonHeaders.merging([
          .contentType: file.contentType,
          .cacheControl: "no-cache",
          HTTPHeader("Content-Security-Policy"):
            "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'",
        ]),
        body: file.data)
    }
    try checkToken(request, target.query)
    let started = ContinuousClock.now
    let value = try await api(Array(parts.dropFirst()), target.query)
    // The time the server took, for the page's Performance API (`serverTiming`): what a
    // move costs here, apart from the network and the drawing.
    let elapsed = ContinuousClock.now - started
    let milliseconds =
      Double(elapsed.components.seconds) * 1e3
      + Double(elapsed.components.attoseconds) / 1e15
    var response = Self.json(value)
    response.headers[HTTPHeader("Server-Timing")] =
      "app;dur=" + String(format: "%.1f", milliseconds)
    return response
  }

  /// Throws 401 unless `request` carries the token, as a bearer token or in `query`.
  private func checkToken(_ request: HTTPRequest, _ query: [HTTPRequest.QueryItem]) throws {
    var given = query["token"]
    if let authorization = request.headers[.authorization],
      authorization.lowercased().hasPrefix("bearer ")
    {
      given = String(authorization.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
    }
    guard let given, StudioToken.matches(given, token) else {
      throw APIError(
        401, "missing or wrong token: send Authorization: Bearer TOKEN or ?token=TOKEN")
    }
  }

  // MARK: - The API

  private func api(_ parts: [String], _ query: [HTTPRequest.QueryItem]) async throws
    -> any StudioAnswer
  {
    guard parts.first == "sessions" else { throw APIError(404, "no such endpoint") }
    if parts.count == 1 {
      // The summaries are made together (each on a worker thread when it needs work), so the
      // list waits for the slowest session, not for the sum of them; with `wait`, for at
      // most that many milliseconds: a session whose summary is still being made (a large
      // file just uploaded) is listed as loading, and the page asks again.
      let sessions = catalog.sessions
      let wait = try Parameters(query).integer("wait", in: 0...60_000)
      let deadline = wait.map { ContinuousClock.now + .milliseconds($0) }
      let list = await withTaskGroup(of: (Int, any StudioAnswer).self) { group in
        for (index, session) in sessions.enumerated() {
          group.addTask {
            do {
              guard let deadline else { return (index, try await session.summary()) }
              guard let summary = try await value(by: deadline, of: { try await session.summary() })
              else { return (index, Self.loading(session)) }
              return (index, summary)
            } catch {
              // One session that cannot be read is listed as such: it never hides the others.
              return (index, Self.unreadable(session, error))
            }
          }
        }
        var listed: [(Int, any StudioAnswer)] = []
        for await summary in group { listed.append(summary) }
        return listed
      }
      return AnswerList(items: list.sorted { $0.0 < $1.0 }.map(\.1))
    }
    guard let session = catalog.session(parts[1]) else {
      throw APIError(404, "no session '\(parts[1])'")
    }
    guard parts.count <= 3 else { throw APIError(404, "no such endpoint") }
    let endpoint = parts.count == 3 ? parts[2] : ""
    let parameters = Parameters(query)
    switch endpoint {
    case "": return try await session.detail()
    case "actions":
      return try await session.actions(
        from: parameters.sequence("from"), to: parameters.sequence("to"),
        type: parameters.string("type"), text: parameters.string("text"),
        limit: try parameters.integer("limit", in: 1...10_000) ?? 1_000)
    case "state":
      if let skipped = try parameters.sequences("skip") {
        return try await session.state(at: parameters.sequence("at"), skipping: skipped)
      }
      return try await session.state(
        at: parameters.sequence("at"), window: try parameters.window(),
        full: parameters.string("full") == "1" || parameters.string("full") == "true")
    case "search":
      return try await session.search(
        at: parameters.sequence("at"), query: try parameters.required("q"),
        limit: try parameters.integer("limit", in: 1...10_000) ?? 1_000)
    case "diff":
      return try await session.diff(
        from: parameters.sequence("from"), to: parameters.sequence("to"))
    case "bisect": return try await session.bisect(invariant: try parameters.required("invariant"))
    case "bench":
      return try await session.bench(
        repetitions: try parameters.integer("repeat", in: 1...20) ?? 3)
    case "flows": return try await session.flows()
    case "lanes":
      return try await session.lanes(
        buckets: try parameters.integer("buckets", in: 1...2_000) ?? 200,
        span: try parameters.span())
    case "export":
      let text = try await session.export(
        from: parameters.sequence("from"), to: parameters.sequence("to"))
      // Written as a JSON string on a worker thread: escaping 170 MB of JSON Lines held
      // one of the concurrency pool's two threads for seconds, and every answer waited.
      return EncodedJSON(
        try await offload(.largeAnswer) { RetraceLog.JSONValue.string(text).text })
    case "shrink": return try await session.shrink(invariant: try parameters.required("invariant"))
    default: throw APIError(404, "no such endpoint: \(endpoint)")
    }
  }

  /// What the session list says of a session whose summary failed: its id, the fields the
  /// page shows, an integrity and the `error`. The integrity's status is `damaged` or
  /// `truncated` for a file damaged where it was read, with the CLI's line as its `problem`
  /// and the position in `line`, `offset` and `sequence`; `unreadable` for any other error.
  /// What `GET /api/sessions?wait=MS` lists for a session whose summary is still being made:
  /// its id, and nothing that could be read as a count.
  static func loading(_ session: any StudioSession) -> LoadingEntry {
    LoadingEntry(id: session.id, live: session is any LiveSegment)
  }

  static func unreadable(_ session: any StudioSession, _ error: any Error) -> UnreadableEntry {
    let trace = error as? TraceError
    let message =
      (error as? APIError)?.message ?? (error as? SessionError)?.message
      ?? (error as? DebuggerError)?.message
      ?? trace?.description.oneLine() ?? "\(error)"
    let status =
      switch trace?.code {
      case .truncated: "truncated"
      case .corrupted, .tooLarge, .undecodable: "damaged"
      default: "unreadable"
      }
    return UnreadableEntry(
      id: session.id, name: session.id,
      integrity: IntegrityJSON(
        status: status, intactActions: 0, recoveredActions: 0, problem: message,
        line: trace?.line, offset: trace?.offset, sequence: trace?.sequence),
      live: session is any LiveSegment, error: message)
  }

  /// `DELETE /api/sessions/{id}`: removes a session from the list, unless it is a live one
  /// whose app is connected (409). A file given to `serve` is not touched (it is read again
  /// by serving it again), nor a live one's recording; the Studio's own copy of a file the
  /// page uploaded is deleted.
  private func remove(_ id: String) throws -> RemovedAnswer {
    guard let session = catalog.session(id) else { throw APIError(404, "no session '\(id)'") }
    if let live = session as? any LiveSegment, live.isConnected {
      throw APIError(
        409, "the app of live session '\(id)' is connected: a session is removed once it has ended")
    }
    guard let removed = catalog.remove(id) else { throw APIError(404, "no session '\(id)'") }
    uploads?.removed(id)
    // What it holds (a whole session, its checkpoints) is freed when the last request that
    // uses it ends, here or on a worker thread: off this one.
    releaseInBackground(removed, returningMemory: true)
    return RemovedAnswer(id: id)
  }

  /// `POST /api/sessions/{id}/jump?to=N`: sends a live session's app the `jump` command.
  private func jump(_ id: String, _ parameters: Parameters) async throws -> JumpSentAnswer {
    guard let session = catalog.session(id) else { throw APIError(404, "no session '\(id)'") }
    guard let live = session as? any LiveSegment else {
      throw APIError(404, "session '\(id)' is a file, not a live session: there is no app to move")
    }
    let text = try parameters.required("to")
    let target: UInt64?
    if text == "last" {
      target = nil
    } else {
      guard let value = UInt64(text) else {
        throw APIError(
          400, "'to' must be a sequence number (a whole number from 0) or last, not '\(text)'")
      }
      target = value
    }
    let sent = try await live.jump(to: target)
    return JumpSentAnswer(to: sent)
  }

  /// `POST /api/sessions/{id}/dispatch` with an action's JSON as the body: sends a live
  /// session's app the `dispatch` command.
  private func dispatch(_ id: String, _ body: Data) async throws -> DispatchSentAnswer {
    guard let session = catalog.session(id) else { throw APIError(404, "no session '\(id)'") }
    guard let live = session as? any LiveSegment else {
      throw APIError(
        404, "session '\(id)' is a file, not a live session: there is no app to send an action to")
    }
    guard let text = String(data: body, encoding: .utf8),
      !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    else {
      throw APIError(
        400, "the body must be the action as JSON text (UTF-8), and is empty or not text")
    }
    let name = try await live.dispatch(json: text)
    return DispatchSentAnswer(case: name)
  }

  // MARK: - Responses

  private static let commonHeaders: HTTPHeaders = [
    HTTPHeader("X-Content-Type-Options"): "nosniff",
    // The page's address carries the token; it must not leak to another site.
    HTTPHeader("Referrer-Policy"): "no-referrer",
  ]

  /// What the page's address answers when the page's files are missing (the executable
  /// was copied without its resource bundle): a page that says so and how to fix it, 500.
  static var missingPage: HTTPResponse {
    let html = """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8"><title>Retrace Studio: the page is missing</title></head>
      <body>
      <h1>Retrace Studio: the page's files are missing</h1>
      <p>This <code>retrace</code> found no <code>Retrace_RetraceStudio.resources</code> beside it.
      The build copies the page, <code>Sources/RetraceStudio/Page</code>, into that resource bundle
      next to the executable (<code>.build/debug</code> or <code>.build/release</code>); an
      executable copied elsewhere alone leaves it behind.</p>
      <p>To fix it, run the <code>retrace</code> that <code>swift build --product retrace</code> built
      where it is, or copy <code>Retrace_RetraceStudio.resources</code> beside the executable, then
      start <code>retrace serve</code> again. The API under <code>/api/</code> answers meanwhile.</p>
      </body></html>
      """
    return HTTPResponse(
      statusCode: HTTPStatusCode(500, phrase: phrase(500)),
      headers: commonHeaders.merging([
        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
      ]),
      body: Data(html.utf8))
  }

  /// `answer` as JSON, written by ``ReportJSON``: a 500 that says why when it cannot be
  /// written (a number in it that is not finite).
  static func json(_ answer: any StudioAnswer, status: Int = 200) -> HTTPResponse {
    var (status, text) = (status, "")
    do {
      text = try answer.text
    } catch {
      status = 500
      text =
        (try? ErrorAnswer(error: "the answer could not be written as JSON: \(error)").text)
        ?? "{}"
    }
    return HTTPResponse(
      statusCode: HTTPStatusCode(status, phrase: phrase(status)),
      headers: commonHeaders.merging([
        .contentType: "application/json; charset=utf-8", .cacheControl: "no-store",
      ]),
      body: Data(text.utf8))
  }

  /// An ``ErrorAnswer`` that says `message`, with `status`.
  static func error(_ message: String, status: Int) -> HTTPResponse {
    json(ErrorAnswer(error: message), status: status)
  }

  private static func phrase(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 409: "Conflict"
    case 411: "Length Required"
    case 413: "Content Too Large"
    case 414: "URI Too Long"
    case 422: "Unprocessable Content"
    case 431: "Request Header Fields Too Large"
    case 503: "Service Unavailable"
    case 507: "Insufficient Storage"
    case 505: "HTTP Version Not Supported"
    default: "Internal Server Error"
    }
  }
}

extension HTTPHeaders {
  fileprivate func merging(_ other: HTTPHeaders) -> HTTPHeaders {
    var merged = self
    for (key, value) in other { merged[key] = value }
    return merged
  }
}

/// A request's query parameters, read with one clear error for a bad value.
struct Parameters {
  let items: [HTTPRequest.QueryItem]

  init(_ items: [HTTPRequest.QueryItem]) { self.items = items }

  func string(_ name: String) -> String? {
    guard let value = items[name], !value.isEmpty else { return nil }
    return value
  }

  func required(_ name: String) throws -> String {
    guard let value = string(name) else { throw APIError(400, "missing parameter '\(name)'") }
    return value
  }

  func sequence(_ name: String) throws -> UInt64? {
    guard let text = string(name) else { return nil }
    guard let value = UInt64(text) else {
      throw APIError(
        400, "'\(name)' must be a sequence number (a whole number from 0), not '\(text)'")
    }
    return value
  }

  /// `from` and `to`, sequence numbers, as a range (either end open when absent); `nil`
  /// when both are absent.
  func span() throws -> ClosedRange<UInt64>? {
    let from = try sequence("from")
    let to = try sequence("to")
    if from == nil && to == nil { return nil }
    let lower = from ?? 0
    let upper = to ?? .max
    guard lower <= upper else { throw APIError(400, "from (\(lower)) is after to (\(upper))") }
    return lower...upper
  }

  /// A comma-separated list of sequence numbers, at most 1,000 of them; `nil` when absent.
  func sequences(_ name: String) throws -> Set<UInt64>? {
    guard let text = string(name) else { return nil }
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count <= 1_000 else {
      throw APIError(400, "'\(name)' lists at most 1,000 sequence numbers")
    }
    var values = Set<UInt64>()
    for part in parts {
      guard let value = UInt64(part) else {
        throw APIError(
          400,
          "'\(name)' must be sequence numbers separated by commas, not '\(part.prefix(40))'")
      }
      values.insert(value)
    }
    return values
  }

  /// `path` (a JSON array of keys and indexes), `offset` and `limit` (1 to 1,000; 100 by
  /// default): the items of the array at `path` to keep.
  func window() throws -> StateWindow? {
    guard let text = string("path") else { return nil }
    guard let steps = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any] else {
      throw APIError(
        400, "'path' must be a JSON array of keys and indexes, such as [\"accounts\",0]")
    }
    var path: [PathStep] = []
    for step in steps {
      if let key = step as? String {
        path.append(.key(key))
      } else if let number = step as? NSNumber, let index = Int(exactly: number.doubleValue),
        index >= 0
      {
        path.append(.index(index))
      } else {
        throw APIError(
          400, "'path' must hold only keys (strings) and indexes (whole numbers from 0)")
      }
    }
    let offset = try integer("offset", in: 0...Int(Int32.max)) ?? 0
    let limit = try integer("limit", in: 1...1_000) ?? 100
    return StateWindow(path: path, range: offset..<(offset + limit))
  }

  func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
    guard let text = string(name) else { return nil }
    guard let value = Int(text), range.contains(value) else {
      throw APIError(
        400,
        "'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'"
      )
    }
    return value
  }
}

/// The page: the files under `Page/`, read once.
struct PageResources: Sendable {
  struct File: Sendable {
    var data: Data
    var contentType: String
  }

  let files: [String: File]

  static func load() -> PageResources {
    // `Bundle.module` stops the process when the resource bundle is not where the build put
    // it (beside the executable): look first, and serve the API without a page if it is gone.
    let beside = ["Retrace_RetraceStudio.resources", "Retrace_RetraceStudio.bundle"].map {
      Bundle.main.bundleURL.appendingPathComponent($0).path
    }
    guard beside.contains(where: { FileManager.default.fileExists(atPath: $0) }) else {
      warn(
        "warning: the page's files (Retrace_RetraceStudio.resources) are not beside the executable; only the API is served"
      )
      return PageResources(files: [:])
    }
    guard let root = Bundle.module.url(forResource: "Page", withExtension: nil),
      let names = try? FileManager.default.contentsOfDirectory(atPath: root.path)
    else { return PageResources(files: [:]) }
    var files: [String: File] = [:]
    for name in names {
      guard let data = try? Data(contentsOf: root.appendingPathComponent(name)) else { continue }
      files[name] = File(data: data, contentType: contentType(of: name))
    }
    return PageResources(files: files)
  }

  private static func contentType(of name: String) -> String {
    switch (name as NSString).pathExtension {
    case "html": "text/html; charset=utf-8"
    case "js": "text/javascript; charset=utf-8"
    case "css": "text/css; charset=utf-8"
    case "svg": "image/svg+xml"
    case "png": "image/png"
    default: "application/octet-stream"
    }
  }
}
