import Foundation
import Retrace
import RetraceCoordinator
import RetraceDebugger
import RetraceLog
import Synchronization

/// A session of the file, as `domain`'s, that the catalog holds without knowing its type.
func makeFileSession(
  _ domain: any Domain, file: SessionFile, id: String, flows: [NavigationFlow],
  key: TracePrivateKey?
) -> any StudioSession {
  func open<E: Domain>(_ domain: E) -> any StudioSession {
    FileSession<E>(
      id: id, domain: domain, file: file, flow: flows.first { $0.domain == domain.name },
      key: key)
  }
  return open(domain)
}

/// A session read from a trace or JSON Lines file, answered by the debugger's engine.
///
/// A state, a diff or a page of actions comes from the file through its index (a few
/// chunks, from the nearest snapshot), so the page shows a million-action session at once;
/// what needs every action (bisect, bench, shrink, flows, swimlanes) loads the whole session
/// once, in the background, and keeps it. States come through the session layer's
/// `SessionStates`: from the file, its anchors, or, once the session is in memory, from its
/// `SpacedStates`.
final class FileSession<D: Domain>: StudioSession {
  let id: String
  let domain: D
  let file: SessionFile
  let flow: NavigationFlow?
  /// The private key the file was opened with, when it is an encrypted trace.
  let key: TracePrivateKey?
  /// The session as read from its file (`states.source`), and its states and actions from
  /// the fastest place that holds them.
  private let states: LazyValue<SessionStates<D>>
  /// The file as far as it is intact and its summary, from one check of every chunk: the
  /// summary counts what the session's requests read.
  private let checked: LazyValue<(checked: SessionFile, summary: SessionFile.Summary)>
  /// The file that requests read: the file itself when opening checked every chunk (a trace
  /// without an index, JSON Lines); else, once the check is done, its intact part, so that
  /// a trace opened from its index is never read past damage the summary stops at.
  private let readable: LazyValue<SessionFile>
  private let debugger: LazyValue<ReplayEngine<D>>
  private let laneCounts: LazyValue<CaseTimeline>
  /// States every few thousand actions, made by one replay once the whole session is in
  /// memory: a jump replays at most their spacing.
  private let checkpoints: LazyValue<SpacedStates<D>>
  /// The previews of the last states shown: a step forward finds the state before it here.
  private let previews = Mutex<[(sequence: UInt64, preview: StatePreview)]>([])

  init(id: String, domain: D, file: SessionFile, flow: NavigationFlow?, key: TracePrivateKey?) {
    self.id = id
    self.key = key
    self.domain = domain
    self.file = file
    self.flow = flow
    // With the domain itself: the summary is made on a worker thread, which sees no
    // task-local registry.
    let checked = LazyValue(
      on: .wholeSession, offloading: { try file.checkedSummary(domain: domain) })
    self.checked = checked
    let readable = LazyValue {
      guard case .trace(let reader) = file.content, !reader.checkedEveryChunk else { return file }
      return try await checked.value.checked
    }
    self.readable = readable
    let debugger = LazyValue {
      let file = try await readable.value
      return try await offload(.wholeSession) { try file.debugger(as: domain) }
    }
    self.debugger = debugger
    let checkpoints = LazyValue {
      let debugger = try await debugger.value
      return try await offload(.wholeSession) {
        SpacedStates(debugger, estimate: StatePreview.estimate)
      }
    }
    self.checkpoints = checkpoints
    // Once the session is in memory, a state comes from its spaced states, made on first
    // need.
    states = LazyValue {
      let file = try await readable.value
      let source = try await offload { try file.source(as: domain, cachedSnapshots: 16) }
      return SessionStates(
        source, engine: { debugger.ready },
        spacedStates: {
          checkpoints.start()
          return checkpoints.ready
        },
        release: { releaseInBackground($0) })
    }
    // The swimlanes come once the session is in memory and its checkpoints are made (both
    // at once, on two threads), so that the page, when it shows them, moves at full speed.
    laneCounts = LazyValue {
      let session = try await debugger.value.session
      async let made = checkpoints.value
      let lanes = try await offload(.wholeSession) { CaseTimeline(session: session) }
      _ = try await made
      return lanes
    }
    checked.start()
  }

