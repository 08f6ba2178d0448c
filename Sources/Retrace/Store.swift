import DequeModule
import Observation

/// The runtime that holds an app's state, applies actions to it with a reducer, runs the
/// effects, and tells everyone who watches.
///
/// ```swift
/// let store = Store(initialState: CounterState(), reducer: CounterReducer())
/// store.send(.increment)
/// print(store.state.count)  // 1
/// ```
///
/// ## Threading
///
/// A store lives on the main actor, like the views that read it: ``send(_:)``, ``state`` and
/// the callbacks all run there, so no lock is taken on the hot path. Effects run their work
/// in tasks off the main actor and come back through ``Send``, which hops to the main actor.
/// Code on another thread sends with `await store.send(action)` from a task.
///
/// ## Order of events
///
/// `send` reduces the action, then calls the recorders (``attach(_:)``), then the
/// subscribers (``subscribe(_:)``), then Observation's observers, then starts the action's
/// effect. An action sent while another is being reduced or observed (by an effect's
/// ``Effect/send(_:)``, by a subscriber, by a recorder) is queued and reduced after it, in
/// order, never recursively.
///
/// ## Cost
///
/// With no recorder, subscriber or Observation observer, `send` is the reducer call plus a
/// few flag checks; it does not allocate and does not copy the state. A subscriber to the
/// whole state (``subscribe(_:)``) receives the old and the new state, which keeps the old
/// state alive across the reducer call, so the reducer's in-place change copies what it
/// touches (copy-on-write: for the banking example, the whole list of transactions of the
/// account an action changes). A subscriber to a value derived from the state
/// (``subscribe(to:_:)``) keeps only that value, and costs no copy.
///
/// ## Observation
///
/// Reading ``state`` inside `withObservationTracking` (or a SwiftUI view's body) observes
/// the whole state: any action that changes anything notifies. Reading a field through the
/// store instead, `store.count` (dynamic member lookup, for `Equatable` values), observes that
/// field only, as TCA's `@ObservableState` does: the view is notified only when an action
/// changes that value. A state field whose name is a store member (`state`, `sequence`) is
/// read through ``state``.
@MainActor
@dynamicMemberLookup
public final class Store<State: Sendable, Action: Sendable>: Observable {
  // The hot path (`send`) is inlinable so that an app's build specializes it for its own
  // state and action types; unspecialized generic code cost several times the reducer.
  //
  // The fields `send` touches opt out of Swift's run-time exclusivity checks, which cost
  // more than a small reducer (see W1). That is
  // safe because the store is main-actor isolated, so no two threads touch them, and no
  // access overlaps another on that one thread: the reducer is pure and cannot reach the
  // store, and what a recorder, subscriber or effect sends while an action is in progress
  // is queued, not reduced inside the access to `currentState`.
  @usableFromInline @exclusivity(unchecked) var currentState: State
  /// The reducer, wrapped where the store was created: an app's build specializes the
  /// wrapper (and so the reducer call and its effect) for the concrete reducer, which a
  /// call through `any Reducer` cannot be.
  @usableFromInline let reduce: (inout State, Action) -> Effect<Action>
  @usableFromInline let clock: StoreClock
  @usableFromInline @exclusivity(unchecked) var isSending = false
  @usableFromInline @exclusivity(unchecked) var queue = Deque<Action>()
  // Each recorder with its `record`, wrapped where `attach` was called: an app's build
  // specializes it for the concrete recorder, which a call through `any StoreRecorder`
  // cannot be (that cost a few thousand instructions per action in generic metadata).
  @usableFromInline @exclusivity(unchecked) var recorders = UnretainedList<AttachedRecorder>()
  @usableFromInline @exclusivity(unchecked) var recordersWantStateBefore = false
  @usableFromInline @exclusivity(unchecked) var subscribers = UnretainedList<Subscriber>()
  @usableFromInline @exclusivity(unchecked) var subscribersWantOld = false
  /// Whether a recorder or a subscriber is attached.
  @usableFromInline @exclusivity(unchecked) var hasListeners = false
  @usableFromInline @exclusivity(unchecked) var isObservationTracked = false
  /// For each field read through ``subscript(dynamicMember:)``: its key path on the store
  /// (what the registrar knows it by), and the check that tells its observers when an action
  /// changed it.
  @usableFromInline var observedFields: [AnyKeyPath: ObservedField] = [:]
  /// The checks of ``observedFields``, in an array for `send` to go through.
  @usableFromInline @exclusivity(unchecked) var fieldChecks: [ObservedField] = []
  @usableFromInline let registrar = ObservationRegistrar()
  private lazy var effects = EffectRunner<Action> { [weak self] action in self?.send(action) }
  @usableFromInline @exclusivity(unchecked) var _sequence: UInt64 = 0
  /// For a child store made by ``scope(state:action:)-(KeyPath<State,ChildState>,_)``: what
  /// ties it to its parent; `nil` for a store made with a reducer. `send` never reads it.
  @usableFromInline let parentLink: ParentLink?

