import Retrace

/// A domain under another name: how `retrace replay --as` replays a trace of one domain with
/// another domain's reducer (a changed version of it), since a trace is read only by the
/// domain its header names.
struct RenamedDomain<Base: Domain>: Domain {
  let base: Base
  let name: String

  var summary: String { base.summary }
  var actionSchemaVersion: Int { base.actionSchemaVersion }
  var initialState: Base.State { base.initialState }
  var actionCases: [String] { base.actionCases }
  var invariants: [Invariant<Base.State>] { base.invariants }
  var workload: Workload<Base.State, Base.Action>? { base.workload }
  var redaction: RedactionPolicy? { base.redaction }
  var displayFormats: [String: DisplayFormat] { base.displayFormats }
  var explorationActions: (@Sendable (Base.State) -> [Base.Action])? { base.explorationActions }
  var stateConstraint: (@Sendable (Base.State) -> Bool)? { base.stateConstraint }
  var predicates: [StatePredicate<Base.State>] { base.predicates }
  var statesHashEveryField: Bool { base.statesHashEveryField }

  func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    base.reduce(into: &state, action: action)
  }

  func decodeAction(from bytes: UnsafeRawBufferPointer) throws -> Base.Action {
    try base.decodeAction(from: bytes)
  }

  func upcast(_ action: CBORValue, fromVersion version: Int) throws -> CBORValue {
    try base.upcast(action, fromVersion: version)
  }

  func legacyEncoding(of action: Base.Action, schemaVersion version: Int) -> (
    any Encodable & Sendable
  )? {
    base.legacyEncoding(of: action, schemaVersion: version)
  }
}

extension Domain {
  /// This domain under the name `name`.
  func renamed(_ name: String) -> any Domain {
    RenamedDomain(base: self, name: name)
  }
}