  // MARK: - Sessions

  func summary() async throws -> any StudioAnswer { try await sessionSummary() }

  /// What `GET /api/sessions` lists for the session.
  func sessionSummary() async throws -> SessionSummary {
    summaryAnswer(try await checked.value.summary)
  }

  private func summaryAnswer(_ summary: SessionFile.Summary) -> SessionSummary {
    SessionSummary(
      id: id, file: file.path, format: summary.format, domain: summary.info.domain,
      actions: summary.actionCount, firstSequence: summary.firstSequence,
      lastSequence: summary.lastSequence, startTime: summary.info.startTime,
      duration: summary.duration, integrity: IntegrityJSON(summary.integrity))
  }

  func detail() async throws -> any StudioAnswer { try await sessionDetail() }

  /// `GET /api/sessions/{id}`.
  func sessionDetail() async throws -> SessionDetail {
    let summary = try await checked.value.summary
    let source = try await states.value.source
    return SessionDetail(
      summary: summaryAnswer(summary), startSequence: source.startSequence,
      producer: summary.info.producer, sessionID: summary.info.sessionID, bytes: summary.bytes,
      snapshots: summary.snapshots, checkpoints: summary.checkpoints,
      // The recording holds the state a jump set, not the action it came from (`to`, which
      // a live session gives).
      jumps: source.jumpSequences.map { SessionDetail.Jump(after: $0, to: nil) },
      domainSummary: domain.summary,
      actionCases: summary.caseCounts.map { .init(name: $0.name, count: $0.count) },
      invariants: domain.invariants.map { .init(name: $0.name, summary: $0.summary) },
      navigation: flow != nil,
      displayFormats: domain.displayFormats.mapValues(DisplayFormatAnswer.init))
  }

  // MARK: - Actions, states, diffs

  func actions(from: UInt64?, to: UInt64?, type: String?, text: String?, limit: Int)
    async throws -> any StudioAnswer
  {
    if let type, !domain.actionCases.contains(type) {
      throw DebuggerError(
        .unknownActionCase,
        "unknown action case '\(type)' for domain \(domain.name); known: "
          + domain.actionCases.joined(separator: ", "))
    }
    let file = try await readable.value
    let domain = self.domain
    let needle = text.map(TextNeedle.init)
    let formats = ActionDisplayFormats(domain)
    // A filter reads at most this many actions per request: a rare match in a long session
    // comes a page at a time, with `next` saying where to go on, rather than after one long
    // wait.
    let filtered = type != nil || text != nil
    let budget = filtered ? Self.filterReadBudget : Int.max
    // The session as read once: a JSON Lines file is not parsed again for each page.
    let source = try await states.value.source
    // A filter's read of up to a budget of actions is long work: on the pool for it, so
    // that filters sent together never keep a step or a page of actions waiting.
    return try await answering(source) {
      try await offload(filtered ? .wholeSession : .point) {
        // The action before `from` is read too, for the time since it.
        let before = from.flatMap { from in
          from > source.startSequence + 1 && from <= min(to ?? .max, source.lastSequence)
            ? from - 1 : nil
        }
        let actions = try file.actions(as: domain, from: before ?? from, through: to, in: source)
        let writer = JSONLines.ActionWriter<D.Action>()
        var items: [ActionItem] = []
        var next: UInt64?
        var previousTime: Double?
        var read = 0
        try actions.forEachAction { action in
          defer { previousTime = action.time }
          if action.sequence == before { return true }
          if read == budget {
            next = action.sequence
            return false
          }
          read += 1
          let name = actionCaseName(of: action.action)
          if let type, name != type { return true }
          var encoded: String?
          if let needle {
            encoded = try? writer.json(for: action.action)
            guard
              encoded.map(needle.isFound(in:)) == true
                || needle.isFound(in: actionLabel(action.action, formats: formats))
            else { return true }
          }
          if items.count == limit {
            next = action.sequence
            return false
          }
          // `nil` (JSON null) for the session's first action, which is still listed with it.
          let since: Double? = previousTime.map { action.time - $0 }
          items.append(
            Self.json(
              action, name: name, writer: writer, formats: formats, encoded: encoded,
              sincePrevious: .some(since)))
          return true
        }
        return ActionsPage(
          from: actions.range.map { from ?? $0.lowerBound }, to: actions.range?.upperBound,
          last: actions.last, next: next, actions: items)
      }
    }
  }