  /// An attached recorder and its `record`, wrapped where `attach` was called.
  @usableFromInline
  final class AttachedRecorder {
    @usableFromInline let recorder: any StoreRecorder<State, Action>
    /// Calls the recorder with the action, the state before it when given (only when a
    /// recorder asked for it), and the store's state after it when the recorder wants it.
    /// One closure that reads the state itself, rather than `State?` arguments: making and
    /// destroying those around every call cost more than the call.
    @usableFromInline let record:
      @MainActor (Store, UInt64, Double, Action, UnsafePointer<State>?) -> Void

    @usableFromInline
    init(
      recorder: any StoreRecorder<State, Action>,
      record: @escaping @MainActor (Store, UInt64, Double, Action, UnsafePointer<State>?) -> Void
    ) {
      self.recorder = recorder
      self.record = record
    }
  }

  /// A subscriber's callback and the flag its handle sets when it ends.
  @usableFromInline
  final class Subscriber {
    @usableFromInline let flag: CancellationFlag
    /// Whether `onChange` reads its first argument, the state before the action; when no
    /// subscriber does, the store keeps no copy of it and passes the new state twice.
    @usableFromInline let wantsOld: Bool
    @usableFromInline let onChange: @MainActor (State, State) -> Void

    init(
      flag: CancellationFlag, wantsOld: Bool, onChange: @escaping @MainActor (State, State) -> Void
    ) {
      self.flag = flag
      self.wantsOld = wantsOld
      self.onChange = onChange
    }
  }

  /// The number of actions this store has reduced; the sequence number of the last one.
  public var sequence: UInt64 { _sequence }

  /// Creates a store.
  ///
  /// - Parameters:
  ///   - initialState: The state before the first action.
  ///   - reducer: The reducer that applies actions.
  ///   - clock: Where recorders' timestamps come from; the system clock by default.
  @inlinable
  public init<R: Reducer<State, Action>>(
    initialState: State,
    reducer: R,
    clock: StoreClock = .system
  ) {
    self.currentState = initialState
    self.reduce = { reducer.reduce(into: &$0, action: $1) }
    self.clock = clock
    self.parentLink = nil
  }

  /// Creates a child store: `reduce` forwards to the parent that `parentLink` ties it to.
  @usableFromInline
  init(
    initialState: State, clock: StoreClock, parentLink: ParentLink,
    reduce: @escaping (inout State, Action) -> Effect<Action>
  ) {
    self.currentState = initialState
    self.reduce = reduce
    self.clock = clock
    self.parentLink = parentLink
  }

  /// Calls `body` with the current state without registering an observation, as TCA's
  /// `withState` does: for code outside views (a recorder, a log line) that reads the state
  /// once and must not make it observed.
  ///
  /// - Parameter body: Receives the current state.
  /// - Returns: What `body` returns.
  @inlinable
  public func withState<Result>(_ body: (State) throws -> Result) rethrows -> Result {
    try body(currentState)
  }

