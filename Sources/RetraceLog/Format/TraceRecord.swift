import Retrace

/// One record of a trace, as ``TraceReader/forEachRecord(fromChunk:_:)`` hands it over.
///
/// ``payload`` points into the reader's buffer and is valid only during the callback:
/// decode it there (``decode(_:)``) or copy it.
public struct TraceRecord {
  /// The kinds of record.
  public enum Kind: String, Sendable, Equatable {
    /// An action: ``sequence``, ``time``, and the encoded action in ``payload``.
    case action
    /// A snapshot of the state after action ``sequence``: its ``hash`` and the encoded state
    /// in ``payload``.
    case snapshot
    /// A time-travel jump: after action ``sequence`` the state was set to the encoded state in
    /// ``payload`` (with its ``hash``) without an action (`Store.jump(to:)`). The next action
    /// applies to it.
    case jump
    /// The ``hash`` of the state after action ``sequence``.
    case checkpoint
    /// The clean end of the session after action ``sequence``, at ``time``.
    case end
  }

  /// Where a record was read from.
  public enum Source: Equatable, Sendable {
    /// A compressed chunk, by index.
    case chunk(Int)
    /// The journal beside the trace (an unfinished session's latest records).
    case journal
  }

  /// The record's kind.
  public let kind: Kind
  /// The action's sequence number, or the one whose resulting state a snapshot or
  /// checkpoint describes.
  public let sequence: UInt64
  /// When the action was reduced (or the session ended), in seconds since 1970; `nil` for
  /// snapshots and checkpoints.
  public let time: Double?
  /// The state hash of a snapshot or checkpoint.
  public let hash: StateHash?
  /// The encoded (CBOR) action or state; empty for checkpoints and ends.
  public let payload: UnsafeRawBufferPointer
  /// Where the record was read from.
  public let source: Source

  /// Decodes the payload.
  ///
  /// - Parameter type: The action or state type.
  /// - Returns: The decoded value.
  /// - Throws: ``TraceError`` with code ``TraceError/Code/undecodable`` naming the sequence
  ///   number and the decoder's reason.
  public func decode<T: Decodable>(_ type: T.Type) throws(TraceError) -> T {
    do {
      return try CBORDecoder().decode(type, from: payload)
    } catch {
      throw decodingFailure(type, error)
    }
  }

  /// The error for a payload that does not decode as `type`.
  @usableFromInline
  func decodingFailure<T>(_ type: T.Type, _ error: any Error) -> TraceError {
    TraceError(
      .undecodable, "cannot decode \(kind.rawValue) as \(T.self): \(error)",
      chunk: source.chunkIndex, sequence: sequence, cause: error)
  }

  /// The payload as a generic CBOR value (for printing actions of unknown type, or for
  /// upcasters).
  public func value() throws(TraceError) -> CBORValue {
    do {
      return try CBORValue(decoding: payload)
    } catch {
      throw TraceError(
        .corrupted, "invalid CBOR in \(kind.rawValue): \(error)", chunk: source.chunkIndex,
        sequence: sequence)
    }
  }

  /// The name of the action's case: the single key of its encoded map (`addTransaction`).
  ///
  /// Read straight from the payload without decoding the rest; `nil` if the payload is not
  /// a one-entry map with a text key.
  public var actionCase: String? { Self.actionCase(of: payload) }

  /// The name of the case of the action encoded at the start of `payload`, as
  /// ``actionCase`` reads it: also what a template's leading literal bytes give.
  static func actionCase(of payload: UnsafeRawBufferPointer) -> String? {
    var cursor = RecordCBOR.Cursor(payload)
    guard let head = try? cursor.readHead(), head.major == 5, head.argument == 1 || head.info == 31,
      let key = try? cursor.readHead(), key.major == 3, key.info != 31,
      key.argument <= UInt64(payload.count - cursor.offset)
    else { return nil }
    let start = cursor.offset
    return String(
      decoding: UnsafeRawBufferPointer(rebasing: payload[start..<(start + Int(key.argument))]),
      as: UTF8.self)
  }
}

extension TraceRecord.Source {
  var chunkIndex: Int? {
    if case .chunk(let index) = self { return index }
    return nil
  }
}
