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
/// (`-` expected, `+` actual), followed by the action on one line, cut after 200 characters.
/// By default the store is exhaustive: every action an effect sends must be received with
/// `receive(_:)`, and ``finish(timeout:fileID:filePath:line:column:)`` fails while effects
/// are still running or actions are left unreceived. A store dropped without `finish()`
/// makes the same checks when it goes away, without waiting. Set ``exhaustivity`` to
/// ``Exhaustivity/off`` to assert only what you care about: as in TCA, a non-exhaustive
/// store lets effects run on and actions go unreceived without failing.
///
/// As in TCA, an action an effect sends is reduced as soon as it arrives, and the effects it
/// returns start then; `receive` checks the state it made.
@MainActor
public final class TestStore<State: Equatable & Sendable, Action: Equatable & Sendable> {
  /// The state as the test has checked it: after the last `send`, or after the last action
  /// `receive` took.
  ///
  /// Actions that effects sent are reduced when they arrive, but their states wait with them
  /// until `receive` takes them, as in TCA.
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
  /// The state every action so far has made, received or not: what the next action reduces.
  private var current: State
  /// The actions effects sent, each with the state it made, that `receive` has not taken.
  private var received = Deque<Step>()
  /// Actions an effect sent while another action was being reduced, reduced after it, each
  /// with its place in the chain of actions sent at once (1: sent by the first action).
  private var arrivals = Deque<(action: Action, depth: Int)>()
  private var isReducing = false
  /// The place in its chain of the action being reduced.
  private var reducingDepth = 0
  /// How many actions effects have sent, ever: while it moves, effects are still at work.
  private var arrivalCount = 0
  /// Whether `finish()` has checked the store since the last action, so that going away
  /// checks nothing again.
  private var isFinished = false
  /// Where the store was made: a store dropped without `finish()` reports there.
  private let location: SourceLocation
  /// Where the effects' work runs, so that the store can wait until none has work left.
  private let executor = EffectExecutor()
  /// The clock the effects sleep on: ``clock``, noting when each sleep is due.
  private let effectClock: EffectClock
  private let effects: EffectRunner<Action>
  /// Hands the actions effects send to the store, which it does not keep alive.
  private let delivery: Delivery

  @MainActor private final class Delivery {
    weak var store: TestStore?
  }

  /// One reduced action: the action, the state it made, and the mistakes the reducers
  /// reported (`ReducerMistakes`: an `ifLet`'s child action without child state, a
  /// `forEach`'s action for a missing element).
  private struct Step {
    let action: Action
    let state: State
    let mistakes: [String]
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
  ///   - fileID: Where a store dropped without `finish()` reports; the default is right.
  ///   - filePath: The caller's file path, for the same report.
  ///   - line: The caller's line, for the same report.
  ///   - column: The caller's column, for the same report.
  public init<R: Reducer<State, Action>>(
    initialState: State, reducer: R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
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
    self.current = initialState
    self.location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    self.clock = clock
    self.effectClock = effectClock
    self.reducer = CapturedDependencies(base: reducer, dependencies: dependencies)
    let delivery = Delivery()
    self.delivery = delivery
    self.effects = EffectRunner(executor: executor) { action in delivery.store?.arrive(action) }
    delivery.store = self
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
    // Sampling idleness alone misses an effect that sends in a loop: each time it is looked
    // at, its job has just handed an action to the main actor. So the executor's jobs and
    // the actions that arrived must not have moved across the idle turns either.
    var idleTurns = 0
    var seen = (jobs: executor.jobCount, arrivals: arrivalCount)
    while idleTurns < 3, ContinuousClock.now < deadline {
      let now = (jobs: executor.jobCount, arrivals: arrivalCount)
      if executor.isIdle, now == seen {
        idleTurns += 1
        await Task.yield()
      } else {
        idleTurns = 0
        seen = now
        if executor.isIdle {
          await Task.yield()
        } else {
          try? await Task.sleep(for: .microseconds(50))
        }
      }
    }
  }

  /// The actions effects sent that `receive` has not taken yet, already reduced.
  public var receivedActions: [Action] { received.map(\.action) }

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
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    if exhaustivity == .on, !received.isEmpty {
      reportIssue(
        "Must handle \(received.count) received action(s) before sending an action:\n"
          + received.map { "  " + Self.shortDescription(of: $0.action) }.joined(separator: "\n"),
        fileID: fileID, filePath: filePath, line: line, column: column)
    }
    // The actions received before are reduced already: the action follows them.
    while let step = received.popFirst() { take(step, at: location) }
    let before = state
    let step = reduce(action, isReceived: false)
    take(step, at: location)
    check(step, before: before, assert: assert, at: location)
    await settle()
  }