  /// What `read` answers, with a sequence number past the intact part of a damaged trace
  /// answered by the damage (422, with the line `retrace info` gives) rather than as out of
  /// range (404): the file may hold the action, but not readably.
  private func answering<T>(_ source: any SessionSource<D>, _ read: () async throws -> T)
    async throws -> T
  {
    do {
      return try await read()
    } catch let error as TraceError where error.code == .outOfRange {
      guard let damage = (source as? TraceSession<D>)?.reader.integrity.damage,
        let sequence = error.sequence, sequence > source.lastSequence
      else { throw error }
      throw damage
    }
  }

  /// An action as `log --json` prints it, with its case's name and its one-line label
  /// (`navigation › push(route: about)`), with the numbers `formats` names formatted.
  /// In a list of actions, `sincePrevious`: the seconds since the session's previous action
  /// (`null` for its first).
  private static func json(
    _ action: TimedAction<D.Action>, name: String, writer: JSONLines.ActionWriter<D.Action>,
    formats: ActionDisplayFormats, encoded: String? = nil, sincePrevious: Double?? = nil
  ) -> ActionItem {
    ActionItem(
      seq: action.sequence, time: action.time,
      action: (encoded ?? (try? writer.json(for: action.action))).map(EncodedJSON.init),
      case: name, label: actionLabel(action.action, formats: formats),
      sincePrevious: sincePrevious.map { NullWhenAbsent(wrappedValue: $0) })
  }

  func state(at sequence: UInt64?, skipping skipped: Set<UInt64>) async throws
    -> any StudioAnswer
  {
    let states = try await states.value
    let source = states.source
    // A replay of up to the whole session: on the pool for such work, so that it never keeps
    // a step or a jump waiting.
    return try await answering(source) {
      try await offload(.wholeSession) {
        let target = sequence ?? source.lastSequence
        try source.checkInRange(target)
        let recorded = try states.state(at: target)
        let replay = try states.state(at: target, skipping: skipped)
        let (state, left) = (replay?.state ?? recorded, replay?.skipped ?? [])
        let before = try StatePreview.capturing(recorded)
        let found = try StatePreview.changes(from: before.0, before.1, to: state)
        return SkippedStateAnswer(
          seq: target, last: source.lastSequence, skipped: left,
          state: EncodedJSON(found.preview.json),
          changed: EncodedJSON(.array(found.changes.map(\.json))))
      }
    }
  }

