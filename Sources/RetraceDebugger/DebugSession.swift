import Foundation
import Retrace

/// An interactive time-travel session over a recorded session: the engine behind
/// `retrace debug`.
///
/// It reads one command at a time and answers with text, so it works the same on a terminal
/// and with commands piped on stdin. Moves go through the core's `History`, which keeps a
/// few snapshots so that any move replays a bounded number of actions.
///
/// | command | what it does |
/// | --- | --- |
/// | `next [n]`, `n` | moves `n` actions forward (1 by default) |
/// | `prev [n]`, `p` | moves `n` actions back |
/// | `goto N`, `g N` | moves to the state after action `N` (0 is the start) |
/// | `state`, `s` | prints the whole state |
/// | `diff [N]`, `d` | what changed from `N` (the previous action by default) to here |
/// | `find CASE`, `f` | moves to the next action of case `CASE` (a name, or a path such as `detail.tick`: `actionCasePath(_:matches:)`) |
/// | `check INVARIANT`, `c` | whether the invariant holds here, and where that changes |
/// | `help`, `h`, `?` | lists the commands |
/// | `quit`, `q`, `exit` | ends the session |
///
/// After each move it prints the position, the action, and what changed since the position
/// it left: after one step forward, the action's own change; after any other move, the
/// change from where it was, headed as `diff` heads it:
///
/// ```swift
/// var debug = DebugSession(debugger: debugger)  // increment, increment, decrement
/// print(debug.perform("next 2").output)
/// ```
///
/// ```
/// at 2 of 3: increment {"increment":{}} at 2025-11-22T00:23:21.000Z
/// from 0 to 2:
/// - CounterState(count: 0)
/// + CounterState(count: 2)
/// ```
public struct DebugSession<D: Domain> {
  /// The debugger whose session this explores.
  public let debugger: ReplayEngine<D>
  private var history: History<D.State, D.Action>
  private let actionWriter = JSONLines.ActionWriter<D.Action>()
  /// The domain's display formats, for the actions it shows.
  private let actionFormats: ActionDisplayFormats

  /// Creates a session positioned at the start (before the first action).
  ///
  /// - Parameter debugger: The debugger whose session to explore.
  public init(debugger: ReplayEngine<D>) {
    self.debugger = debugger
    let session = debugger.session
    let domain = debugger.domain
    actionFormats = ActionDisplayFormats(domain)
    // Few snapshots: each one may keep a copy of the state's storage alive (the reducer's
    // next in-place change copies what the snapshot shares), so a session of a million
    // actions gets 16 of them, and a move replays at most n / 16 actions.
    let interval = max(1_024, session.actions.count / 16)
    history = History(
      initialState: session.initialState,
      reducer: Reduce<D.State, D.Action> { domain.reduce(into: &$0, action: $1) },
      snapshotInterval: interval,
      capacity: max(interval, session.actions.count))
    for action in session.actions { history.append(action.action) }
    history.rewind()
  }

  /// The current position: the sequence number of the last action applied.
  public var position: UInt64 { debugger.session.startSequence + UInt64(history.position) }

  /// The state at the current position.
  public var state: D.State {
    // The history replays actions alone; across a time-travel jump the engine knows better.
    debugger.jumpAfter.isEmpty
      ? history.state : (try? debugger.state(at: position)) ?? history.state
  }

  /// What ``perform(_:)`` answers.
  public struct Reply: Sendable, Equatable {
    /// The text to show, ending without a newline; may be empty.
    public var output: String
    /// Whether the text is an error message (for stderr).
    public var isError: Bool
    /// Whether the session ends.
    public var quits: Bool
  }

