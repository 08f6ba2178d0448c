import Foundation

/// The state hash the debugger uses when it is given none: 64-bit FNV-1a over the state's
/// JSON encoding with sorted keys.
///
/// Traces record the hash the recorder computed; to verify them, a ``Debugger`` must hash
/// with the same function. This one stands in until the core's `StateHash` (over the
/// deterministic CBOR encoding) is available, and then becomes a call to it.
///
/// ```swift
/// defaultStateHash(CounterState(count: 1)) == defaultStateHash(CounterState(count: 1))
/// ```
///
/// ```
/// true
/// ```
///
/// - Parameter state: The state to hash.
/// - Returns: The hash; 0 if the state cannot be encoded.
public func defaultStateHash<State: Encodable>(_ state: State) -> UInt64 {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys]
  guard let data = try? encoder.encode(state) else { return 0 }
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for byte in data {
    hash ^= UInt64(byte)
    hash &*= 0x0000_0100_0000_01b3
  }
  return hash
}