  /// The current state, an immutable value.
  ///
  /// Reading it inside `withObservationTracking` (or a SwiftUI view's body) registers the
  /// reader for the next change.
  public var state: State {
    registrar.access(self, keyPath: \.state)
    isObservationTracked = true
    return currentState
  }

  /// Reduces `action`, then notifies recorders and observers and starts its effect.
  ///
  /// If an action is being reduced or observed already, `action` is queued and reduced after
  /// it, so that actions are always reduced one at a time and in the order they were sent.
  ///
  /// - Parameter action: The action to reduce.
  @inlinable
  public func send(_ action: Action) {
    if isSending {
      queue.append(action)
      return
    }
    isSending = true
    process(action)
    while let next = queue.popFirst() {
      process(next)
    }
    isSending = false
  }

  @inlinable
  func process(_ action: Action) {
    _sequence &+= 1
    let effect: Effect<Action>
    if !hasListeners && !isObservationTracked && fieldChecks.isEmpty {
      effect = reduce(&currentState, action)
    } else {
      effect = processObserved(action)
    }
    if !effect.isNone {
      run(effect)
    }
  }

  @usableFromInline
  func run(_ effect: Effect<Action>) {
    effects.run(effect)
  }

  @inlinable
  func processObserved(_ action: Action) -> Effect<Action> {
    // The old state is kept only when someone reads it; otherwise no `State?` is made at
    // all: destroying one, even `nil`, went through generic value witnesses here (about
    // 40 instructions each, three per action).
    if recordersWantStateBefore || subscribersWantOld {
      return reduceObserved(action, before: currentState)
    }
    return reduceObserved(action, before: nil)
  }

  @inlinable @inline(__always)
  func reduceObserved(_ action: Action, before: State?) -> Effect<Action> {
    let tracked = isObservationTracked
    if tracked {
      // Observation's observers fire once; whoever observes again reads `state` again,
      // which sets the flag again. Until then, `send` skips the registrar.
      isObservationTracked = false
      registrar.willSet(self, keyPath: \.state)
    }
    let effect = reduce(&currentState, action)
    if !recorders.isEmpty {
      let sequence = _sequence
      let time = clock.now(sequence)
      if recordersWantStateBefore, let before {
        withUnsafePointer(to: before) { before in
          recorders.forEach { $0.record(self, sequence, time, action, before) }
        }
      } else {
        recorders.forEach { $0.record(self, sequence, time, action, nil) }
      }
    }
    notifyObservers(old: before, tracked: tracked)
    return effect
  }

  /// Tells the subscribers, Observation's observers (`tracked`: the whole state was read
  /// since the last change) and the fields read through the store that the state changed
  /// from `old`: after an action or a jump.
  @inlinable @inline(__always)
  func notifyObservers(old: State?, tracked: Bool) {
    if !subscribers.isEmpty {
      notifySubscribers(old: old)
    }
    if tracked {
      registrar.didSet(self, keyPath: \.state)
    }
    for field in fieldChecks where field.changed(currentState) {
      // Observation's observers fire once: a field nobody read since it last notified
      // only keeps its value up to date.
      guard field.isObserved else { continue }
      field.isObserved = false
      field.notify(registrar, self)
    }
  }

  /// A field of the state read through ``subscript(dynamicMember:)``: its key path on the
  /// store, which the registrar knows it by, whether it was read since it last notified, and
  /// the check that tells whether an action changed it.
  @usableFromInline
  final class ObservedField {
    @usableFromInline let storeKeyPath: AnyKeyPath
    @usableFromInline @exclusivity(unchecked) var isObserved = false
    /// Whether the state changed the field since the last call; keeps its value. Made by a
    /// nonisolated function (``fieldCheck(_:value:)``): a closure made in the store would be
    /// main-actor isolated, and Swift checks the executor on every call of one (see W3f).
    @usableFromInline let changed: (State) -> Bool
    /// Tells the field's observers that it changed.
    @usableFromInline let notify: (ObservationRegistrar, Store) -> Void