  /// Waits for an effect to send `expected` and checks the state change it made (it was
  /// reduced when it arrived).
  ///
  /// - Parameters:
  ///   - expected: The action an effect must send next (non-exhaustive: at some point;
  ///     earlier actions pass without checks).
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
  /// and checks the state change it made: TCA's `receive(\.loaded)`.
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
  /// and checks the state change it made.
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

  /// Waits for an effect to send an action that `isMatching` accepts and checks the state
  /// change it made: TCA's `receive(_:)` with a predicate.
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
      let step = received.removeFirst()
      let before = state
      take(step, at: location)
      if expected.matches(step.action) {
        check(step, before: before, assert: assert, at: location)
        await settle()
        return
      }
      if exhaustivity == .on {
        reportIssue(
          "Received an unexpected action (- expected, + received):"
            + expected.mismatch(step.action),
          fileID: fileID, filePath: filePath, line: line, column: column)
        await settle()
        return
      }
      // Non-exhaustive: the skipped action passes without checks; keep looking.
    }
  }

  /// Waits for running effects to finish, then, when exhaustive, fails if any is still
  /// running (and cancels it) or if received actions were left unhandled.
  ///
  /// A non-exhaustive store waits the same, then leaves running effects running, as TCA's
  /// `.off` does. A reducer's mistake fails the test either way.
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
    checkEnd(
      waited: timeout ?? self.timeout,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Fails for the reducers' mistakes and, when exhaustive, if effects are still running (and
  /// cancels them) or received actions were left unhandled: what `finish()` checks after
  /// waiting, and what a store dropped without `finish()` checks when it goes away.
  private func checkEnd(waited: Duration, at location: SourceLocation) {
    // A non-exhaustive store still checks when it goes away: it cancels its effects then.
    isFinished = exhaustivity == .on
    let effects = effects
    Self.checkEnd(
      running: effects.runningOrigins, cancel: { effects.cancelAll() },
      exhaustive: exhaustivity == .on, unreceived: received.map(\.action),
      mistakes: Self.mistakes(in: received), waited: waited, at: location)
    // Reported: a later `receive` of these steps does not report their mistakes again.
    received = Deque(received.map { Step(action: $0.action, state: $0.state, mistakes: []) })
  }

  /// The mistakes the reducers made in `steps`, each with its action.
  nonisolated private static func mistakes(in steps: Deque<Step>) -> [(
    mistake: String, action: Action
  )] {
    steps.flatMap { step in step.mistakes.map { ($0, step.action) } }
  }

  /// Reports what a store's end finds: `running` names what started the effects still
  /// running, which `cancel` cancels.
  nonisolated private static func checkEnd(
    running: [String], cancel: () -> Void, exhaustive: Bool, unreceived: [Action],
    mistakes: [(mistake: String, action: Action)], waited: Duration?,
    at location: SourceLocation
  ) {
    let (fileID, filePath, line, column) = (
      location.fileID, location.filePath, location.line, location.column
    )
    // A mistake fails the test whatever the exhaustivity, received or not, as in TCA.
    for (mistake, action) in mistakes {
      reportIssue(
        mistakeMessage(mistake, after: action),
        fileID: fileID, filePath: filePath, line: line, column: column)
    }
    // A non-exhaustive store lets effects run on, as TCA's `.off` does: `finish()` leaves
    // them running, and a store going away cancels them without a word.
    guard exhaustive else {
      if waited == nil { cancel() }
      return
    }
    if !running.isEmpty {
      let when = waited.map { "after \($0)" } ?? "when the store went away without finish()"
      reportIssue(
        "\(running.count) effect(s) still running \(when), started by:\n"
          + running.map { "  " + $0 }.joined(separator: "\n")
          + "\nCancel them in the reducer; " + clockHint,
        fileID: fileID, filePath: filePath, line: line, column: column)
      cancel()
    }
    if !unreceived.isEmpty {
      reportIssue(
        "\(unreceived.count) received action(s) were not handled:\n"
          + unreceived.map { "  " + shortDescription(of: $0) }.joined(separator: "\n"),
        fileID: fileID, filePath: filePath, line: line, column: column)
    }
  }

  /// A store dropped without ``finish(timeout:fileID:filePath:line:column:)`` (or with
  /// actions sent after it, or after a non-exhaustive one) checks what `finish()` would,
  /// without waiting, and reports where it was made: when exhaustive, effects still running
  /// and actions not received. A non-exhaustive store cancels its running effects without a
  /// word.
  ///
  /// The check runs at once, where the store goes away: where the test that made it ends,
  /// inside the test, whether or not the test runs on the main actor. It reads the effects
  /// from the runner's lock-guarded list of tasks at work, which any thread can read and
  /// cancel. Going away, the store cannot wait for a cancelled effect to wind down: only
  /// those not cancelled count.
  deinit {
    guard !isFinished else { return }
    let live = effects.live
    Self.checkEnd(
      running: live?.origins(uncancelledOnly: true) ?? [], cancel: { live?.cancelAll() },
      exhaustive: exhaustivity == .on, unreceived: received.map(\.action),
      mistakes: Self.mistakes(in: received), waited: nil, at: location)
  }

  /// A reducer's mistake as a failure shows it, with the action it was made in.
  nonisolated private static func mistakeMessage(_ mistake: String, after action: Action)
    -> String
  {
    mistake + "\nafter the action " + shortDescription(of: action)
  }

  /// Why an effect may not have finished or sent its action yet.
  nonisolated private static var clockHint: String {
    "a debounce, throttle, timer or sleep on the store's clock waits until advance(by:) moves it."
  }

  /// What a `receive` that timed out adds when effects are still running: the actions that
  /// started them, as `finish()` names them, and that they may be waiting on ``clock``.
  private var runningEffectsHint: String {
    let running = effects.runningOrigins
    guard !running.isEmpty else { return "" }
    return "\n\(running.count) effect(s) still running, started by:\n"
      + running.map { "  " + $0 }.joined(separator: "\n") + "\nNote: " + Self.clockHint
  }

  /// An action an effect sent: reduced now, or after the action being reduced.
  private func arrive(_ action: Action) {
    isFinished = false
    arrivalCount += 1
    if isReducing {
      arrivals.append((action, reducingDepth + 1))
    } else {
      reduce(action, isReceived: true)
    }
  }

  /// Reduces `action` into the current state and runs its effect, remembering the action as
  /// what started the effect's tasks; then reduces the actions the effect sent at once.
  /// A received action joins the received queue before those.
  @discardableResult
  private func reduce(_ action: Action, isReceived: Bool) -> Step {
    isReducing = true
    defer { isReducing = false }
    reducingDepth = 0
    let step = reduceOne(action)
    if isReceived { received.append(step) }
    while let (next, depth) = arrivals.popFirst() {
      // A `.send` whose action sends itself again at once would hold the test for good, as
      // it holds a store: past a limit of links, the test fails and the rest is dropped.
      guard depth <= arrivalLimit else {
        reportIssue(
          """
          \(Self.shortDescription(of: action)) led to a chain of more than \(arrivalLimit) \
          actions, each sent at once by the one before (an action whose effect sends it again \
          with .send?); the store stopped reducing them.
          """)
        arrivals.removeAll()
        break
      }
      reducingDepth = depth
      received.append(reduceOne(next))
    }
    return step
  }

  /// The longest chain of actions sent at once, each by the one before, after one action.
  var arrivalLimit = 10_000

  private func reduceOne(_ action: Action) -> Step {
    let mistakes = Mutex<[String]>([])
    let report: @Sendable (String) -> Void = { mistake in mistakes.withLock { $0.append(mistake) } }
    var next = current
    let effect = ReducerMistakes.$report.withValue(report) {
      reducer.reduce(into: &next, action: action)
    }
    current = next
    if !effect.isNone { effects.run(effect, origin: Self.shortDescription(of: action)) }
    return Step(action: action, state: next, mistakes: mistakes.withLock { $0 })
  }

  /// Drops every action received so far without checks; ``state`` becomes the state the
  /// last one made.
  public func skipReceivedActions() {
    while let step = received.popFirst() { take(step, at: nil) }
  }

  /// Cancels every running effect, so that ``finish(timeout:fileID:filePath:line:column:)``
  /// does not fail because of them.
  public func cancelInFlightEffects() {
    effects.cancelAll()
  }

  /// Makes `step`'s state the checked ``state``, reporting the mistakes its reducers made.
  private func take(_ step: Step, at location: SourceLocation?) {
    isFinished = false
    state = step.state
    for mistake in step.mistakes {
      let message = Self.mistakeMessage(mistake, after: step.action)
      if let location {
        reportIssue(
          message, fileID: location.fileID, filePath: location.filePath, line: location.line,
          column: location.column)
      } else {
        reportIssue(message)
      }
    }
  }

  /// Checks that `step` changed the state from `before` as `assert` says.
  private func check(
    _ step: Step, before: State, assert: ((inout State) throws -> Void)?,
    at location: SourceLocation
  ) {
    let (fileID, filePath, line, column) = (
      location.fileID, location.filePath, location.line, location.column
    )
    let after = step.state
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
          + "\nafter the action " + Self.shortDescription(of: step.action),
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
  nonisolated static var actionDescriptionLimit: Int { 200 }

  /// An action on one line, cut after ``actionDescriptionLimit`` characters: a failure shows
  /// its diff first, and an action that carries a large payload must not bury it.
  nonisolated static func shortDescription(of action: Action) -> String {
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
