/// Everything the debugger, the benchmarks and the tests need to know about one app domain:
/// its name, its state and action types, its reducer, its invariants and a workload
/// generator.
///
/// Apps describe each domain with a ``DomainDefinition`` value; a registry lists them as
/// `[any Domain]`, and generic code opens the existential to get the concrete types back:
///
/// ```swift
/// func finalState<D: Domain>(_ domain: D, _ actions: [D.Action]) -> D.State {
///   var state = domain.initialState
///   for action in actions { _ = domain.reduce(into: &state, action: action) }
///   return state
/// }
/// ```
public protocol Domain<State, Action>: Sendable {
  /// The domain's state: a value type, `Codable` for snapshots and `Equatable` for checks.
  associatedtype State: Codable & Equatable & Sendable
  /// The domain's actions, `Codable` with Swift's synthesized enum coding.
  associatedtype Action: Codable & Sendable

  /// The name tools use for the domain, such as `banking`.
  var name: String { get }
  /// One sentence that says what the domain is.
  var summary: String { get }
  /// The version of the action encoding; traces record it, and upcasters rewrite actions
  /// recorded with older versions.
  var actionSchemaVersion: Int { get }
  /// The state before the first action of a session.
  var initialState: State { get }
  /// The names of the action cases, as they appear in encoded actions (`addTransaction`).
  var actionCases: [String] { get }
  /// The rules the state must always obey.
  var invariants: [Invariant<State>] { get }
  /// A generator of realistic action sequences, for `retrace generate` and benchmarks;
  /// `nil` when the domain has none.
  var workload: Workload<State, Action>? { get }

  /// The actions a model checker (`retrace check`, `ModelChecker`) may send in a state: a
  /// finite list of concrete actions, computed from the state alone; `nil` (the default)
  /// when the domain declares none.
  ///
  /// List what a user and the app's effects could send there: `addTransaction` for each
  /// account that exists with a few amounts, and the answers effects send back
  /// (`registrationSucceeded`). The same state must always give the same list, in the same
  /// order.
  var explorationActions: (@Sendable (State) -> [Action])? { get }
  /// Which states a model checker explores further: a state for which it returns `false` is
  /// checked but its successors are not computed (TLC's state constraint); `nil` (the
  /// default) explores every state.
  var stateConstraint: (@Sendable (State) -> Bool)? { get }
  /// Named conditions a model checker can search for (`retrace check --reach NAME`), such as
  /// "a user is registered"; none by default.
  var predicates: [StatePredicate<State>] { get }
  /// Whether the state's `Hashable` conformance combines every field its `==` compares, as
  /// a synthesized one does: a model checker then tells states apart by their hash, several
  /// times faster than by their encoding. `false` by default. Declare it only when it is
  /// true: a hash that leaves out a field makes a search miss the states that differ in it.
  var statesHashEveryField: Bool { get }

  /// Which action and state fields hold personal data, and what a recorder with a
  /// redaction key writes of them; `nil` (the default) when the domain declares none.
  var redaction: RedactionPolicy? { get }
  /// How tools show some of the state's numbers (money, dates), by path pattern
  /// (``DisplayFormat``); empty (the default) when the domain declares none.
  var displayFormats: [String: DisplayFormat] { get }

  /// Applies an action with the domain's reducer.
  func reduce(into state: inout State, action: Action) -> Effect<Action>

  /// Rewrites an action recorded with an older ``actionSchemaVersion`` into the current
  /// shape, before it is decoded.
  ///
  /// - Parameters:
  ///   - action: The encoded action, as a generic CBOR value.
  ///   - version: The action schema version it was recorded with.
  /// - Returns: The action in the current shape.
  /// - Throws: When the action cannot be upcast; readers report it with its sequence number.
  func upcast(_ action: CBORValue, fromVersion version: Int) throws -> CBORValue

  /// The action in the shape an older ``actionSchemaVersion`` encoded it: the inverse of
  /// ``upcast(_:fromVersion:)``.
  ///
  /// Apps never record old versions; tools do, to write a session as an older release of
  /// the app wrote it (`retrace generate --action-schema 1`), so that the upcaster is
  /// exercised on realistic sessions.
  ///
  /// - Parameters:
  ///   - action: An action in the current shape.
  ///   - version: An older action schema version.
  /// - Returns: A value that encodes as `version` encoded the action, or `nil` when the
  ///   domain cannot write `version`.
  func legacyEncoding(of action: Action, schemaVersion version: Int) -> (any Encodable & Sendable)?