  /// Performs one command line.
  ///
  /// - Parameter line: A command, such as `next 3` or `check non-negative`.
  /// - Returns: What to show, and whether the session ends.
  public mutating func perform(_ line: String) -> Reply {
    let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
    guard let command = words.first?.lowercased() else {
      return Reply(output: "", isError: false, quits: false)
    }
    let argument = words.dropFirst().first
    // Arguments past those a command takes are a mistake, not something to ignore.
    let arity: Int? =
      switch command {
      case "next", "n", "prev", "p", "previous", "goto", "g", "diff", "d", "find", "f", "check",
        "c":
        1
      case "state", "s", "help", "h", "?", "quit", "q", "exit": 0
      default: nil
      }
    if let arity, words.count - 1 > arity {
      return error(
        "\(command) takes \(arity == 1 ? "one argument" : "no argument"); type help for the list")
    }
    switch command {
    case "next", "n":
      guard let count = count(argument) else {
        return error("next takes a positive number of actions")
      }
      // Past the end (even past UInt64.max) stops at the end.
      let end = debugger.session.endSequence
      return move(to: count > end - position ? end : position + count)
    case "prev", "p", "previous":
      guard let count = count(argument) else {
        return error("prev takes a positive number of actions")
      }
      let start = debugger.session.startSequence
      return move(to: position - min(count, position - start))
    case "goto", "g":
      guard let argument, let target = UInt64(argument) else {
        // All digits, but past UInt64.max: out of range like any other number past the end.
        if let argument, !argument.isEmpty, argument.allSatisfy({ $0.isASCII && $0.isNumber }) {
          return error(
            "sequence \(argument): out of range \(debugger.session.startSequence)...\(debugger.session.endSequence)"
          )
        }
        return error("goto takes a sequence number")
      }
      do { try debugger.checkInRange(target) } catch { return self.error(error.description) }
      return move(to: target)
    case "state", "s":
      let (dump, depth) = stateDump(state, maxNodes: Self.maxNodes)
      let text = displayFormatted(dump, debugger.domain.displayFormats)
      return reply(depth.map { text + "\n(a large state: shown \($0) levels deep)" } ?? text)
    case "diff", "d":
      return diff(from: argument)
    case "find", "f":
      guard let argument else {
        return error(
          "find takes an action case: " + debugger.domain.actionCases.joined(separator: ", "))
      }
      return find(argument)
    case "check", "c":
      guard let argument else { return error("check takes an invariant: " + invariantNames) }
      return check(argument)
    case "help", "h", "?":
      return reply(Self.help)
    case "quit", "q", "exit":
      return Reply(output: "", isError: false, quits: true)
    default:
      return error("unknown command '\(command)'; type help for the list")
    }
  }

  /// About how many values `state` and the diffs after moves show: a large state is shown
  /// only as deep, and a large change only in part, as keeps them readable (and quick).
  public static var maxNodes: Int { readableNodeCount }

  /// A diff as shown, with the domain's display formats, and a note when it is only a part.
  private func describe(_ diff: (text: String, isComplete: Bool)?) -> String? {
    diff.map {
      let text = displayFormatted($0.text, debugger.domain.displayFormats)
      return $0.isComplete ? text : text + "\n(a large change: shown in part, … marks the rest)"
    }
  }

  /// The list of commands that `help` prints.
  public static var help: String { debugSessionHelp }

  // MARK: - Commands

  private mutating func move(to target: UInt64) -> Reply {
    let before = state
    let from = position
    history.jump(to: Int(target - debugger.session.startSequence))
    var lines = [positionLine()]
    if from == target { lines[0] += " (already here)" }
    // One step forward shows the action's own change; any other move shows the change since
    // the position it left, headed as `diff` heads it, so as not to read as the action's.
    if from != target, target != from + 1 { lines.append("from \(from) to \(target):") }
    lines.append(
      describe(stateDiff(before, state, maxNodes: Self.maxNodes))
        ?? "(no change since \(from))")
    return reply(lines.joined(separator: "\n"))
  }

  private func positionLine() -> String {
    let session = debugger.session
    var line = "at \(position) of \(session.endSequence)"
    if let action = session.action(at: position) {
      line +=
        ": \(actionWriter.text(for: action.action))"
        + actionFormats.note(for: action.action)
        + " at \(formatTime(action.time))"
    } else {
      line += ": the start"
    }
    return line
  }

