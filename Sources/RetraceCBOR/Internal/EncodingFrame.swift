/// An array or map whose header is not final yet, or a `superEncoder()` slot.
///
/// The encoder writes in one pass: a container's header is a one-byte placeholder until
/// the container is finished, when its count is known. `Codable` has no "close" call, so a
/// container is finished when its parent writes its next entry, or when the `encode(to:)`
/// that opened it returns.
///
/// Frames hold no coding path: the path is recovered from the bytes when an error needs
/// it (see ``CBOREncodingEngine/codingPath(inFrames:)``), which keeps frames
/// plain data that costs nothing to copy.
struct EncodingFrame {
  enum Kind: UInt8 { case map, array, slot }

  var kind: Kind
  /// Tells a container's frame from a later frame at the same index.
  var id: UInt32
  /// For an array in deterministic mode: how many elements make one entry of an unordered
  /// collection whose entries must be sorted (1 for a set, 2 for a dictionary), or 0.
  var sortedGroup: UInt8 = 0
  /// The offset of the placeholder header (of a slot: where its value starts).
  var offset: Int
  /// Entries written so far (a map entry is a key and its value).
  var count: Int
}

/// The value being encoded: where its containers and bytes start.
struct EncodingLevel {
  /// The index in `frames` of the value's first container.
  var base: Int
  /// The offset of the value's first byte.
  var start: Int
  /// See ``EncodingFrame/sortedGroup``; given to the value's array, if it opens one.
  var sortedGroup: UInt8 = 0
}