  /// Decodes one recorded action from its CBOR encoding (`docs/CODEC.md`).
  ///
  /// Trace readers call it for every action they read, from code that knows the domain only
  /// as `any Domain`. The default decodes with `CBORDecoder`; ``DomainDefinition`` does the
  /// same with code compiled for its action type, where the hand-written decoding
  /// (`CBORDecodable`) is called directly, without run-time conformance lookups and
  /// generic metadata, which cost as much as decoding a small action.
  ///
  /// - Parameter bytes: The encoded action, and nothing else.
  /// - Returns: The action.
  /// - Throws: The errors of `CBORDecoder.decode(_:from:)`.
  func decodeAction(from bytes: UnsafeRawBufferPointer) throws -> Action
}

extension Domain {
  /// By default a domain declares no exploration actions.
  public var explorationActions: (@Sendable (State) -> [Action])? { nil }

  /// By default every state is explored.
  public var stateConstraint: (@Sendable (State) -> Bool)? { nil }

  /// By default a domain declares no predicates.
  public var predicates: [StatePredicate<State>] { [] }

  /// By default a model checker does not rely on the state's `Hashable` conformance.
  public var statesHashEveryField: Bool { false }

  /// The predicate called `name`, if the domain has one.
  public func predicate(named name: String) -> StatePredicate<State>? {
    predicates.first { $0.name == name }
  }

  /// By default a domain declares no redaction.
  public var redaction: RedactionPolicy? { nil }

  /// By default a domain declares no display formats.
  public var displayFormats: [String: DisplayFormat] { [:] }

  /// By default actions need no upcasting.
  public func upcast(_ action: CBORValue, fromVersion version: Int) throws -> CBORValue {
    action
  }

  /// Decodes with `CBORDecoder`.
  public func decodeAction(from bytes: UnsafeRawBufferPointer) throws -> Action {
    try CBORDecoder().decode(Action.self, from: bytes)
  }

  /// By default a domain writes only its current schema.
  public func legacyEncoding(of action: Action, schemaVersion version: Int) -> (
    any Encodable & Sendable
  )? {
    nil
  }

  /// The invariant called `name`, if the domain has one.
  public func invariant(named name: String) -> Invariant<State>? {
    invariants.first { $0.name == name }
  }
}

