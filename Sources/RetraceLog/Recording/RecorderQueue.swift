import Dispatch
import Synchronization

/// One entry of the recorder's queue, in order: an action the sending thread has encoded,
/// or the place of a command kept aside.
///
/// Nearly every entry is an encoded action without a state, so the queue holds those as
/// plain values (32 bytes, copied as bits) and everything else in a second array. A queue
/// of generic commands took 80 bytes per banking action, and the writer, which is not
/// specialized for the app's types, copied each through the generic enum's value witnesses.
@usableFromInline
enum QueueEntry: BitwiseCopyable, Sendable {
  /// An action encoded by the sending thread (its type has a hand-written encoding): its
  /// bytes run from the previous encoded action's end to `end` in the batch's bytes.
  case encoded(sequence: UInt64, time: Double, end: Int)
  /// The command at this index of the batch's commands.
  case command(Int)
}

/// What the sending side hands the background thread, besides encoded actions without a
/// state (``QueueEntry/encoded(sequence:time:end:)``).
@usableFromInline
enum RecorderCommand<State: Sendable, Action: Sendable>: Sendable {
  /// The sequence number and state the recording starts from, and the time of the attach.
  case start(UInt64, State, Double)
  /// An action, and the state after it when the recorder hands one over (boxed: a state
  /// rides along with one action in a thousand at most, and inline it would make every
  /// queued action as large as a state, which the sending thread pays for in copying).
  case action(UInt64, Double, Action, HandedState<State>?)
  /// An action already encoded by the sending thread, with the state after it: its bytes
  /// run from the previous encoded action's end to this offset of the batch's bytes.
  /// Encoding costs the sending thread less than handing the value over would (retaining
  /// its strings, copying an 80-byte entry; see W4); the writer is spared the encoding and
  /// never touches the action's strings.
  case encoded(UInt64, Double, end: Int, HandedState<State>)
  /// The state after action `sequence`, to be hashed unless a checkpoint or snapshot is
  /// there already: what covers the last actions when a recorder is flushed or closed.
  case checkpoint(UInt64, State)
  /// The state after action `sequence` (the first) was set to the second without an action
  /// (a jump).
  case jump(UInt64, State, State)
  case flush(Completion)
  case close(Completion)
  /// The queue overflowed after the actions before this command: finish the trace there.
  case overflow
}

/// A state handed from the sending thread to the writer.
@usableFromInline
///
/// The writer takes the state out when it deals with it (``take()``), so that the state is
/// let go of at once, not when the whole batch it came in is done: every state still held
/// makes the app's next change to what it shares copy it (copy-on-write).
final class HandedState<State: Sendable>: Sendable {
  private let value: Mutex<State?>

  @usableFromInline
  init(_ state: State) {
    value = Mutex(state)
  }

  /// The state, the first time; `nil` after.
  func take() -> State? {
    value.withLock { $0.take() }
  }
}

/// A one-shot signal with an optional error, for blocking `flush` and `close`.
@usableFromInline
final class Completion: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)
  private let result = Mutex<TraceError?>(nil)

  func finish(_ error: TraceError?) {
    result.withLock { $0 = error }
    semaphore.signal()
  }

  func wait() throws(TraceError) {
    semaphore.wait()
    if let error = result.withLock({ $0 }) { throw error }
  }
}
