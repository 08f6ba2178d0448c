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