/// A domain described by one value: the usual way to define a ``Domain``.
///
/// ```swift
/// public let counterDomain = DomainDefinition(
///   name: "counter",
///   summary: "A counter that goes up and down.",
///   initialState: CounterState(),
///   reducer: CounterReducer(),
///   actionCases: ["increment", "decrement", "reset"],
///   invariants: [Invariant("non-negative", "The count is never below zero.") { $0.count >= 0 }],
///   workload: Workload { state, step, random in
///     Bool.random(using: &random) ? .increment : .decrement
///   }
/// )
/// ```
public struct DomainDefinition<State: Codable & Equatable & Sendable, Action: Codable & Sendable>:
  Domain
{
  /// The name tools use for the domain.
  public let name: String
  /// One sentence that says what the domain is.
  public let summary: String
  /// The version of the action encoding.
  public let actionSchemaVersion: Int
  /// The state before the first action of a session.
  public let initialState: State
  /// The names of the action cases, as they appear in encoded actions.
  public let actionCases: [String]
  /// The actions the domain was created with, one or more of each case, in the order
  /// given: `sampleActions:` of
  /// ``init(name:summary:actionSchemaVersion:initialState:reducer:sampleActions:invariants:workload:upcaster:legacyEncoder:redaction:displayFormats:explorationActions:stateConstraint:predicates:statesHashEveryField:)``;
  /// empty for a domain created with its case names (`actionCases:`).
  public let sampleActions: [Action]
  /// The rules the state must always obey.
  public let invariants: [Invariant<State>]
  /// A generator of realistic action sequences, if the domain has one.
  public let workload: Workload<State, Action>?
  /// Which action and state fields hold personal data; `nil` for none.
  public let redaction: RedactionPolicy?
  /// How tools show some of the state's numbers, by path pattern (``DisplayFormat``).
  public let displayFormats: [String: DisplayFormat]
  /// The actions a model checker may send in a state; `nil` when the domain declares none.
  public let explorationActions: (@Sendable (State) -> [Action])?
  /// Which states a model checker explores further; `nil` for every state.
  public let stateConstraint: (@Sendable (State) -> Bool)?
  /// Named conditions a model checker can search for.
  public let predicates: [StatePredicate<State>]
  /// Whether the state's `Hashable` conformance combines every field its `==` compares.
  public let statesHashEveryField: Bool
  @usableFromInline let reducer: Reduce<State, Action>
  @usableFromInline let upcaster: (@Sendable (CBORValue, Int) throws -> CBORValue)?
  @usableFromInline let legacyEncoder: (@Sendable (Action, Int) -> (any Encodable & Sendable)?)?
  /// The action decoder, made where the domain is defined, so that it is compiled for
  /// `Action`.
  @usableFromInline let actionDecoder: @Sendable (UnsafeRawBufferPointer) throws -> Action

  /// Creates a domain description.
  ///
  /// - Parameters:
  ///   - name: The name tools use for the domain.
  ///   - summary: One sentence that says what the domain is.
  ///   - actionSchemaVersion: The version of the action encoding (1 for a new domain).
  ///   - initialState: The state before the first action.
  ///   - reducer: The domain's reducer.
  ///   - actionCases: The names of the action cases, as they appear in encoded actions.
  ///     Prefer ``init(name:summary:actionSchemaVersion:initialState:reducer:sampleActions:invariants:workload:upcaster:legacyEncoder:redaction:displayFormats:explorationActions:stateConstraint:predicates:statesHashEveryField:)``,
  ///     which derives them from actions, so that the compiler checks them.
  ///   - invariants: The rules the state must obey.
  ///   - workload: A generator of realistic action sequences, for `retrace generate` and
  ///     benchmarks; `nil` (the default) when the domain has none.
  ///   - upcaster: Rewrites an action recorded with an older schema version (given as the
  ///     second argument) into the current shape; `nil` when there is nothing to upcast.
  ///   - legacyEncoder: The action as an older schema version (the second argument) encoded
  ///     it, or `nil` for a version it cannot write: the inverse of `upcaster`, for tools
  ///     that write sessions as older releases did.
  ///   - redaction: Which action and state fields hold personal data; `nil` for none.
  ///   - displayFormats: How tools show some of the state's numbers, by path pattern
  ///     (`"accounts.*.balance": .money(currencyCode: "EUR")`); none by default.
  ///   - explorationActions: The actions a model checker may send in a state (a finite list
  ///     of concrete actions, from the state alone); `nil` (the default) for none.
  ///   - stateConstraint: Which states a model checker explores further; `nil` for all.
  ///   - predicates: Named conditions a model checker can search for (`--reach`).
  ///   - statesHashEveryField: Whether the state's `Hashable` conformance combines every
  ///     field its `==` compares (a synthesized one does), so that a model checker may tell
  ///     states apart by it; `false` by default.
  @inlinable
  public init<R: Reducer & Sendable>(
    name: String,
    summary: String,
    actionSchemaVersion: Int = 1,
    initialState: State,
    reducer: R,
    actionCases: [String],
    invariants: [Invariant<State>] = [],
    workload: Workload<State, Action>? = nil,
    upcaster: (@Sendable (CBORValue, Int) throws -> CBORValue)? = nil,
    legacyEncoder: (@Sendable (Action, Int) -> (any Encodable & Sendable)?)? = nil,
    redaction: RedactionPolicy? = nil,
    displayFormats: [String: DisplayFormat] = [:],
    explorationActions: (@Sendable (State) -> [Action])? = nil,
    stateConstraint: (@Sendable (State) -> Bool)? = nil,
    predicates: [StatePredicate<State>] = [],
    statesHashEveryField: Bool = false
  ) where R.State == State, R.Action == Action {
    self.init(
      name: name, summary: summary, actionSchemaVersion: actionSchemaVersion,
      initialState: initialState, reducer: reducer, actionCases: actionCases, sampleActions: [],
      invariants: invariants, workload: workload, upcaster: upcaster,
      legacyEncoder: legacyEncoder, redaction: redaction, displayFormats: displayFormats,
      explorationActions: explorationActions, stateConstraint: stateConstraint,
      predicates: predicates, statesHashEveryField: statesHashEveryField)
  }

  /// Creates a domain description from its case names and sample actions; the public
  /// initializers differ in which of the two they take.
  @inlinable
  init<R: Reducer & Sendable>(
    name: String,
    summary: String,
    actionSchemaVersion: Int,
    initialState: State,
    reducer: R,
    actionCases: [String],
    sampleActions: [Action],
    invariants: [Invariant<State>],
    workload: Workload<State, Action>?,
    upcaster: (@Sendable (CBORValue, Int) throws -> CBORValue)?,
    legacyEncoder: (@Sendable (Action, Int) -> (any Encodable & Sendable)?)?,
    redaction: RedactionPolicy?,
    displayFormats: [String: DisplayFormat],
    explorationActions: (@Sendable (State) -> [Action])?,
    stateConstraint: (@Sendable (State) -> Bool)?,
    predicates: [StatePredicate<State>],
    statesHashEveryField: Bool
  ) where R.State == State, R.Action == Action {
    self.statesHashEveryField = statesHashEveryField
    self.redaction = redaction
    self.displayFormats = displayFormats
    self.explorationActions = explorationActions
    self.stateConstraint = stateConstraint
    self.predicates = predicates
    self.name = name
    self.summary = summary
    self.actionSchemaVersion = actionSchemaVersion
    self.initialState = initialState
    self.reducer = Reduce(reducer)
    self.actionCases = actionCases
    self.sampleActions = sampleActions
    self.invariants = invariants
    self.workload = workload
    self.upcaster = upcaster
    self.legacyEncoder = legacyEncoder
    self.actionDecoder = { try CBORDecoder().decode(Action.self, from: $0) }
  }

  /// Creates a domain description whose action case names are those of `sampleActions`,
  /// one action of each case: the compiler checks the actions, so the names cannot drift
  /// from the enum.
  ///
  /// ```swift
  /// let checkoutDomain = DomainDefinition(
  ///   name: "checkout", summary: "A shopping cart.", initialState: Cart(), reducer: CartReducer(),
  ///   sampleActions: [.add(sku: "", quantity: 1), .remove(sku: ""), .checkOut])
  /// ```
  ///
  /// For an `Action` that is `CaseIterable`, pass `Action.allCases`.
  ///
  /// - Parameters:
  ///   - name: The name tools use for the domain.
  ///   - summary: One sentence that says what the domain is.
  ///   - actionSchemaVersion: The version of the action encoding (1 for a new domain).
  ///   - initialState: The state before the first action.
  ///   - reducer: The domain's reducer.
  ///   - sampleActions: At least one action of each case, in the order tools list them.
  ///   - invariants: The rules the state must obey.
  ///   - workload: A generator of realistic action sequences; `nil` for none.
  ///   - upcaster: Rewrites an action recorded with an older schema version.
  ///   - legacyEncoder: The action as an older schema version encoded it.
  ///   - redaction: Which action and state fields hold personal data; `nil` for none.
  ///   - displayFormats: How tools show some of the state's numbers, by path pattern
  ///     (`"accounts.*.balance": .money(currencyCode: "EUR")`); none by default.
  ///   - explorationActions: The actions a model checker may send in a state (a finite list
  ///     of concrete actions, from the state alone); `nil` (the default) for none.
  ///   - stateConstraint: Which states a model checker explores further; `nil` for all.
  ///   - predicates: Named conditions a model checker can search for (`--reach`).
  ///   - statesHashEveryField: Whether the state's `Hashable` conformance combines every
  ///     field its `==` compares (a synthesized one does), so that a model checker may tell
  ///     states apart by it; `false` by default.
  @inlinable
  public init<R: Reducer & Sendable>(
    name: String,
    summary: String,
    actionSchemaVersion: Int = 1,
    initialState: State,
    reducer: R,
    sampleActions: [Action],
    invariants: [Invariant<State>] = [],
    workload: Workload<State, Action>? = nil,
    upcaster: (@Sendable (CBORValue, Int) throws -> CBORValue)? = nil,
    legacyEncoder: (@Sendable (Action, Int) -> (any Encodable & Sendable)?)? = nil,
    redaction: RedactionPolicy? = nil,
    displayFormats: [String: DisplayFormat] = [:],
    explorationActions: (@Sendable (State) -> [Action])? = nil,
    stateConstraint: (@Sendable (State) -> Bool)? = nil,
    predicates: [StatePredicate<State>] = [],
    statesHashEveryField: Bool = false
  ) where R.State == State, R.Action == Action {
    var names: [String] = []
    for action in sampleActions {
      let name = actionCaseName(of: action)
      if !names.contains(name) { names.append(name) }
    }
    self.init(
      name: name, summary: summary, actionSchemaVersion: actionSchemaVersion,
      initialState: initialState,
      reducer: reducer, actionCases: names, sampleActions: sampleActions, invariants: invariants,
      workload: workload,
      upcaster: upcaster,
      legacyEncoder: legacyEncoder, redaction: redaction, displayFormats: displayFormats,
      explorationActions: explorationActions, stateConstraint: stateConstraint,
      predicates: predicates, statesHashEveryField: statesHashEveryField)
  }

  /// Applies an action with the domain's reducer.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reducer.reduce(into: &state, action: action)
  }

  /// Decodes an action with code compiled for `Action`.
  public func decodeAction(from bytes: UnsafeRawBufferPointer) throws -> Action {
    try actionDecoder(bytes)
  }

  /// Rewrites an older action with the upcaster, if there is one.
  public func upcast(_ action: CBORValue, fromVersion version: Int) throws -> CBORValue {
    try upcaster?(action, version) ?? action
  }

  /// The action as an older schema version encoded it, from the legacy encoder.
  public func legacyEncoding(of action: Action, schemaVersion version: Int) -> (
    any Encodable & Sendable
  )? {
    legacyEncoder?(action, version)
  }
}

