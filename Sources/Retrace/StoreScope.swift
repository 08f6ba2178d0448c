/// What a child store asks of its parent besides its state: the parent's effects.
@MainActor
@usableFromInline
protocol ScopeParent: AnyObject {
  var runningEffectCount: Int { get }
  func cancelAllEffects()
  func waitForEffects() async
}

extension Store: ScopeParent {}

extension Store {
  /// What ties a child store to its parent: the parent (which the child keeps alive), the
  /// child's state as the parent holds it now, and the parent's subscription that tells the
  /// child of the parent's changes (which ends when the child is released).
  @MainActor
  @usableFromInline
  final class ParentLink {
    @usableFromInline let parent: any ScopeParent
    /// The child's state in the parent's state now; `nil` when an optional child is gone.
    @usableFromInline let childState: @MainActor () -> State?
    /// Set while the child forwards one of its actions; see ``ForwardingFlag``.
    @usableFromInline let forwarding = ForwardingFlag()
    /// The parent's subscription; it ends when the child, the only owner of its link, is
    /// released.
    @usableFromInline var subscription: StoreSubscription?

    @usableFromInline
    init(parent: any ScopeParent, childState: @escaping @MainActor () -> State?) {
      self.parent = parent
      self.childState = childState
    }

    deinit {
      // The parent lets go of the subscription's callback soon after.
      subscription?.cancel()
    }
  }

  /// A store for a part of this store's state and actions, as TCA's `scope(state:action:)`:
  /// what a child view takes, so that the view works with any parent.
  ///
  /// ```swift
  /// let counterStore = appStore.scope(state: \.counter, action: AppAction.counterCase)
  /// counterStore.send(.increment)  // appStore receives .counter(.increment)
  /// ```
  ///
  /// The child reduces nothing itself: ``send(_:)`` on it sends `action.embed(childAction)`
  /// to this store, whose reducer (with ``Scope`` or `ifLet(_:action:then:)`)
  /// changes the child's part and runs the effects. The child's ``state`` follows this
  /// store's after every action, and is observed like any store's: per field through
  /// `childStore.someField`, as a whole through `childStore.state`. Its subscriptions work
  /// as on any store.
  ///
  /// The child keeps this store alive; this store holds the child weakly and forgets it once
  /// it is released. Each live child costs this store's `send` a subscriber's call; a store
  /// with no child pays nothing.
  ///
  /// The child's ``sequence`` counts the actions sent through it, and a recorder attached to
  /// it sees those actions and the child's states, with the parent's changes to the child as
  /// jumps. ``runningEffectCount``, ``cancelAllEffects()`` and ``waitForEffects()`` act on
  /// this store's effects.
  ///
  /// - Parameters:
  ///   - state: Where the child's state lives in this store's state.
  ///   - action: How child actions are embedded in this store's actions.
  /// - Returns: The child store.
  @inlinable
  public func scope<ChildState, ChildAction>(
    state: KeyPath<State, ChildState>, action: ActionCase<Action, ChildAction>
  ) -> Store<ChildState, ChildAction> {
    let read = Self.reader(state)
    return makeChild(initialState: read(currentState), action: action, Self.someReader(read))
  }

  /// A store for an optional part of this store's state (a detail or a sheet), or `nil` when
  /// that part is `nil` now, as TCA's `scope(state:action:)` on an optional state.
  ///
  /// ```swift
  /// if let detailStore = appStore.scope(state: \.detail, action: AppAction.detailCase) {
  ///   DetailView(store: detailStore)
  /// }
  /// ```
  ///
  /// Once made, the child keeps its last state when this store's part becomes `nil` (while a
  /// dismissed view animates away), and its actions are still sent to this store, whose
  /// `ifLet(_:action:then:)` ignores them. Otherwise it is the child store of
  /// ``scope(state:action:)-(KeyPath<State,ChildState>,_)``.
  ///
  /// - Parameters:
  ///   - state: Where the optional child state lives in this store's state.
  ///   - action: How child actions are embedded in this store's actions.
  /// - Returns: The child store, or `nil` when the child state is `nil`.
  @inlinable
  public func scope<ChildState, ChildAction>(
    state: KeyPath<State, ChildState?>, action: ActionCase<Action, ChildAction>
  ) -> Store<ChildState, ChildAction>? {
    let read = Self.reader(state)
    guard let initialState = read(currentState) else { return nil }
    return makeChild(initialState: initialState, action: action, read)
  }

