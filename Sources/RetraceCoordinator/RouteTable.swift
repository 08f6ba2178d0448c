/// The deep links of an app: which URL segments stand for which routes, in both directions.
///
/// A link is `scheme://segment/segment/…`; the host is the first segment. Each route the
/// app can link to has an entry with a pattern of one or more segments, literal (`posts`)
/// or a parameter (`:id`). Reading a link matches the segments from left to right: the
/// first route is the root of a tab's stack, each following route is pushed onto it, and a
/// route whose entry is `presentedAs` a style starts a presentation. The flow rules decide
/// what may follow what, so a link can only lead where the user could have navigated.
///
/// ```swift
/// let links = RouteTable<PostsRoute>(scheme: "app")
///   .route(.postList, pattern: "posts")
///   .route("postDetail", pattern: ":id",
///          build: { Int($0[0]).map { .postDetail(id: $0) } },
///          parameters: { if case .postDetail(let id) = $0 { [String(id)] } else { nil } })
///   .route(.settings, pattern: "settings")
///
/// let path = try links.path(for: "app://posts/42", rules: postsRules)
/// // RoutePath(tab: "feed", stack: [.postList, .postDetail(id: 42)])
/// try links.url(for: path)   // "app://posts/42"
/// store.send(.navigation(.setPath(path: path)))
/// ```
///
/// When several entries match at a segment, those with the most literal segments compete (a
/// parameter never shadows a literal: `new` is the new-account sheet, not an account called
/// "new"), an entry whose parameters do not parse does not match, and among the rest the
/// first in table order that the rules allow wins. A query (`?…`) and a fragment (`#…`) are
/// ignored.
///
/// Patterns may also be written as paths from the root down, as a web app writes its routes:
/// an entry whose pattern begins with the segments of the route before it and goes on
/// (`notes/:id` after `notes`, `notes/:id/edit` after `notes/:id`) matches there when no
/// entry matches at the next segment, so `notes://notes/n1/edit` reads as the list, note
/// `n1` and its edit sheet. An entry whose pattern begins another's is tried before it
/// (`notes` before `notes/:id` at the root). A parameter a pattern names twice
/// (`notes/:id/edit/:id`) must have the same text in both places.
///
/// ```swift
/// let links = RouteTable<NotesRoute>(scheme: "notes")
///   .route(.list, pattern: "notes")
///   .route("detail", pattern: "notes/:id",
///          build: { .detail(id: $0[0]) },
///          parameters: { if case .detail(let id) = $0 { [id] } else { nil } })
///   .route("edit", pattern: "edit/:id", presentedAs: .sheet,
///          build: { .edit(id: $0[0]) },
///          parameters: { if case .edit(let id) = $0 { [id] } else { nil } })
///
/// try links.path(for: "notes://notes/n1/edit/n1", rules: notesRules)
/// // RoutePath(stack: [.list, .detail(id: "n1")],
/// //           presentations: [Presentation(.edit(id: "n1"), style: .sheet)])
/// ```
public struct RouteTable<Route: Routable>: Sendable {
  /// The URL scheme of the links, such as `app`.
  public let scheme: String
  private var entries: [Entry] = []

  private struct Entry: Sendable {
    enum Segment: Sendable, Equatable {
      case literal(String)
      case parameter(String)
    }

    var name: String
    var pattern: [Segment]
    var style: PresentationStyle?
    var build: @Sendable ([String]) -> Route?
    var parameters: @Sendable (Route) -> [String]?

    var parameterCount: Int {
      pattern.count(where: { if case .parameter = $0 { true } else { false } })
    }
  }

  /// Creates an empty table.
  ///
  /// - Parameter scheme: The URL scheme of the links, without `://`.
  public init(scheme: String) {
    self.scheme = scheme
  }

  /// Returns a table with an entry for a route without parameters.
  ///
  /// - Parameters:
  ///   - route: The route.
  ///   - pattern: Its literal segments, such as `posts` or `settings/about`.
  ///   - style: The style of presentation the route starts, or `nil` when it is pushed.
  /// - Returns: The extended table.
  public func route(_ route: Route, pattern: String, presentedAs style: PresentationStyle? = nil)
    -> RouteTable
  {
    let segments = Self.parsePattern(pattern)
    precondition(
      !segments.contains { if case .parameter = $0 { true } else { false } },
      "pattern \(pattern) of a fixed route may not have parameters")
    return adding(
      Entry(
        name: route.name, pattern: segments, style: style,
        build: { _ in route },
        parameters: { $0 == route ? [] : nil }))
  }

