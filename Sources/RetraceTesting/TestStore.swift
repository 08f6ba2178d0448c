import CasePathsCore
import CustomDump
import DequeModule
import IssueReporting
import Retrace
import RetraceDependencies
import Synchronization

/// A store for tests: send an action, say how the state must change, and receive the
/// actions that effects send back, like TCA's `TestStore`.
///
/// ```swift
/// @MainActor @Test func loading() async {
///   let store = TestStore(initialState: PostsState(), reducer: PostsReducer(loader: { [post] }))
///   await store.send(.load) { $0.list = .loading }
///   await store.receive(.postsLoaded(posts: [post])) { $0.list = .display([post]) }
///   await store.finish()
/// }
/// ```
///
/// A state that differs from the expected one fails the test with a field-level diff
/// (`-` expected, `+` actual), followed by the action on one line, cut after 200 characters. By default the store is exhaustive: every action an effect
/// sends must be received with `receive(_:)`,
/// and ``finish(timeout:fileID:filePath:line:column:)`` fails while effects are still running
/// or actions are left unreceived. Set ``exhaustivity`` to ``Exhaustivity/off`` to assert
/// only what you care about.
@MainActor
public final class TestStore<State: Equatable & Sendable, Action: Equatable & Sendable> {
  /// The current state.
  public private(set) var state: State
  /// Whether every change and every received action must be asserted.
  public var exhaustivity: Exhaustivity = .on
  /// How long `receive(_:)` and
  /// ``finish(timeout:fileID:filePath:line:column:)`` wait by default.
  public var timeout: Duration = .seconds(1)
  /// The clock the store's reducer and effects find as their `continuousClock` and
  /// `suspendingClock` dependencies, unless `withDependencies` sets others: time stands
  /// still until ``advance(by:fileID:filePath:line:column:)`` moves it.
  public let clock: TestClock<Duration>

  private let reducer: any Reducer<State, Action>
  private var received = Deque<Action>()
  /// Where the effects' work runs, so that the store can wait until none has work left.
  private let executor = EffectExecutor()
  /// The clock the effects sleep on: ``clock``, noting when each sleep is due.
  private let effectClock: EffectClock
  private lazy var effects = EffectRunner<Action>(executor: executor) { [weak self] action in
    self?.received.append(action)
  }

  /// Creates a test store.
  ///
  /// The reducer and its effects run in the test's dependencies (swift-dependencies'
  /// `testValue`s: a dependency an effect uses without a test value fails the test), with
  /// ``clock`` as both clocks, changed by `prepareDependencies`:
  ///
  /// ```swift
  /// let store = TestStore(initialState: Notes.State(), reducer: Notes()) {
  ///   $0.notesClient.load = { [note] }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - initialState: The state before the first action.
  ///   - reducer: The reducer under test.
  ///   - prepareDependencies: Changes the dependencies for this store.
  public init<R: Reducer<State, Action>>(
    initialState: State, reducer: R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) {
    let clock = TestClock<Duration>()
    let effectClock = EffectClock(base: clock)
    let dependencies = withDependencies {
      $0.continuousClock = effectClock
      $0.suspendingClock = effectClock
      prepareDependencies(&$0)
    } operation: {
      withEscapedDependencies { $0 }
    }
    self.state = initialState
    self.clock = clock
    self.effectClock = effectClock
    self.reducer = CapturedDependencies(base: reducer, dependencies: dependencies)
  }

