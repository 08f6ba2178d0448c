import Retrace

/// A redacted recording's own replay: the state that the redacted starting state and the
/// redacted actions give under the domain's reducer, kept by the writer thread.
///
/// A redacted trace's checkpoints and snapshots hash and hold this state, never the app's:
/// it is what every later replay of the trace computes, so `replay --verify` passes under
/// an unchanged reducer whatever the user typed and however the reducer uses it, and it
/// holds nothing the trace does not already hold in redacted form (a value a reducer derives
/// from a pseudonym, such as the initials of a name, is derived from the pseudonym). The app
/// pays nothing for it on the sending thread: the store never hands a redacting recorder its
/// state.
final class RedactedReplay<State, Action> {
  /// The state after the last action applied, in a box of its own: reduced in place
  /// through the box's stored property, where reducing through an optional property copied
  /// the state first in this generic code, and every collection it holds with it (a banking
  /// state's accounts: microseconds an action; see W4r).
  private final class Box {
    var value: State
    init(_ value: State) { self.value = value }
  }

  /// `nil` before the start, and once an action did not decode (no later state can be
  /// known: the trace has no hash after it).
  private var box: Box?
  private let decodeState: ([UInt8]) throws -> State
  private let decodeAction: (UnsafeRawBufferPointer) throws -> Action
  private let reduce: (inout State, Action) -> Void

  /// Creates a replay that decodes and reduces with `domain`.
  init(domain: some Domain<State, Action>) where State: Decodable {
    decodeState = { bytes in try CBORDecoder().decode(State.self, from: bytes) }
    decodeAction = { bytes in try domain.decodeAction(from: bytes) }
    reduce = { state, action in _ = domain.reduce(into: &state, action: action) }
  }

  /// The state after the last action applied; `nil` before the start, and once an action
  /// did not decode.
  var state: State? { box?.value }

  /// Starts from the redacted starting state, as the trace holds it.
  func start(from encoded: [UInt8]) {
    box = (try? decodeState(encoded)).map(Box.init)
  }

  /// Applies one redacted action, as the trace holds it. An action that does not decode
  /// stops the replay: a reader cannot decode it either, and says so where it stands.
  func apply(_ encoded: UnsafeRawBufferPointer) {
    guard let box else { return }
    guard let action = try? decodeAction(encoded) else {
      self.box = nil
      return
    }
    reduce(&box.value, action)
  }
}