  func state(at sequence: UInt64?, window: StateWindow?, full: Bool) async throws
    -> any StudioAnswer
  {
    let states = try await states.value
    let source = states.source
    let flow = self.flow
    let domain = self.domain
    return try await answering(source) {
      // A whole state (a million transactions, hundreds of MB of JSON) is a large answer.
      try await offload(full ? .largeAnswer : .point) { [self] in
        let target = sequence ?? source.lastSequence
        try source.checkInRange(target)
        var action: TimedAction<D.Action>?
        var changes: [StatePreview.Change] = []
        let state: D.State
        if target > source.startSequence {
          let next = try states.action(at: target)
          action = next
          // The state before, and the action applied to it: a step forward takes the last
          // state shown, and changes it in place.
          var after = try states.take(at: target - 1) ?? states.state(at: target - 1)
          let before = window == nil ? try self.preview(of: after, at: target - 1) : nil
          // The long arrays before the action, to find what it changed between their ends.
          let beforeArrays = window == nil ? try StatePreview.capturing(after).1 : nil
          _ = domain.reduce(into: &after, action: next.action)
          // A time-travel jump after the action set the state the app showed instead.
          if source.jumpSequences.contains(target) {
            after = try states.state(at: target)
          }
          state = after
          if let before, let beforeArrays {
            let found = try StatePreview.changes(from: before, beforeArrays, to: state)
            keepPreview(found.preview, at: target)
            changes = found.changes
          }
        } else {
          state = try source.state(at: target)
        }
        states.keep(state, at: target)
        if let window {
          let preview = try StatePreview(state, window: (window.path, window.range))
          guard let node = preview.node(at: window.path) else {
            throw SessionError(.notFound, "the state after \(target) has nothing at that path")
          }
          return StateWindowAnswer(
            seq: target, path: EncodedJSON(.array(window.path.map(\.json))),
            value: EncodedJSON(node.json)) as any StudioAnswer
        }
        let preview = try self.preview(of: state, at: target)
        let stateJSON: EncodedJSON
        if full {
          let encoder = JSONEncoder()
          encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
          stateJSON = EncodedJSON(String(decoding: try encoder.encode(state), as: UTF8.self))
        } else {
          stateJSON = EncodedJSON(preview.json)
        }
        let writer = JSONLines.ActionWriter<D.Action>()
        let screens = flow?.screenPath(of: state)
        return StateAnswer(
          seq: target, last: source.lastSequence,
          action: action.map {
            Self.json(
              $0, name: actionCaseName(of: $0.action), writer: writer,
              formats: ActionDisplayFormats(domain))
          },
          state: stateJSON, changed: EncodedJSON(.array(changes.map(\.json))),
          jumped: target > source.startSequence && source.jumpSequences.contains(target),
          screens: screens.map {
            ScreenPathAnswer(tab: $0.tab, screens: $0.screens, visible: $0.visible)
          })
      }
    }
  }

  /// The preview of `state`, the state after `sequence`: from the cache, or made and kept.
  private func preview(of state: D.State, at sequence: UInt64) throws -> StatePreview {
    if let cached = previews.withLock({ $0.first { $0.sequence == sequence }?.preview }) {
      return cached
    }
    let preview = try StatePreview(state)
    keepPreview(preview, at: sequence)
    return preview
  }

  /// Keeps `preview`, of the state after `sequence`, with the last few.
  private func keepPreview(_ preview: StatePreview, at sequence: UInt64) {
    previews.withLock {
      $0.removeAll { $0.sequence == sequence }
      $0.append((sequence, preview))
      if $0.count > 4 { $0.removeFirst() }
    }
  }

  func search(at sequence: UInt64?, query: String, limit: Int) async throws -> any StudioAnswer {
    let states = try await states.value
    let source = states.source
    return try await answering(source) {
      try await offload {
        let target = sequence ?? source.lastSequence
        try source.checkInRange(target)
        // The state shown last is kept by the states, and read where it is (a copy that is
        // never changed costs nothing); another is replayed.
        let state =
          try target > source.startSequence
          ? states.state(at: target) : source.state(at: target)
        let search = try StateSearch(state, query: query, limit: limit)
        return SearchAnswer(
          seq: target, query: query, count: search.paths.count, complete: search.complete,
          paths: EncodedJSON(.array(search.paths.map { .array($0.map(\.json)) })))
      }
    }
  }

  func diff(from: UInt64?, to: UInt64?) async throws -> any StudioAnswer {
    let source = try await states.value.source
    let formats = domain.displayFormats
    return try await answering(source) {
      try await offload {
        let (from, to) = (from ?? source.startSequence, to ?? source.lastSequence)
        let (old, new) = try source.states(from: from, to: to)
        // One diff: the text is written from the changes the page marks (a line each, with
        // the domain's display formats), so that the two never disagree; `complete` says
        // whether all the changes are there. Whether anything changed is asked of the states
        // themselves (`==`): the changes leave out what lies between the ends of a long array
        // they cannot compare, and what the states' JSON does not show.
        let diff = old == new ? nil : try StateChanges(from: old, to: new)
        let text = diff.map { diff in
          diff.changes.isEmpty && diff.uncompared.isEmpty
            ? (text: Self.unseenDifference, isComplete: true)
            : (text: diff.text(formats), isComplete: diff.isComplete)
        }
        let changes = diff?.changes ?? []
        return DiffAnswer(
          from: from, to: to, changed: text != nil,
          diff: text.map { displayFormatted($0.text, formats) },
          complete: text?.isComplete ?? true,
          changes: EncodedJSON(.array(changes.map(\.json))))
      }
    }
  }

