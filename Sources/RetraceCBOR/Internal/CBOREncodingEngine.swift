#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The encoder behind ``CBOREncoder``: one per top-level call, writing straight into the
/// caller's buffer.
///
/// The open frames live in memory that the top-level call owns (on its stack), at most
/// ``CBORDecoder/maximumNestingDepth`` of them; when the call ends, ``finish()`` empties
/// the stack so that a container kept beyond the call can no longer reach that memory.
///
/// The hot stored properties opt out of dynamic exclusivity checking: an encoder lives
/// for one top-level call on one thread, and no access to them is ever held across a
/// call that could reach them again (the checks cost about a fifth of encoding time).
final class CBOREncodingEngine: Encoder, SingleValueEncodingContainer {
  @exclusivity(unchecked) var bytes: [UInt8] = []
  let deterministic: Bool
  private let frames: UnsafeMutablePointer<EncodingFrame>
  @exclusivity(unchecked) private var frameCapacity: Int
  @exclusivity(unchecked) private(set) var frameCount = 0
  @exclusivity(unchecked) var level = EncodingLevel(base: 0, start: 0)
  @exclusivity(unchecked) private var lastFrameID: UInt32 = 0
  /// The first error of a non-throwing `Encoder` call (such as `nestedContainer`), thrown
  /// when the top-level call ends.
  private var deferredError: (any Error)?

  /// Creates an encoder; the caller swaps its buffer into `bytes` before encoding.
  ///
  /// - Parameter frames: Room for ``CBORDecoder/maximumNestingDepth`` frames, valid until
  ///   ``finish()``.
  init(deterministic: Bool, frames: UnsafeMutableBufferPointer<EncodingFrame>) {
    self.deterministic = deterministic
    self.frames = frames.baseAddress!
    self.frameCapacity = frames.count
  }

  /// Ends the encoder's use of the frame memory.
  func finish() {
    frameCount = 0
    frameCapacity = 0
  }

