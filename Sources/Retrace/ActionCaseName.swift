/// The name of an action's case, as it appears in the encoded action: the first key of its
/// encoding (`addTransaction` for `{"addTransaction":{...}}`).
///
/// This is the one place that decides what an action's case is called; `log --type`, the
/// per-case counts of `info` and the per-case timings of `bench` all go through it. It runs
/// the action's `encode(to:)` against an encoder that only notes the first key and ignores
/// everything else, so it costs a few calls and no buffer, and it gives exactly the key the
/// JSON and CBOR encodings start with, custom `Codable` conformances included. A payload-free
/// enum encoded as a single string (`"increment"`) is named by that string.
///
/// ```swift
/// actionCaseName(of: BankingAction.moveAccount(from: 2, to: 0))
/// actionCaseName(of: CounterAction.increment)
/// ```
///
/// ```
/// "moveAccount"
/// "increment"
/// ```
///
/// - Parameter action: An action.
/// - Returns: Its case name; `?` when its encoding starts with neither a key nor a string.
public func actionCaseName<Action: Encodable>(of action: Action) -> String {
  let encoder = FirstKeyEncoder()
  try? action.encode(to: encoder)
  if let name = encoder.recorder.name { return name }
  // An encoding that starts with neither a keyed container nor a string: ask the encoding.
  guard let bytes = try? CBOREncoder().encode(action), let value = try? CBORValue(decoding: bytes)
  else { return "?" }
  if case .map(let pairs) = value, let key = pairs.compactMap({ $0.key.stringValue }).sorted().first
  {
    return key
  }
  return value.stringValue ?? "?"
}

/// The path of an action's case through the child actions it carries: `detail.tick` for
/// `AppAction.detail(.tick)`, `addTransaction` for an action that carries no child action.
///
/// Each segment is a case name as ``actionCaseName(of:)`` gives it. A case carries a child
/// action when its single associated value is unlabeled and is itself an enum value
/// (`Mirror`'s `displayStyle` is `.enum`) that is not `RawRepresentable`: `.detail(.tick)`
/// nests, while `.addTransaction(Transaction)` (a struct), `.setColor(.red)` (a raw-value
/// enum), `.editor(action: .save)` (a labeled value), `.row(id: 1, action: .tick)` (two
/// values) and `.detail(nil)` (an optional) do not. The types decide, never the shape of an
/// encoding.
///
/// ```swift
/// actionCasePath(of: AppAction.detail(.timer(.tick)))
/// actionCasePath(of: BankingAction.moveAccount(from: 2, to: 0))
/// ```
///
/// ```
/// "detail.timer.tick"
/// "moveAccount"
/// ```
///
/// - Parameter action: An action.
/// - Returns: Its case names from the outermost in, joined with `.`.
public func actionCasePath<Action: Encodable>(of action: Action) -> String {
  var path = actionCaseName(of: action)
  var value: Any = action
  while let child = childAction(of: value) {
    path += "." + actionCaseName(of: child)
    value = child
  }
  return path
}

/// The action at the end of an action's case path (``actionCasePath(of:)``): `.tick` for
/// `AppAction.detail(.tick)`, the action itself when it carries no child action. Tools show
/// its associated values after the path.
///
/// - Parameter action: An action.
/// - Returns: Its innermost child action, or `action`.
public func innermostAction<Action: Encodable>(of action: Action) -> any Encodable {
  var value: any Encodable = action
  while let child = childAction(of: value) { value = child }
  return value
}

/// Whether an action's case path (``actionCasePath(of:)``) is what a case filter asks for,
/// as `retrace log --type` and the debugger's `find` decide.
///
/// A filter with a dot (`detail.tick`) matches that path and the paths under it, segment by
/// segment (`detail.tick` matches `detail.tick.fast`, never `detail.ticker`). A filter
/// without one (`detail`) matches the actions of that top-level case, whatever child action
/// they carry.
///
/// - Parameters:
///   - path: An action's case path.
///   - filter: A case name or a dotted case path.
/// - Returns: Whether the action is one the filter selects.
public func actionCasePath(_ path: String, matches filter: String) -> Bool {
  path == filter || path.hasPrefix(filter + ".")
}

/// The child action an action's case carries (see ``actionCasePath(of:)``), if any.
private func childAction(of value: Any) -> (any Encodable)? {
  let mirror = Mirror(reflecting: value)
  guard mirror.displayStyle == .enum, mirror.children.count == 1,
    let payload = mirror.children.first?.value,
    Mirror(reflecting: payload).displayStyle == .enum, !(payload is any RawRepresentable)
  else { return nil }
  return payload as? any Encodable
}