  /// Returns a table with an entry for a route with parameters.
  ///
  /// - Parameters:
  ///   - name: The route's ``Routable/name``.
  ///   - pattern: Its segments, where `:name` is a parameter, such as `:id` or `post/:id`.
  ///   - style: The style of presentation the route starts, or `nil` when it is pushed.
  ///   - build: Makes the route from the parameters' texts (in pattern order, decoded), or
  ///     returns `nil` when they are not valid.
  ///   - parameters: The parameters' texts of a route (in pattern order, a parameter named
  ///     twice as often as it appears), or `nil` when the route is not this entry's.
  /// - Returns: The extended table.
  public func route(
    _ name: String,
    pattern: String,
    presentedAs style: PresentationStyle? = nil,
    build: @escaping @Sendable (_ parameters: [String]) -> Route?,
    parameters: @escaping @Sendable (Route) -> [String]?
  ) -> RouteTable {
    adding(
      Entry(
        name: name, pattern: Self.parsePattern(pattern), style: style, build: build,
        parameters: parameters))
  }

  private func adding(_ entry: Entry) -> RouteTable {
    var table = self
    table.entries.append(entry)
    return table
  }

  private static func parsePattern(_ pattern: String) -> [Entry.Segment] {
    let segments = pattern.split(separator: "/").map { part -> Entry.Segment in
      part.hasPrefix(":") ? .parameter(String(part.dropFirst())) : .literal(String(part))
    }
    precondition(!segments.isEmpty, "a route pattern needs at least one segment")
    return segments
  }
}

extension RouteTable {
  /// Reads a deep link into the navigation path it stands for.
  ///
  /// - Parameters:
  ///   - url: The link, such as `app://posts/42`.
  ///   - rules: The flow rules the path must obey; they also say which tab a root belongs to.
  /// - Returns: The path; send it as ``NavigationAction/setPath(path:)``. Its tab is the
  ///   tab whose declared root starts the path, or `nil` (the selected tab) if there is none.
  /// - Throws: A ``CoordinatorError`` that names the failing segment: its index (the host is
  ///   segment 0), its text, and why (unknown, invalid parameter, forbidden).
  public func path(for url: String, rules: FlowRules<Route> = .allowingEverything)
    throws(CoordinatorError)
    -> RoutePath<Route>
  {
    let segments = try splitURL(url)
    var tab: String?
    var stack: [Route] = []
    var presentations: [Presentation<Route>] = []
    var index = 0
    // Where the segments of the route before began: an entry may start there again.
    var previousStart = 0

    while index < segments.count {
      let previous = presentations.last?.stack.last ?? stack.last
      // The entries that match at the next segment; failing that, those that repeat the
      // previous route's segments and go on from there (`notes/:id` after `notes`).
      var start = index
      var (candidates, invalidParameter) = self.candidates(
        in: segments, at: index, after: previous, rules: rules)
      if candidates.isEmpty, invalidParameter == nil, previous != nil {
        let overlapping = self.candidates(
          in: segments, at: previousStart, beyond: index, after: previous, rules: rules)
        if !overlapping.candidates.isEmpty {
          (candidates, start) = (overlapping.candidates, previousStart)
        }
        invalidParameter = overlapping.invalidParameter
      }

      // The first candidate the rules allow wins.
      var forbidden: CoordinatorError?
      var accepted: (route: Route, entry: Entry)?
      for candidate in candidates {
        guard
          let refusal = refusal(
            of: candidate.route, entry: candidate.entry, after: previous, rules: rules)
        else {
          accepted = candidate
          break
        }
        if forbidden == nil {
          forbidden = CoordinatorError(
            code: .forbidden, message: refusal.message, segmentIndex: index,
            segment: segments[index],
            refusalReason: refusal.reason.rawValue)
        }
      }

      guard let (route, entry) = accepted else {
        let after = previous.map { " after \($0.name)" } ?? ""
        throw forbidden ?? invalidParameter
          ?? CoordinatorError(
            code: .unknownSegment, message: "no route matches \"\(segments[index])\"\(after)",
            segmentIndex: index, segment: segments[index])
      }
      if previous == nil {
        tab = rules.tab(withRoot: route.name)
        stack.append(route)
      } else if let style = entry.style {
        presentations.append(Presentation(style: style, stack: [route]))
      } else if presentations.isEmpty {
        stack.append(route)
      } else {
        presentations[presentations.count - 1].stack.append(route)
      }
      previousStart = start
      index = start + entry.pattern.count
    }
    return RoutePath(tab: tab, stack: stack, presentations: presentations)
  }