  private func diff(from argument: String?) -> Reply {
    let start = debugger.session.startSequence
    let from: UInt64
    if let argument {
      guard let value = UInt64(argument) else { return error("diff takes a sequence number") }
      from = value
    } else {
      from = position > start ? position - 1 : start
    }
    do {
      let diff = try debugger.diff(from: from, to: position, maxNodes: Self.maxNodes)
      return reply("from \(from) to \(position):\n" + (describe(diff) ?? "(no change)"))
    } catch {
      return self.error(error.description)
    }
  }

  private mutating func find(_ name: String) -> Reply {
    let session = debugger.session
    guard CaseFilter.isKnown(name, in: debugger.domain) else {
      let hint = CaseFilter.nestedHint(for: name) { note in
        for action in session.actions { note(actionCasePath(of: action.action)) }
      }
      return error(
        "unknown action case '\(name)'\(hint); known: "
          + debugger.domain.actionCases.joined(separator: ", "))
    }
    var sequence = position + 1
    while sequence <= session.endSequence {
      if let action = session.action(at: sequence),
        actionCasePath(actionCasePath(of: action.action), matches: name)
      {
        return move(to: sequence)
      }
      sequence += 1
    }
    return error("no \(name) after \(position)")
  }

  private func check(_ name: String) -> Reply {
    guard let invariant = debugger.domain.invariant(named: name) else {
      return error("unknown invariant '\(name)'; known: " + invariantNames)
    }
    let holds = invariant.holds
    let holdsHere = holds(state)
    var text = "\(name) \(holdsHere ? "holds" : "fails") at \(position)"
    // Where that changes, checking after every action from here.
    var state = self.state
    let session = debugger.session
    var sequence = position
    var change: UInt64?
    while sequence < session.endSequence {
      sequence += 1
      _ = debugger.domain.reduce(
        into: &state, action: session.actions[session.index(of: sequence)].action)
      debugger.applyJump(&state, after: sequence)
      if holds(state) != holdsHere {
        change = sequence
        break
      }
    }
    if holdsHere {
      text +=
        change.map { "; it next fails after action \($0)" } ?? "; it holds after every later action"
    } else {
      text += change.map { "; it holds again after action \($0)" } ?? "; it stays broken to the end"
    }
    return reply(text)
  }

  // MARK: - Helpers

  private var invariantNames: String {
    let names = debugger.domain.invariants.map(\.name)
    return names.isEmpty ? "none" : names.joined(separator: ", ")
  }

  private func count(_ argument: String?) -> UInt64? {
    guard let argument else { return 1 }
    // All digits, but past UInt64.max: as many as there are, which moves to an end.
    if UInt64(argument) == nil, !argument.isEmpty,
      argument.allSatisfy({ $0.isASCII && $0.isNumber }), argument.contains(where: { $0 != "0" })
    {
      return .max
    }
    guard let value = UInt64(argument), value > 0 else { return nil }
    return value
  }

  private func reply(_ text: String) -> Reply {
    Reply(output: text, isError: false, quits: false)
  }

  private func error(_ message: String) -> Reply {
    Reply(output: message, isError: true, quits: false)
  }
}

/// A time in seconds since 1970 as ISO 8601 UTC with milliseconds, such as
/// `2025-11-22T00:23:20.500Z`.
///
/// - Parameter time: Seconds since 1970.
/// - Returns: The formatted time.
public func formatTime(_ time: Double) -> String {
  guard time.isFinite else { return "\(time)" }
  return Date(timeIntervalSince1970: time).formatted(
    Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}

/// The commands of a ``DebugSession``, one per line: what its `help` command prints.
public let debugSessionHelp = """
  next [n]          move n actions forward (default 1)
  prev [n]          move n actions back (default 1)
  goto N            move to the state after action N (0 is the start)
  state             print the whole state here
  diff [N]          what changed from N (default: the previous action) to here
  find CASE         move to the next action of case CASE
  check INVARIANT   whether INVARIANT holds here, and where that changes
  help              this list
  quit              end the session
  Short forms: n, p, g, s, d, f, c, h or ?, and q or exit.
  """