  /// The diff's text for two states that are not equal but whose JSON is the same.
  static var unseenDifference: String {
    "the states are not equal (==), but their JSON is the same: what differs is not encoded, "
      + "or is not equal to itself (NaN)"
  }

  // MARK: - What needs the whole session

  /// `readWhole` is false, and `integrity` says why, when the session could not be read to
  /// its end (a damaged trace, or a crashed session's journal damaged or missing): then the
  /// invariant holding is known only of the actions read.
  func bisect(invariant: String) async throws -> any StudioAnswer {
    _ = try invariantNamed(invariant)
    let debugger = try await debugger.value
    let integrity = try await checked.value.summary.integrity
    return try await offload(.wholeSession) {
      let result = try debugger.bisect(invariant: invariant)
      let stretches =
        result.firstViolation == nil ? [] : try debugger.violations(invariant: invariant)
      let writer = JSONLines.ActionWriter<D.Action>()
      return BisectAnswer(
        invariant: invariant, firstViolation: result.firstViolation,
        action: result.action.flatMap { try? writer.json(for: $0.action) }.map(EncodedJSON.init),
        healedAt: result.healedAt, actions: debugger.session.actions.count,
        // Where a time-travel jump after the action set the state, as `bisect --json` says.
        failsAtJump: result.firstViolation.map(debugger.jumped(after:)) ?? false,
        healsAtJump: result.healedAt.map(debugger.jumped(after:)) ?? false,
        readWhole: integrity.isIntact, integrity: IntegrityJSON(integrity),
        violations: stretches.map { .init(fails: $0.fails, healedAt: $0.healedAt) },
        nothingChecked: result.firstViolation == nil && debugger.session.actions.isEmpty)
    }
  }

  func bench(repetitions: Int) async throws -> any StudioAnswer {
    let debugger = try await debugger.value
    let (path, domain, key) = (file.path, self.domain, self.key)
    return try await offload(.wholeSession) {
      let report = try debugger.bench(
        repetitions: repetitions,
        decode: { _ = try SessionFile.open(path, key: key).load(as: domain) })
      // With `debugBuild` and its warning, as `retrace bench --json` prints it.
      return EncodedJSON(try BenchBuild.json(report))
    }
  }

  func flows() async throws -> any StudioAnswer {
    guard let flow else {
      throw SessionError(.notFound, "domain \(domain.name) has no navigation flow")
    }
    let debugger = try await debugger.value
    return try await offload(.wholeSession) {
      FlowsAnswer(
        allowed: FlowGraphAnswer(flow.allowed),
        observed: FlowGraphAnswer(flow.observed(in: debugger.session) ?? FlowGraph()))
    }
  }

  func lanes(buckets: Int, span: ClosedRange<UInt64>?) async throws -> any StudioAnswer {
    let lanes = try await laneCounts.value
    return try await offload { lanes.answer(buckets: buckets, span: span) }
  }