  /// Writes the deep link that stands for a navigation path: the inverse of
  /// ``path(for:rules:)``.
  ///
  /// The path's tab is not written: reading the link back derives it from the root.
  ///
  /// - Parameter path: The path.
  /// - Returns: The link, such as `app://posts/42`, with parameters percent-encoded.
  /// - Throws: A ``CoordinatorError`` with code ``CoordinatorError/Code/unlinkable`` when a
  ///   route has no entry, or when a route would read back differently (a pushed route whose
  ///   entry is presented, or the other way round).
  public func url(for path: RoutePath<Route>) throws(CoordinatorError) -> String {
    var segments: [String] = []
    var previous: [String] = []
    try appendSegments(of: path.stack, presentedAs: nil, to: &segments, after: &previous)
    for presentation in path.presentations {
      try appendSegments(
        of: presentation.stack, presentedAs: presentation.style, to: &segments, after: &previous)
    }
    guard !segments.isEmpty else {
      throw CoordinatorError(code: .emptyPath, message: "the path has no routes")
    }
    return "\(scheme)://" + segments.joined(separator: "/")
  }

  /// Appends the segments of each route of `stack`. `previous` holds the segments of the
  /// route before (those it covers, repeated ones included): a route whose segments begin
  /// with them and go on (`notes/n1` after `notes`) writes only the rest, as reading expects.
  private func appendSegments(
    of stack: [Route],
    presentedAs style: PresentationStyle?,
    to segments: inout [String],
    after previous: inout [String]
  ) throws(CoordinatorError) {
    for (position, route) in stack.enumerated() {
      let expectedStyle = position == 0 ? style : nil
      guard
        let entry = entries.first(where: { $0.name == route.name && $0.style == expectedStyle }),
        let parameters = entry.parameters(route), parameters.count == entry.parameterCount
      else {
        let how = expectedStyle.map { "presented as a \($0.rawValue)" } ?? "pushed"
        throw CoordinatorError(
          code: .unlinkable, message: "the table has no entry for \(route.name) \(how)")
      }
      var next = parameters.makeIterator()
      var own: [String] = []
      for segment in entry.pattern {
        switch segment {
        case .literal(let text): own.append(text)
        case .parameter: own.append(next.next()!)
        }
      }
      let repeatsPrevious =
        segments.count > 0 && own.count > previous.count && own.starts(with: previous)
      let written = repeatsPrevious ? own.dropFirst(previous.count) : own[...]
      segments.append(contentsOf: written.map(PercentEncoding.encode))
      previous = own
    }
  }