/// A named rule about a domain's state, such as "no balance is below zero".
///
/// `retrace bisect` checks an invariant after every action of a trace, so keep its cost
/// independent of the state's size: a rule about an aggregate (a sum, a count) should read
/// one that the state keeps up to date in every mutation, as the banking example's `Ledger`
/// keeps its transactions' sum, rather than recompute it from the whole state.
public struct Invariant<State>: Sendable {
  /// The name tools use, such as `non-negative-balance`.
  public let name: String
  /// One sentence that says what must hold.
  public let summary: String
  /// Returns `true` when the state obeys the rule.
  public let holds: @Sendable (State) -> Bool

  /// Creates an invariant.
  ///
  /// - Parameters:
  ///   - name: The name tools use.
  ///   - summary: One sentence that says what must hold.
  ///   - holds: Returns `true` when the state obeys the rule.
  public init(_ name: String, _ summary: String, holds: @escaping @Sendable (State) -> Bool) {
    self.name = name
    self.summary = summary
    self.holds = holds
  }
}

/// A named condition on a domain's state that a model checker searches for, such as "a user
/// is registered" (`retrace check --reach registered`): the same shape as an ``Invariant``,
/// which names what must always hold.
///
/// ```swift
/// StatePredicate("registered", "A user is registered.") { $0.registeredUserID != nil }
/// ```
public typealias StatePredicate<State> = Invariant<State>