    @usableFromInline
    init(
      storeKeyPath: AnyKeyPath, changed: @escaping (State) -> Bool,
      notify: @escaping (ObservationRegistrar, Store) -> Void
    ) {
      self.storeKeyPath = storeKeyPath
      self.changed = changed
      self.notify = notify
    }
  }

  /// The check of a field at `keyPath` whose value is now `value`: a stored property is read
  /// at its offset (applying the key path costs several times the comparison).
  @inlinable
  nonisolated static func fieldCheck<Value: Equatable>(
    _ keyPath: KeyPath<State, Value>, value: Value
  ) -> (State) -> Bool {
    let last = LastValue(value)
    let offset = MemoryLayout<State>.offset(of: keyPath)
    return { state in
      let value = Self.value(of: state, at: keyPath, offset: offset)
      guard value != last.value else { return false }
      last.value = value
      return true
    }
  }

  /// The value at `keyPath` in `state`; `offset` is the key path's offset in the state when
  /// it names a stored property (`MemoryLayout.offset(of:)`), which is read directly.
  @inlinable @inline(__always)
  nonisolated static func value<Value>(
    of state: State, at keyPath: KeyPath<State, Value>, offset: Int?
  ) -> Value {
    if let offset {
      withUnsafeBytes(of: state) { $0.load(fromByteOffset: offset, as: Value.self) }
    } else {
      state[keyPath: keyPath]
    }
  }

  /// What tells the observers of the field at `storeKeyPath` that it changed.
  @inlinable
  nonisolated static func fieldNotification<Value>(_ storeKeyPath: KeyPath<Store, Value>) -> (
    ObservationRegistrar, Store
  ) -> Void {
    { registrar, store in
      registrar.willSet(store, keyPath: storeKeyPath)
      registrar.didSet(store, keyPath: storeKeyPath)
    }
  }