  func export(from: UInt64?, to: UInt64?) async throws -> String {
    let debugger = try await debugger.value
    let domain = self.domain
    return try await offload(.largeAnswer) {
      let session = debugger.session
      let first = from ?? session.startSequence + 1
      let last = to ?? session.endSequence
      if session.actions.isEmpty {
        return try JSONLines.headerLine(for: session, domain: domain) + "\n"
      }
      for bound in [first, last]
      where !(session.startSequence + 1...session.endSequence).contains(bound) {
        throw SessionError(
          .notFound,
          "sequence \(bound) out of range \(session.startSequence + 1)...\(session.endSequence)")
      }
      guard first <= last else {
        throw SessionError(.invalidRequest, "from (\(first)) is after to (\(last))")
      }
      // The state at the range's start includes a jump there; one inside it would be lost.
      if let jump = session.jumps.first(where: { (first..<last).contains($0.sequence) }) {
        throw SessionError(
          .invalidRequest,
          "the range holds a time-travel jump after action \(jump.sequence), which JSON Lines cannot hold; export the actions before or after it"
        )
      }
      let slice = Array(session.actions[session.index(of: first)...session.index(of: last)])
      let range = RecordedSession<D>(
        info: session.info, startSequence: first - 1,
        initialState: try debugger.state(at: first - 1), actions: slice)
      var text = try JSONLines.headerLine(for: range, domain: domain) + "\n"
      let writer = JSONLines.ActionWriter<D.Action>()
      for action in slice {
        text += try writer.line(for: action)
        text += "\n"
      }
      return text
    }
  }

  /// When the invariant never fails, `readWhole` and `integrity` say whether that is of the
  /// whole session, as in ``bisect(invariant:)``.
  func shrink(invariant: String) async throws -> any StudioAnswer {
    _ = try invariantNamed(invariant)
    let debugger = try await debugger.value
    let domain = self.domain
    let integrity = try await checked.value.summary.integrity
    return try await offload(.wholeSession) {
      guard let shrunk = try debugger.shrink(invariant: invariant) else {
        return ShrinkAnswer(
          invariant: invariant, fails: false, actions: debugger.session.actions.count,
          readWhole: integrity.isIntact, integrity: IntegrityJSON(integrity))
      }
      // The shrunk session, numbered from 1, as `shrink -o` writes it.
      let session = shrunk.session
      var text = try JSONLines.headerLine(for: session, domain: domain) + "\n"
      let writer = JSONLines.ActionWriter<D.Action>()
      for action in session.actions {
        text += try writer.line(for: action)
        text += "\n"
      }
      return ShrinkAnswer(
        invariant: invariant, fails: true, actions: shrunk.actions.count,
        originalCount: shrunk.originalCount, replays: shrunk.replays, jsonl: text,
        swiftTest: shrunk.swiftTest(domainInitialState: domain.initialState))
    }
  }

  private func invariantNamed(_ name: String) throws -> Invariant<D.State> {
    guard let invariant = domain.invariant(named: name) else {
      throw DebuggerError(
        .unknownInvariant,
        "unknown invariant '\(name)' for domain \(domain.name); known: "
          + domain.invariants.map(\.name).joined(separator: ", "))
    }
    return invariant
  }
}

extension FileSession {
  /// How many actions a filtered request of ``actions(from:to:type:text:limit:)`` reads at
  /// most.
  static var filterReadBudget: Int { 100_000 }
}

/// Text to find in actions' JSON and labels, ignoring case: ASCII letters are compared byte
/// by byte (a million actions' JSON is not lowercased, copied, for each request); text with
/// other letters is compared as lowercased strings.
struct TextNeedle: Sendable {
  let text: String
  private let bytes: [UInt8]
  private let ascii: Bool

  init(_ text: String) {
    self.text = text.lowercased()
    bytes = Array(self.text.utf8)
    ascii = text.utf8.allSatisfy { $0 < 0x80 }
  }

  func isFound(in haystack: String) -> Bool {
    guard ascii else { return haystack.lowercased().contains(text) }
    guard let first = bytes.first else { return true }
    var haystack = haystack
    return haystack.withUTF8 { buffer in
      guard buffer.count >= bytes.count else { return false }
      for start in 0...(buffer.count - bytes.count) where Self.lower(buffer[start]) == first {
        var index = 1
        while index < bytes.count, Self.lower(buffer[start + index]) == bytes[index] { index += 1 }
        if index == bytes.count { return true }
      }
      return false
    }
  }

  private static func lower(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
  }
}

/// Stops reading actions once a page is full.