  /// Moves ``clock`` forward by `duration`, waking the effects that wait on it until then,
  /// and lets them run: a debounced search, a timer's ticks.
  ///
  /// The store first lets every effect run until it waits, then wakes the sleeps one
  /// deadline at a time, letting the woken effects run (and sleep again) before the next:
  /// a timer ticks once for each interval, however loaded the machine.
  ///
  /// ```swift
  /// await store.send(.queryChanged("milk")) { $0.query = "milk" }
  /// await store.advance(by: .milliseconds(300))
  /// await store.receive(\.searched) { $0.results = [milk] }
  /// ```
  ///
  /// One advance wakes at most 10,000 sleeps; past that the test fails, since a timer far
  /// shorter than the advance would hold it for minutes. A sleep until the present or the
  /// past returns at once, as on a real clock, without waiting for an advance.
  ///
  /// - Parameters:
  ///   - duration: How far to move the clock.
  ///   - fileID: The caller's file, where a failure is reported; the default is right.
  ///   - filePath: The caller's file path, for the same report.
  ///   - line: The caller's line, for the same report.
  ///   - column: The caller's column, for the same report.
  public func advance(
    by duration: Duration,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let end = clock.now.advanced(by: duration)
    await settle()
    // A timer far shorter than the advance would hold the loop for minutes: past a number
    // of wakes the test fails, and the clock stays where it got to.
    var wakes = 0
    while let next = effectClock.nextDeadline, next <= end {
      guard wakes < wakeLimit else {
        reportIssue(
          """
          advance(by: \(duration)) stopped short of its end after waking the effects' \
          sleeps \(wakeLimit) times: a timer's interval is far shorter than the advance, \
          or an effect sleeps again each time it wakes. Advance in shorter steps, or give \
          the timer a longer interval.
          """, fileID: fileID, filePath: filePath, line: line, column: column)
        return
      }
      await clock.advance(to: next)
      await settle()
      wakes += 1
    }
    await clock.advance(to: end)
    await settle()
  }

  /// The most sleeps one ``advance(by:fileID:filePath:line:column:)`` wakes.
  var wakeLimit = 10_000

  /// Lets the effects run until each one waits (on the clock, on work outside the store) or
  /// is done, for at most ``timeout``: an effect that never stops working is left to run.
  private func settle() async {
    let deadline = ContinuousClock.now + timeout
    // An effect that sends an action hops to the main actor and back: the executor is idle
    // in between, so idle must hold across main-actor turns.
    var idleTurns = 0
    while idleTurns < 3, ContinuousClock.now < deadline {
      if executor.isIdle {
        idleTurns += 1
        await Task.yield()
      } else {
        idleTurns = 0
        try? await Task.sleep(for: .microseconds(50))
      }
    }
  }

  /// The actions effects sent that have not been received yet.
  public var receivedActions: [Action] { Array(received) }

  /// Sends `action` and checks that the state changed as `assert` says.
  ///
  /// - Parameters:
  ///   - action: The action to send.
  ///   - assert: Changes the expected state (exhaustive: the state before the action;
  ///     non-exhaustive: the actual state after it) into what the state must now be.
  ///   - fileID: The caller's file, where a failure is reported; the default is right.
  ///   - filePath: The caller's file path, for the same report.
  ///   - line: The caller's line, for the same report.
  ///   - column: The caller's column, for the same report.
  public func send(
    _ action: Action,
    assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    if exhaustivity == .on, !received.isEmpty {
      reportIssue(
        "Must handle \(received.count) received action(s) before sending an action:\n"
          + received.map { "  " + Self.shortDescription(of: $0) }.joined(separator: "\n"),
        fileID: fileID, filePath: filePath, line: line, column: column)
    }
    apply(action, assert: assert, fileID: fileID, filePath: filePath, line: line, column: column)
    await settle()
  }