  /// The value of a field of the state, observed on its own: inside
  /// `withObservationTracking` or a SwiftUI view's body, only an action that changes this
  /// value notifies, not one that changes another field.
  ///
  /// ```swift
  /// Text("\(store.count)")   // redraws when `count` changes, not when anything else does
  /// ```
  ///
  /// Each field read this way costs every later `send` a read of its key path and a
  /// comparison (see W3f in `Benchmarks/`).
  @inlinable
  public subscript<Value: Equatable>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    let field: ObservedField
    if let known = observedFields[keyPath] {
      field = known
    } else {
      let storeKeyPath = (\Store.currentState).appending(path: keyPath)
      field = ObservedField(
        storeKeyPath: storeKeyPath,
        changed: Self.fieldCheck(keyPath, value: currentState[keyPath: keyPath]),
        notify: Self.fieldNotification(storeKeyPath))
      observedFields[keyPath] = field
      fieldChecks.append(field)
    }
    field.isObserved = true
    registrar.access(self, keyPath: field.storeKeyPath as! KeyPath<Store, Value>)
    return currentState[keyPath: keyPath]
  }

  @inlinable
  func notifySubscribers(old: State?) {
    let new = currentState
    var sawCancelled = false
    subscribers.forEach { subscriber in
      if subscriber.flag.isCancelled {
        sawCancelled = true
      } else if let old {
        subscriber.onChange(old, new)
      } else {
        // No subscriber reads the old state (`wantsOld`): none was kept.
        subscriber.onChange(new, new)
      }
    }
    if sawCancelled {
      dropCancelledSubscribers()
    }
  }

  /// Lets go of the subscribers whose subscription has ended.
  @usableFromInline
  func dropCancelledSubscribers() {
    subscribers.removeAll { $0.flag.isCancelled }
    subscribersWantOld = subscribers.contains { $0.wantsOld }
    hasListeners = !recorders.isEmpty || !subscribers.isEmpty
  }

  /// Calls `onChange` with the old and the new state after every action, until the returned
  /// subscription is cancelled or released.
  ///
  /// ```swift
  /// let subscription = store.subscribe { old, new in
  ///   if old.count != new.count { print("count:", new.count) }
  /// }
  /// ```
  ///
  /// The callback runs on the main actor after each action, including actions that leave the
  /// state unchanged. Actions it sends are queued.
  ///
  /// Handing over the old state means keeping it across the reducer call, so the reducer's
  /// in-place change copies what it changes (copy-on-write), which for a state that holds
  /// large collections costs microseconds per action. To follow a part of the state, use
  /// ``subscribe(to:_:)``, which costs no copy.
  ///
  /// - Parameter onChange: Receives the state before and after each action.
  /// - Returns: The subscription; keep it as long as you want updates.
  public func subscribe(
    _ onChange: @escaping @MainActor (_ old: State, _ new: State) -> Void
  ) -> StoreSubscription {
    addSubscriber(wantsOld: true, onChange)
  }

  /// Calls `onChange` with the old and the new value of `value` after every action that
  /// changes it, until the returned subscription is cancelled or released: a subscription
  /// to a part of the state, like ReSwift's `select` with `skipRepeats`, or a scoped
  /// store's publisher with `removeDuplicates()` in TCA.
  ///
  /// ```swift
  /// let subscription = store.subscribe(to: \.accounts.count) { old, new in
  ///   print("accounts:", old, "->", new)
  /// }
  /// ```
  ///
  /// The store keeps only the last value, not the old state, so a subscription costs the
  /// call to `value` and a comparison per action, and never a copy of the state. The
  /// callback runs on the main actor; actions it sends are queued.
  ///
  /// - Parameters:
  ///   - value: Derives the value from a state; a key path will do.
  ///   - onChange: Receives the value before and after an action that changed it.
  /// - Returns: The subscription; keep it as long as you want updates.
  @inlinable
  public func subscribe<Value: Equatable>(
    to value: @escaping @MainActor (State) -> Value,
    _ onChange: @escaping @MainActor (_ old: Value, _ new: Value) -> Void
  ) -> StoreSubscription {
    // Inlinable, so that the closure below is compiled in the app for its own state and
    // value types: generic, each call went through value witnesses and boxed the value, and
    // a captured `var` paid run-time exclusivity checks (see W3s in Benchmarks/).
    addSubscriber(wantsOld: false, Self.scopedCallback(value, last: value(currentState), onChange))
  }

  /// The callback of a scoped subscription, made by a nonisolated function: a closure made
  /// in the store's own methods checks the executor on every call (see W3s).
  @inlinable
  nonisolated static func scopedCallback<Value: Equatable>(
    _ value: @escaping @MainActor (State) -> Value, last: sending Value,
    _ onChange: @escaping @MainActor (_ old: Value, _ new: Value) -> Void
  ) -> @MainActor (State, State) -> Void {
    let last = LastValue(last)
    return { @MainActor _, new in
      let next = value(new)
      guard next != last.value else { return }
      let old = last.value
      last.value = next
      onChange(old, next)
    }
  }

  @usableFromInline
  func addSubscriber(
    wantsOld: Bool, _ onChange: @escaping @MainActor (State, State) -> Void
  ) -> StoreSubscription {
    let subscription = StoreSubscription { [weak self] in
      Task { @MainActor in self?.dropCancelledSubscribers() }
    }
    subscribers.append(Subscriber(flag: subscription.flag, wantsOld: wantsOld, onChange: onChange))
    subscribersWantOld = subscribersWantOld || wantsOld
    hasListeners = true
    return subscription
  }

  /// Attaches a recorder that sees every action reduced from now on.
  ///
  /// The recorder's ``StoreRecorder/attached(sequence:state:)`` is called first, with the
  /// current state.
  ///
  /// - Parameter recorder: The recorder to attach.
  @inlinable
  public func attach(_ recorder: some StoreRecorder<State, Action>) {
    recorder.attached(sequence: sequence, state: currentState)
    recorder.attached(to: self)
    recorders.append(
      AttachedRecorder(recorder: recorder) { store, sequence, time, action, before in
        // The state only for a recorder that wants it: copying it is most of what a
        // recorder that does not costs `send`.
        if recorder.wantsStateAfter(sequence: sequence) {
          recorder.record(
            sequence: sequence, time: time, action: action, stateBefore: before?.pointee,
            stateAfter: store.currentState)
        } else {
          recorder.record(
            sequence: sequence, time: time, action: action, stateBefore: before?.pointee,
            stateAfter: nil)
        }
      })
    recordersWantStateBefore = recorders.contains { $0.recorder.wantsStateBefore }
    hasListeners = true
  }

  /// Detaches a recorder attached with ``attach(_:)``.
  ///
  /// - Parameter recorder: The recorder to detach; nothing happens if it is not attached.
  public func detach(_ recorder: some StoreRecorder<State, Action>) {
    guard recorders.contains(where: { $0.recorder === recorder }) else { return }
    recorder.detached(sequence: sequence, state: currentState)
    recorders.removeAll { $0.recorder === recorder }
    recordersWantStateBefore = recorders.contains { $0.recorder.wantsStateBefore }
    hasListeners = !recorders.isEmpty || !subscribers.isEmpty
  }

  /// Sets the state to `state` without an action: time travel, as a debugger's "jump to
  /// state" does (Redux DevTools' `JUMP_TO_STATE`).
  ///
  /// Subscribers, Observation's observers and fields read through the store are told as for
  /// any change, so the UI follows. Attached recorders are told with
  /// ``StoreRecorder/jumped(sequence:time:from:to:)``, so that a trace records the jump and its
  /// replay gives the states the app really showed. The sequence number does not change: the
  /// next action is numbered `sequence + 1` and applies to `state`. Running effects are not
  /// cancelled and no effect runs again.
  ///
  /// Called while an action is being reduced or observed (by a recorder or a subscriber),
  /// the jump happens once that action and the actions queued behind it are done. Actions
  /// that observers send while they are told of the jump are reduced right after it.
  ///
  /// On a child store (``scope(state:action:)-(KeyPath<State,ChildState>,_)``), the jump moves
  /// the child's state alone, not the parent's: the child shows `state` until the parent's
  /// state next changes.
  ///
  /// - Parameter state: The state to move to, usually one the store held earlier.
  public func jump(to state: State) {
    if isSending {
      Task { @MainActor in self.jump(to: state) }
      return
    }
    moveState(to: state)
  }

  /// Sets the state to `state` without an action and tells recorders (as a jump) and
  /// observers, then reduces the actions they sent meanwhile. Only when no action is in
  /// progress (`isSending` is false).
  ///
  /// Inlinable: a child store moves to its part of the parent's state after every parent
  /// action, and unspecialized, that cost about 500 ns per action (W1p).
  @inlinable
  func moveState(to state: State) {
    isSending = true
    defer { isSending = false }
    let previous = currentState
    let tracked = isObservationTracked
    if tracked {
      isObservationTracked = false
      registrar.willSet(self, keyPath: \.state)
    }
    currentState = state
    if !recorders.isEmpty {
      let time = clock.now(_sequence)
      recorders.forEach {
        $0.recorder.jumped(sequence: _sequence, time: time, from: previous, to: currentState)
      }
    }
    notifyObservers(old: previous, tracked: tracked)
    while let next = queue.popFirst() {
      process(next)
    }
  }

  /// The number of effects still running. A child store runs none of its own: this is its
  /// parent's count.
  public var runningEffectCount: Int {
    if let parentLink { return parentLink.parent.runningEffectCount }
    return effects.runningCount
  }

  /// Cancels every running effect. On a child store, the parent's effects, which are the
  /// ones the child's actions started.
  public func cancelAllEffects() {
    if let parentLink { return parentLink.parent.cancelAllEffects() }
    effects.cancelAll()
  }

  /// Waits until every running effect (and every effect they start) has finished; on a
  /// child store, every effect of its parent.
  ///
  /// Useful in tests and command-line tools; an app rarely needs it.
  public func waitForEffects() async {
    if let parentLink { return await parentLink.parent.waitForEffects() }
    await effects.waitUntilIdle()
  }
}