  var codingPath: [any CodingKey] { codingPath(inFrames: level.base) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// The open frame at `index`; callers check `index < frameCount`.
  @inline(__always)
  func frame(_ index: Int) -> EncodingFrame { frames[index] }

  // MARK: - Coding paths

  /// The coding path to the value being written as the last entry of the innermost of
  /// the first `depth` open frames, read back from the bytes.
  ///
  /// Each open frame's value is the last entry of the frame below it, so the step from
  /// one frame to the next is the key of that last entry (for a map), its index (for an
  /// array), or nothing (for a `superEncoder()` slot, whose key the map below holds).
  func codingPath(inFrames depth: Int) -> [any CodingKey] {
    var path: [any CodingKey] = []
    for i in 0..<min(depth, frameCount) {
      let parent = frames[i]
      switch parent.kind {
      case .slot:
        continue
      case .array:
        path.append(CBORCodingKey(index: max(0, parent.count - 1)))
      case .map:
        path.append(CBORCodingKey(stringValue: lastKey(of: parent) ?? "?"))
      }
    }
    return path
  }

  /// The coding path of the container in the open frame at `index`, or `[]` if it has
  /// been finished.
  func codingPath(ofFrame index: Int, _ id: UInt32) -> [any CodingKey] {
    isOpen(index, id) ? codingPath(inFrames: index) : []
  }

  /// The text of the key of an open map's last entry.
  private func lastKey(of map: EncodingFrame) -> String? {
    guard map.count > 0 else { return nil }
    return bytes.withUnsafeBytes { raw -> String? in
      let reader = CBORItemScanner(raw)
      // While the map is open its header is the one-byte placeholder.
      var position = map.offset + 1
      for _ in 0..<(map.count - 1) {
        guard let keyEnd = try? reader.skipItem(at: position, depth: 0, validating: false),
          let end = try? reader.skipItem(at: keyEnd, depth: 0, validating: false)
        else { return nil }
        position = end
      }
      guard let end = try? reader.skipItem(at: position, depth: 0, validating: false),
        let key = try? CBORValue(decoding: UnsafeRawBufferPointer(rebasing: raw[position..<end]))
      else { return nil }
      return key.stringValue ?? key.description
    }
  }

  // MARK: - Top level and nested values

  func encodeTopLevel<T: Encodable>(_ value: T) throws {
    level = EncodingLevel(base: 0, start: bytes.count, sortedGroup: sortedGroup(of: T.self))
    if T.self == Data.self {
      appendByteString(value as! Data)
      return
    }
    try value.encode(to: self)
    try closeFrames(downTo: 0)
    if let deferredError { throw deferredError }
    guard bytes.count > level.start else {
      throw EncodingError.invalidValue(
        value,
        .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
    }
  }

  /// Encodes `value` as one data item at the end of the buffer, then finishes every
  /// container it opened.
  func encodeValue<T: Encodable>(_ value: T) throws {
    if T.self == Data.self {
      appendByteString(value as! Data)
      return
    }
    let saved = level
    level = EncodingLevel(
      base: frameCount, start: bytes.count, sortedGroup: sortedGroup(of: T.self))
    defer { level = saved }
    try value.encode(to: self)
    try closeFrames(downTo: level.base)
    if bytes.count == level.start {
      bytes.append(0xa0)  // like JSONEncoder's `{}` for a value that encodes nothing
    }
  }

  /// The group size of `type`'s entries if deterministic mode must sort them.
  @inline(__always)
  private func sortedGroup<T>(of type: T.Type) -> UInt8 {
    guard deterministic else { return 0 }
    return (type as? any UnorderedCollection.Type)?.cborGroupSize ?? 0
  }

  func appendByteString(_ data: Data) {
    data.withUnsafeBytes { raw in
      CBORPrimitiveWriter.appendHead(2, UInt64(raw.count), to: &bytes)
      bytes.append(contentsOf: raw)
    }
  }

  // MARK: - Containers

  /// Opens the container of `kind` for the value at `level`, or returns the one it already
  /// opened (`Codable` allows asking twice).
  func openContainer(
    _ kind: EncodingFrame.Kind, in level: EncodingLevel
  ) -> (index: Int, id: UInt32) {
    if frameCount > level.base {
      let frame = frames[level.base]
      guard frame.kind == kind else {
        recordDeferred(
          misuse("a \(kind) container was requested for a value that already has a \(frame.kind)"))
        return (0, 0)
      }
      do { try closeFrames(downTo: level.base + 1) } catch { recordDeferred(error) }
      return (level.base, frame.id)
    }
    guard bytes.count == level.start else {
      recordDeferred(
        misuse("a \(kind) container was requested for a value that is already encoded"))
      return (0, 0)
    }
    return pushFrame(kind, sortedGroup: kind == .array ? level.sortedGroup : 0)
  }

  /// Starts a container (or slot) at the end of the buffer.
  func pushFrame(_ kind: EncodingFrame.Kind, sortedGroup: UInt8 = 0) -> (index: Int, id: UInt32) {
    guard frameCount < frameCapacity else {
      recordDeferred(
        EncodingError.invalidValue(
          kind,
          .init(
            codingPath: codingPath(inFrames: frameCount),
            debugDescription: frameCapacity == 0
              ? "an encoding container was used after its top-level encode call returned"
              : "containers are nested deeper than \(CBORDecoder.maximumNestingDepth), "
                + "which CBORDecoder would reject")))
      return (0, 0)
    }
    lastFrameID &+= 1
    (frames + frameCount).initialize(
      to: EncodingFrame(
        kind: kind, id: lastFrameID, sortedGroup: sortedGroup, offset: bytes.count, count: 0))
    frameCount &+= 1
    switch kind {
    case .map: bytes.append(0xa0)
    case .array: bytes.append(0x80)
    case .slot: break
    }
    return (frameCount &- 1, lastFrameID)
  }

  /// Prepares the container at `index` for a new entry; returns the entry's index.
  ///
  /// Finishes any container nested in it, and throws if the container itself was finished
  /// already (a one-pass encoder cannot go back to it).
  @inline(__always)
  func beginEntry(_ index: Int, _ id: UInt32) throws -> Int {
    if index &+ 1 != frameCount || frames[index].id != id || index < level.base {
      try reopen(index, id)
    }
    let count = frames[index].count
    frames[index].count = count &+ 1
    return count
  }

  private func reopen(_ index: Int, _ id: UInt32) throws {
    guard index >= level.base, index < frameCount, frames[index].id == id else {
      throw deferredError
        ?? misuse(
          "a container was used after its parent moved on to its next entry; CBOREncoder writes "
            + "in one pass and needs each container finished before its parent continues")
    }
    try closeFrames(downTo: index + 1)
  }

  /// Whether the frame at `index` is still open (for slots and `count`).
  func isOpen(_ index: Int, _ id: UInt32) -> Bool {
    index < frameCount && frames[index].id == id
  }

  func count(_ index: Int, _ id: UInt32) -> Int {
    isOpen(index, id) ? frames[index].count : 0
  }

  /// Starts a nested container as the value of a new entry of the container at `index`.
  func nestedFrame(
    _ kind: EncodingFrame.Kind, in index: Int, _ id: UInt32, key: String?
  ) -> (index: Int, id: UInt32) {
    do {
      _ = try beginEntry(index, id)
    } catch {
      recordDeferred(error)
      return (0, 0)
    }
    if let key { CBORPrimitiveWriter.appendText(key, to: &bytes) }
    return pushFrame(kind, sortedGroup: kind == .array ? level.sortedGroup : 0)
  }

  func closeFrames(downTo count: Int) throws {
    while frameCount > count {
      frameCount &-= 1
      try finish(frames[frameCount])
    }
  }

  private func finish(_ frame: EncodingFrame) throws {
    switch frame.kind {
    case .slot:
      if bytes.count == frame.offset { bytes.append(0xa0) }
    case .array:
      let group = Int(frame.sortedGroup)
      if group > 0 && frame.count > group && frame.count % group == 0 {
        try sortEntries(of: frame, items: frame.count, group: group, rejectingDuplicates: false)
      }
      patchHeader(4, frame)
    case .map:
      if deterministic && frame.count > 1 {
        try sortEntries(of: frame, items: 2 * frame.count, group: 2, rejectingDuplicates: true)
      }
      patchHeader(5, frame)
    }
  }

  /// Replaces a container's one-byte placeholder header with the final one.
  private func patchHeader(_ major: UInt8, _ frame: EncodingFrame) {
    let count = UInt64(frame.count)
    let length = CBORPrimitiveWriter.headLength(count)
    if length > 1 {
      bytes.insert(contentsOf: repeatElement(0, count: length - 1), at: frame.offset + 1)
    }
    CBORPrimitiveWriter.writeHead(major, count, into: &bytes, at: frame.offset)
  }

  /// Sorts the entries of a finished container by the bytes of their first items: a
  /// map's entries by their encoded keys (RFC 8949 §4.2.1), a set's elements, a
  /// dictionary's key-value pairs by their keys.
  ///
  /// - Parameters:
  ///   - items: How many data items the container holds.
  ///   - group: How many items make one entry.
  ///   - rejectingDuplicates: Whether two entries with equal first items are an error.
  private func sortEntries(
    of frame: EncodingFrame, items: Int, group: Int, rejectingDuplicates: Bool
  ) throws {
    let start = frame.offset + 1  // past the one-byte placeholder header
    var entries: [(key: Range<Int>, end: Int)] = []
    entries.reserveCapacity(items / group)
    let duplicate: Range<Int>? = try bytes.withUnsafeBytes { raw in
      let reader = CBORItemScanner(raw)
      var position = start
      for _ in 0..<(items / group) {
        let keyEnd = try reader.skipItem(at: position, depth: 0, validating: false)
        var end = keyEnd
        for _ in 1..<group {
          end = try reader.skipItem(at: end, depth: 0, validating: false)
        }
        entries.append((position..<keyEnd, end))
        position = end
      }
      let keys = raw.bindMemory(to: UInt8.self)
      func order(_ a: Range<Int>, _ b: Range<Int>) -> Int {
        Self.compare(UnsafeBufferPointer(rebasing: keys[a]), UnsafeBufferPointer(rebasing: keys[b]))
      }
      var isSorted = true
      for i in entries.indices.dropFirst() where order(entries[i - 1].key, entries[i].key) >= 0 {
        isSorted = false
        break
      }
      if isSorted { return nil }
      entries.sort { order($0.key, $1.key) < 0 }
      guard rejectingDuplicates else { return nil }
      return entries.indices.dropFirst().first { order(entries[$0 - 1].key, entries[$0].key) == 0 }
        .map { entries[$0].key }
    }
    if let duplicate {
      let key = (try? CBORValue(decoding: Array(bytes[duplicate])))?.description ?? "?"
      throw EncodingError.invalidValue(
        key,
        .init(
          codingPath: codingPath(inFrames: frameCount),
          debugDescription:
            "a map has two entries with the key \(key); deterministic CBOR forbids that"))
    }
    if entries.indices.dropFirst().allSatisfy({ entries[$0 - 1].end == entries[$0].key.lowerBound })
    {
      return  // already in order
    }
    var sorted: [UInt8] = []
    sorted.reserveCapacity(bytes.count - start)
    for entry in entries {
      sorted.append(contentsOf: bytes[entry.key.lowerBound..<entry.end])
    }
    bytes.replaceSubrange(start..<bytes.count, with: sorted)
  }

  /// Lexicographic comparison of two byte strings: negative, zero or positive.
  private static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>)
    -> Int
  {
    for i in 0..<min(a.count, b.count) where a[i] != b[i] {
      return a[i] < b[i] ? -1 : 1
    }
    return a.count - b.count
  }

  // MARK: - Errors

  func misuse(_ message: String) -> EncodingError {
    EncodingError.invalidValue(
      "", .init(codingPath: codingPath(inFrames: frameCount), debugDescription: message))
  }

  /// Remembers the first error of a call that cannot throw.
  func recordDeferred(_ error: any Error) {
    if deferredError == nil { deferredError = error }
  }

  // MARK: - Single values

  /// Throws unless nothing has been written yet for the value at `level`.
  @inline(__always)
  func beginSingleValue(in level: EncodingLevel) throws {
    guard frameCount == level.base && bytes.count == level.start else {
      throw misuse("a single value was encoded for a value that is already encoded")
    }
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    let (index, id) = openContainer(.map, in: level)
    return KeyedEncodingContainer(
      CBORKeyedEncodingContainer<Key>(impl: self, index: index, id: id))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    let (index, id) = openContainer(.array, in: level)
    return CBORUnkeyedEncodingContainer(impl: self, index: index, id: id)
  }

  func encodeNil() throws {
    try beginSingleValue(in: level)
    bytes.append(0xf6)
  }

  func encode(_ value: Bool) throws {
    try beginSingleValue(in: level)
    bytes.append(value ? 0xf5 : 0xf4)
  }

  func encode(_ value: String) throws {
    try beginSingleValue(in: level)
    CBORPrimitiveWriter.appendText(value, to: &bytes)
  }

  func encode(_ value: Double) throws {
    try beginSingleValue(in: level)
    CBORPrimitiveWriter.appendFloat(value, to: &bytes)
  }

  func encode(_ value: Float) throws {
    try beginSingleValue(in: level)
    CBORPrimitiveWriter.appendFloat(Double(value), to: &bytes)
  }

  func encode(_ value: Int) throws { try encodeSigned(value) }
  func encode(_ value: Int8) throws { try encodeSigned(value) }
  func encode(_ value: Int16) throws { try encodeSigned(value) }
  func encode(_ value: Int32) throws { try encodeSigned(value) }
  func encode(_ value: Int64) throws { try encodeSigned(value) }
  func encode(_ value: UInt) throws { try encodeUnsigned(value) }
  func encode(_ value: UInt8) throws { try encodeUnsigned(value) }
  func encode(_ value: UInt16) throws { try encodeUnsigned(value) }
  func encode(_ value: UInt32) throws { try encodeUnsigned(value) }
  func encode(_ value: UInt64) throws { try encodeUnsigned(value) }

  func encode<T: Encodable>(_ value: T) throws {
    try beginSingleValue(in: level)
    try encodeValue(value)
  }

  @inline(__always)
  private func encodeSigned<I: FixedWidthInteger & SignedInteger>(_ value: I) throws {
    try beginSingleValue(in: level)
    CBORPrimitiveWriter.appendInteger(value, to: &bytes)
  }

  @inline(__always)
  private func encodeUnsigned<I: FixedWidthInteger & UnsignedInteger>(_ value: I) throws {
    try beginSingleValue(in: level)
    CBORPrimitiveWriter.appendHead(0, UInt64(value), to: &bytes)
  }
}