/// A seeded generator of realistic action sequences for a domain.
///
/// The generator sees the current state, so it can address things that exist (an account's
/// IBAN), and the step number, so it can make dates increase. Given the same seed it always
/// produces the same actions.
public struct Workload<State, Action>: Sendable {
  /// Returns the next action for `state` at `step` (0 for the first action).
  public let next: @Sendable (_ state: State, _ step: Int, _ random: inout SeededRandom) -> Action

  /// Creates a workload from its step function.
  ///
  /// - Parameter next: Returns the next action for a state and a step, drawing randomness
  ///   only from `random`.
  public init(
    _ next:
      @escaping @Sendable (_ state: State, _ step: Int, _ random: inout SeededRandom) -> Action
  ) {
    self.next = next
  }
}

extension Domain {
  /// Generates `count` actions from the initial state with the workload, reducing each one
  /// so that the generator sees the state it produces. The domain must have a workload.
  ///
  /// - Parameters:
  ///   - count: The number of actions.
  ///   - seed: The seed; the same seed gives the same actions.
  /// - Returns: The actions and the state after them.
  public func generate(count: Int, seed: UInt64) -> (actions: [Action], finalState: State) {
    guard let workload else {
      preconditionFailure("domain \(name) has no workload to generate actions with")
    }
    var random = SeededRandom(seed: seed)
    var state = initialState
    var actions: [Action] = []
    // Up front only what is surely wanted: a count near Int.max must not trap here.
    actions.reserveCapacity(min(count, 1 << 20))
    for step in 0..<count {
      let action = workload.next(state, step, &random)
      _ = reduce(into: &state, action: action)
      actions.append(action)
    }
    return (actions, state)
  }
}