  /// Waits for an effect to send `expected`, reduces it, and checks the state change.
  ///
  /// - Parameters:
  ///   - expected: The action an effect must send next (non-exhaustive: at some point;
  ///     earlier actions are reduced without checks).
  ///   - timeout: How long to wait; ``timeout`` by default.
  ///   - assert: Changes the expected state into what the state must now be.
  ///   - fileID: The caller's file, where a failure is reported; the default is right.
  ///   - filePath: The caller's file path, for the same report.
  ///   - line: The caller's line, for the same report.
  ///   - column: The caller's column, for the same report.
  public func receive(
    _ expected: Action,
    timeout: Duration? = nil,
    assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      Expectation(description: Self.shortDescription(of: expected), matches: { $0 == expected }) {
        diff(expected, $0).map { "\n\($0)" } ?? ""
      },
      timeout: timeout, assert: assert,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Waits for an effect to send an action of the case `actionCase`, whatever it carries,
  /// reduces it, and checks the state change: TCA's `receive(\.loaded)`.
  ///
  /// ```swift
  /// await store.receive(\.loaded) { $0.notes = [note] }   // Action is CasePathable
  /// ```
  ///
  /// `Action` is `CasePathable` through swift-case-paths' `@CasePathable` macro, in an app
  /// that uses it, or by hand. Without it, match with an `ActionCase`
  /// (`receive(_:)`)
  /// or a predicate.
  ///
  /// - Parameters:
  ///   - actionCase: The case the next action must be (non-exhaustive: some later action).
  ///   - timeout: How long to wait; ``timeout`` by default.
  ///   - assert: Changes the expected state into what the state must now be.
  ///   - fileID: The caller's file, where a failure is reported; the default is right.
  ///   - filePath: The caller's file path, for the same report.
  ///   - line: The caller's line, for the same report.
  ///   - column: The caller's column, for the same report.
  public func receive<Value>(
    _ actionCase: CaseKeyPath<Action, Value>,
    timeout: Duration? = nil,
    assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async where Action: CasePathable {
    await receive(
      { $0[case: actionCase] != nil }, description: Self.description(of: actionCase),
      timeout: timeout,
      assert: assert, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Waits for an effect to send an action of the case `actionCase`, whatever it carries,
  /// reduces it, and checks the state change.
  ///
  /// ```swift
  /// await store.receive(NotesAction.loadedCase) { $0.notes = [note] }
  /// ```
  ///
  /// - Parameters:
  ///   - actionCase: The case the next action must be (non-exhaustive: some later action).
  ///   - timeout: How long to wait; ``timeout`` by default.
  ///   - assert: Changes the expected state into what the state must now be.
  ///   - fileID: The caller's file, where a failure is reported; the default is right.
  ///   - filePath: The caller's file path, for the same report.
  ///   - line: The caller's line, for the same report.
  ///   - column: The caller's column, for the same report.
  public func receive<Value>(
    _ actionCase: ActionCase<Action, Value>,
    timeout: Duration? = nil,
    assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      { actionCase.extract($0) != nil },
      description: "an action of \(ActionCase<Action, Value>.self)",
      timeout: timeout, assert: assert, fileID: fileID, filePath: filePath, line: line,
      column: column)
  }

  /// Waits for an effect to send an action that `isMatching` accepts, reduces it, and
  /// checks the state change: TCA's `receive(_:)` with a predicate.
  ///
  /// ```swift
  /// await store.receive({ if case .loaded = $0 { true } else { false } }) {
  ///   $0.notes = [note]
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - isMatching: Whether an action is the one expected.
  ///   - description: What the failure message calls the expected action.
  ///   - timeout: How long to wait; ``timeout`` by default.
  ///   - assert: Changes the expected state into what the state must now be.
  ///   - fileID: The caller's file, where a failure is reported; the default is right.
  ///   - filePath: The caller's file path, for the same report.
  ///   - line: The caller's line, for the same report.
  ///   - column: The caller's column, for the same report.
  public func receive(
    _ isMatching: (Action) -> Bool,
    description: String = "an action that matches",
    timeout: Duration? = nil,
    assert: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    await withoutActuallyEscaping(isMatching) { isMatching in
      await receive(
        Expectation(description: description, matches: isMatching) {
          "\n  expected: \(description)\n  received: \(Self.shortDescription(of: $0))"
        },
        timeout: timeout, assert: assert,
        at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
  }

  /// What `receive(_:)` waits for.
  private struct Expectation {
    /// The expected action, on one line.
    let description: String
    let matches: (Action) -> Bool
    /// What a failure says of an action that does not match.
    let mismatch: (Action) -> String
  }

  /// Where a failure is reported.
  private struct SourceLocation {
    let fileID: StaticString
    let filePath: StaticString
    let line: UInt
    let column: UInt
  }

  private func receive(
    _ expected: Expectation, timeout: Duration?, assert: ((inout State) throws -> Void)?,
    at location: SourceLocation
  ) async {
    let (fileID, filePath, line, column) = (
      location.fileID, location.filePath, location.line, location.column
    )
    let deadline = ContinuousClock.now + (timeout ?? self.timeout)
    while true {
      while received.isEmpty {
        guard ContinuousClock.now < deadline else {
          reportIssue(
            "Expected to receive an action, but received none after \(timeout ?? self.timeout):\n  "
              + expected.description + runningEffectsHint,
            fileID: fileID, filePath: filePath, line: line, column: column)
          return
        }
        try? await Task.sleep(for: .milliseconds(1))
      }
      let action = received.removeFirst()
      if expected.matches(action) {
        apply(
          action, assert: assert, fileID: fileID, filePath: filePath, line: line, column: column)
        await settle()
        return
      }
      if exhaustivity == .on {
        reportIssue(
          "Received an unexpected action (- expected, + received):" + expected.mismatch(action),
          fileID: fileID, filePath: filePath, line: line, column: column)
        return
      }
      // Non-exhaustive: reduce the skipped action without checks and keep looking.
      apply(
        action, assert: nil, check: false, fileID: fileID, filePath: filePath, line: line,
        column: column)
    }
  }

  /// Waits for running effects to finish, then fails if any is still running or (when
  /// exhaustive) if received actions were left unhandled.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait; ``timeout`` by default.
  ///   - fileID: The caller's file, where a failure is reported; the default is right.
  ///   - filePath: The caller's file path, for the same report.
  ///   - line: The caller's line, for the same report.
  ///   - column: The caller's column, for the same report.
  public func finish(
    timeout: Duration? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let deadline = ContinuousClock.now + (timeout ?? self.timeout)
    while effects.runningCount > 0, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(1))
    }
    if effects.runningCount > 0 {
      reportIssue(
        "\(effects.runningCount) effect(s) still running after \(timeout ?? self.timeout), "
          + "started by:\n"
          + effects.runningOrigins.map { "  " + $0 }.joined(separator: "\n")
          + "\nCancel them in the reducer; " + Self.clockHint,
        fileID: fileID, filePath: filePath, line: line, column: column)
      effects.cancelAll()
    }
    if exhaustivity == .on, !received.isEmpty {
      reportIssue(
        "\(received.count) received action(s) were not handled:\n"
          + received.map { "  " + Self.shortDescription(of: $0) }.joined(separator: "\n"),
        fileID: fileID, filePath: filePath, line: line, column: column)
    }
  }

  /// Why an effect may not have finished or sent its action yet.
  private static var clockHint: String {
    "a debounce, throttle, timer or sleep on the store's clock waits until advance(by:) moves it."
  }

  /// What a `receive` that timed out adds when effects are still running: they may be
  /// waiting on ``clock``.
  private var runningEffectsHint: String {
    guard effects.runningCount > 0 else { return "" }
    return "\n\(effects.runningCount) effect(s) still running: " + Self.clockHint
  }

  /// Reduces `action` into ``state`` and runs its effect, remembering the action as what
  /// started the effect's tasks; returns the mistakes the reducers reported
  /// (`ReducerMistakes`: an `ifLet`'s child action without child state).
  private func reduce(_ action: Action) -> [String] {
    let mistakes = Mutex<[String]>([])
    let report: @Sendable (String) -> Void = { mistake in mistakes.withLock { $0.append(mistake) } }
    var next = state
    let effect = ReducerMistakes.$report.withValue(report) {
      reducer.reduce(into: &next, action: action)
    }
    state = next
    if !effect.isNone { effects.run(effect, origin: Self.shortDescription(of: action)) }
    return mistakes.withLock { $0 }
  }

  /// Reduces and drops every action received so far, without checks.
  public func skipReceivedActions() {
    while let action = received.popFirst() {
      for mistake in reduce(action) {
        reportIssue(mistake + "\nafter the action " + Self.shortDescription(of: action))
      }
    }
  }

  /// Cancels every running effect, so that ``finish(timeout:fileID:filePath:line:column:)``
  /// does not fail because of them.
  public func cancelInFlightEffects() {
    effects.cancelAll()
  }

  private func apply(
    _ action: Action,
    assert: ((inout State) throws -> Void)?,
    check: Bool = true,
    fileID: StaticString,
    filePath: StaticString,
    line: UInt,
    column: UInt
  ) {
    let before = state
    let mistakes = reduce(action)
    let after = state
    for mistake in mistakes {
      reportIssue(
        mistake + "\nafter the action " + Self.shortDescription(of: action),
        fileID: fileID, filePath: filePath, line: line, column: column)
    }
    guard check else { return }
    var expected = exhaustivity == .on ? before : after
    do {
      try assert?(&expected)
    } catch {
      reportIssue(
        error, "The assertion closure threw",
        fileID: fileID, filePath: filePath, line: line, column: column)
      return
    }
    if expected != after {
      let difference = diff(expected, after).map { "\n\($0)" } ?? ""
      reportIssue(
        "The state is not as expected (- expected, + actual):" + difference
          + "\nafter the action " + Self.shortDescription(of: action),
        fileID: fileID, filePath: filePath, line: line, column: column)
    }
  }

  /// A case key path as a failure message shows it: `\.loaded`.
  ///
  /// A case key path's own description (`\Case<Action>.<computed 0x…>`) is used when it
  /// names the case. Otherwise a payload-free case is named by the action it makes
  /// (``caseName(of:)``), and a case that carries a value, which cannot be made without one,
  /// by its action and payload types.
  static func description<Value>(of actionCase: CaseKeyPath<Action, Value>) -> String
  where Action: CasePathable {
    let own = "\(actionCase)"
    if !own.contains("<computed") { return own }
    if Value.self == Void.self, let void = () as? Value {
      return "\\." + caseName(of: actionCase(void))
    }
    return "\\.(a case of \(Action.self) that carries \(Value.self))"
  }

  /// The name of an action's case: `actionCaseName(of:)` for an `Encodable` action, else
  /// its reflected case name.
  static func caseName(of action: Action) -> String {
    if let encodable = action as? any Encodable { return actionCaseName(of: encodable) }
    return Mirror(reflecting: action).children.first?.label ?? String(describing: action)
  }

  /// The most characters of an action that a failure message shows.
  static var actionDescriptionLimit: Int { 200 }

  /// An action on one line, cut after ``actionDescriptionLimit`` characters: a failure shows
  /// its diff first, and an action that carries a large payload must not bury it.
  static func shortDescription(of action: Action) -> String {
    // custom-dump's lines, indentation dropped: `Action.add([1, 2, 3])`.
    var oneLine = ""
    for line in String(customDumping: action).split(separator: "\n") {
      let part = line.trimmingPrefix(while: \.isWhitespace)
      let glued =
        oneLine.isEmpty || oneLine.last == "(" || oneLine.last == "["
        || part.first == ")" || part.first == "]"
      oneLine += (glued ? "" : " ") + part
    }
    guard oneLine.count > actionDescriptionLimit else { return oneLine }
    return "\(oneLine.prefix(actionDescriptionLimit))… (\(oneLine.count) characters)"
  }
}

/// Whether a ``TestStore`` requires every change and every received action to be asserted.
public enum Exhaustivity: Sendable, Equatable {
  /// Every state change must be described and every received action received.
  case on
  /// Only what the test states is checked; other changes and actions pass.
  case off
}