  private func splitURL(_ url: String) throws(CoordinatorError) -> [String] {
    guard let separator = url.firstRange(of: "://") else {
      throw CoordinatorError(
        code: .malformedURL, message: "\"\(url)\" is not of the form \(scheme)://…")
    }
    let urlScheme = url[..<separator.lowerBound]
    guard urlScheme.lowercased() == scheme.lowercased() else {
      throw CoordinatorError(
        code: .wrongScheme, message: "the scheme is \"\(urlScheme)\", expected \"\(scheme)\"")
    }
    var rest = url[separator.upperBound...]
    if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
      rest = rest[..<end]
    }
    var segments: [String] = []
    for (index, part) in rest.split(separator: "/").enumerated() {
      guard let decoded = PercentEncoding.decode(part) else {
        throw CoordinatorError(
          code: .malformedURL, message: "the segment has a broken percent escape",
          segmentIndex: index, segment: String(part))
      }
      segments.append(decoded)
    }
    guard !segments.isEmpty else {
      throw CoordinatorError(code: .emptyPath, message: "\"\(url)\" names no route")
    }
    return segments
  }

  /// The routes of the entries that match `segments` at `start` (and cover more than the
  /// segments before `end`), in the order to try them: those with the most literal
  /// segments (a parameter never shadows a literal), each preceded by the entries whose
  /// patterns begin it (`notes` before `notes/:id`, shortest first); and, if an entry
  /// matched whose parameters do not parse, the error to report when nothing else does.
  private func candidates(
    in segments: [String], at start: Int, beyond end: Int? = nil, after previous: Route?,
    rules: FlowRules<Route>
  ) -> (candidates: [(route: Route, entry: Entry)], invalidParameter: CoordinatorError?) {
    var candidates: [(route: Route, entry: Entry)] = []
    var others: [(route: Route, entry: Entry)] = []
    var mostLiterals = -1
    var invalidParameter: CoordinatorError?
    let failing = end ?? start
    for entry in entries where matches(entry, segments, at: start) {
      if let end, start + entry.pattern.count <= end { continue }
      // A parameter that a pattern names twice (`notes/:id/edit/:id`) has one value.
      var parameterTexts: [String] = []
      var valueOfName: [String: String] = [:]
      var consistent = true
      for (offset, segment) in entry.pattern.enumerated() {
        guard case .parameter(let name) = segment else { continue }
        let text = segments[start + offset]
        if let earlier = valueOfName.updateValue(text, forKey: name), earlier != text {
          consistent = false
        }
        parameterTexts.append(text)
      }
      guard consistent else { continue }
      guard let route = entry.build(parameterTexts) else {
        if invalidParameter == nil, allowsEntry(entry, after: previous, rules: rules) {
          let texts = parameterTexts.map { "\"\($0)\"" }.joined(separator: ", ")
          invalidParameter = CoordinatorError(
            code: .invalidParameter,
            message: "\(texts) is not a valid parameter of \(entry.name)",
            segmentIndex: failing, segment: segments[failing])
        }
        continue
      }
      let literals = entry.pattern.count - entry.parameterCount
      if literals > mostLiterals {
        others += candidates
        candidates = [(route, entry)]
        mostLiterals = literals
      } else if literals == mostLiterals {
        candidates.append((route, entry))
      } else {
        others.append((route, entry))
      }
    }
    let beginnings = others.filter { other in
      candidates.contains { Self.pattern(other.entry.pattern, begins: $0.entry.pattern) }
    }
    .sorted { $0.entry.pattern.count < $1.entry.pattern.count }
    return (beginnings + candidates, invalidParameter)
  }

  /// Whether `pattern` is shorter than `longer` and each of its segments is the same literal,
  /// or a parameter where `longer` has one.
  private static func pattern(_ pattern: [Entry.Segment], begins longer: [Entry.Segment]) -> Bool {
    guard pattern.count < longer.count else { return false }
    for (segment, other) in zip(pattern, longer) {
      switch (segment, other) {
      case (.literal(let a), .literal(let b)) where a == b: continue
      case (.parameter, .parameter): continue
      default: return false
      }
    }
    return true
  }

  private func matches(_ entry: Entry, _ segments: [String], at index: Int) -> Bool {
    guard segments.count - index >= entry.pattern.count else { return false }
    for (offset, segment) in entry.pattern.enumerated() {
      if case .literal(let text) = segment, segments[index + offset] != text { return false }
    }
    return true
  }

  /// Whether the rules would let a route of `entry` follow `previous`, whatever its parameters.
  private func allowsEntry(_ entry: Entry, after previous: Route?, rules: FlowRules<Route>) -> Bool
  {
    guard let previous else {
      return entry.style == nil
        && rules.allowsRoot(named: entry.name, ofTab: rules.tab(withRoot: entry.name))
    }
    return entry.style == nil
      ? rules.allowsPush(fromName: previous.name, toName: entry.name)
      : rules.allowsPresent(fromName: previous.name, toName: entry.name)
  }

  private func refusal(
    of route: Route,
    entry: Entry,
    after previous: Route?,
    rules: FlowRules<Route>
  ) -> NavigationRefusal<Route>? {
    guard let previous else {
      let tab = rules.tab(withRoot: route.name)
      if entry.style == nil, rules.allowsRoot(named: route.name, ofTab: tab) { return nil }
      return NavigationRefusal(action: "setPath", reason: .notARoot, to: route)
    }
    if entry.style != nil {
      return rules.allowsPresent(from: previous, to: route)
        ? nil
        : NavigationRefusal(
          action: "present", reason: .presentNotAllowed, from: previous, to: route)
    }
    return rules.allowsPush(from: previous, to: route)
      ? nil : NavigationRefusal(action: "push", reason: .pushNotAllowed, from: previous, to: route)
  }
}