  @inlinable
  func makeChild<ChildState, ChildAction>(
    initialState: ChildState, action: ActionCase<Action, ChildAction>,
    _ read: @escaping (State) -> ChildState?
  ) -> Store<ChildState, ChildAction> {
    // Children released since the last action would otherwise wait for it to be dropped.
    if subscribers.contains(where: { $0.flag.isCancelled }) {
      dropCancelledSubscribers()
    }
    let link = Store<ChildState, ChildAction>.ParentLink(parent: self) { [self] in
      read(currentState)
    }
    let embed = action.embed
    let forwarding = link.forwarding
    let child = Store<ChildState, ChildAction>(
      initialState: initialState, clock: clock, parentLink: link
    ) { [self] state, childAction in
      // The parent reduces the action and runs its effects (which may send more actions to
      // it, reduced before `send` returns); the child then reads its part once.
      forwarding.isSet = true
      send(embed(childAction))
      forwarding.isSet = false
      if let childState = read(currentState) {
        state = childState
      }
      return .none
    }
    // The subscriber holds neither the child nor its link, which hold the subscription.
    link.subscription = addSubscriber(
      wantsOld: false,
      Self.childUpdater(child: child, forwarding: forwarding) { @MainActor in read($0) })
    return child
  }

  /// The subscriber that moves a child's state when this store's changes, made by a
  /// nonisolated function: a closure made in the store's own methods checks the executor on
  /// every call (see W3s).
  @inlinable
  nonisolated static func childUpdater<ChildState, ChildAction>(
    child: Store<ChildState, ChildAction>, forwarding: ForwardingFlag,
    _ read: @escaping @MainActor (State) -> ChildState?
  ) -> @MainActor (State, State) -> Void {
    { @MainActor [weak child] _, new in
      // The child's own action: it reads its state itself when this store is done.
      if forwarding.isSet { return }
      guard let child, let childState = read(new) else { return }
      child.followParent(childState)
    }
  }

  /// Reads the value at `keyPath`, at its offset when it is a stored property.
  @inlinable
  nonisolated static func reader<Value>(_ keyPath: KeyPath<State, Value>) -> (State) -> Value {
    let offset = MemoryLayout<State>.offset(of: keyPath)
    return { state in Self.value(of: state, at: keyPath, offset: offset) }
  }

  @inlinable
  nonisolated static func someReader<Value>(
    _ read: @escaping (State) -> Value
  ) -> (State) -> Value? {
    { state in read(state) }
  }

  /// Moves a child store's state to its parent's part, `state`, as a jump that its recorders
  /// see; once the action in progress is done when there is one.
  @inlinable
  func followParent(_ state: State) {
    if isSending {
      // What the parent holds then, not `state`: the parent may have moved on.
      Task { @MainActor [weak self] in
        guard let self, let state = self.parentLink?.childState() else { return }
        self.followParent(state)
      }
      return
    }
    moveState(to: state)
  }
}

/// Set while a child store forwards one of its actions to its parent: the child then reads
/// its state from the parent once the parent is done, and the parent's subscriber leaves it
/// alone. Shared by the child's link and the parent's subscriber, which must not hold the
/// link (that holds the subscription, which ends when the child is released).
@MainActor
@usableFromInline
final class ForwardingFlag {
  @usableFromInline @exclusivity(unchecked) var isSet = false

  @usableFromInline
  init() {}
}
