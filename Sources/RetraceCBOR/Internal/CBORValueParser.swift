/// Builds a ``CBORValue`` tree from bytes, checking well-formedness as it goes.
struct CBORValueParser {
  let reader: CBORItemScanner

  /// Parses the item at `offset`; returns it and the offset just past it.
  func parse(at offset: Int, depth: Int) throws(CBORError) -> (CBORValue, Int) {
    let head = try reader.head(at: offset)
    switch head.major {
    case 0:
      return (.unsigned(head.argument), head.end)
    case 1:
      return (.negative(head.argument), head.end)
    case 2:
      var bytes: [UInt8] = []
      let end = try forEachChunk(of: head, at: offset) { content, _ throws(CBORError) in
        bytes.append(contentsOf: content)
      }
      return (.byteString(bytes), end)
    case 3:
      var text = ""
      let end = try forEachChunk(of: head, at: offset) { content, contentOffset throws(CBORError) in
        try CBORItemScanner.validateUTF8(content, at: contentOffset)
        text += String(decoding: content, as: UTF8.self)
      }
      return (.textString(text), end)
    case 4:
      try CBORItemScanner.checkDepth(depth, at: offset)
      var items: [CBORValue] = []
      var position = head.end
      if head.isIndefinite {
        while try !reader.isBreak(at: position) {
          let (item, end) = try parse(at: position, depth: depth + 1)
          items.append(item)
          position = end
        }
        return (.array(items), position + 1)
      }
      let count = try reader.itemCount(head, at: offset)
      items.reserveCapacity(count)
      for _ in 0..<count {
        let (item, end) = try parse(at: position, depth: depth + 1)
        items.append(item)
        position = end
      }
      return (.array(items), position)
    case 5:
      try CBORItemScanner.checkDepth(depth, at: offset)
      var pairs: [CBORValue.Pair] = []
      var position = head.end
      let count = head.isIndefinite ? Int.max : try reader.itemCount(head, at: offset)
      if !head.isIndefinite { pairs.reserveCapacity(count) }
      var index = 0
      while head.isIndefinite ? try !reader.isBreak(at: position) : index < count {
        let (key, keyEnd) = try parse(at: position, depth: depth + 1)
        let (value, valueEnd) = try parse(at: keyEnd, depth: depth + 1)
        pairs.append(CBORValue.Pair(key, value))
        position = valueEnd
        index += 1
      }
      return (.map(pairs), head.isIndefinite ? position + 1 : position)
    case 6:
      try CBORItemScanner.checkDepth(depth, at: offset)
      let (content, end) = try parse(at: head.end, depth: depth + 1)
      return (.tagged(head.argument, content), end)
    default:
      try CBORItemScanner.checkSimple(head, at: offset)
      if let value = CBORItemScanner.double(from: head) {
        return (.float(value), head.end)
      }
      switch head.argument {
      case 20: return (.boolean(false), head.end)
      case 21: return (.boolean(true), head.end)
      case 22: return (.null, head.end)
      case 23: return (.undefined, head.end)
      default: return (.simple(UInt8(truncatingIfNeeded: head.argument)), head.end)
      }
    }
  }

  /// Calls `body` with the content of a definite-length string, or of each chunk of an
  /// indefinite-length one; returns the offset just past the string.
  private func forEachChunk(
    of head: CBORHead, at offset: Int,
    _ body: (UnsafeRawBufferPointer, Int) throws(CBORError) -> Void
  ) throws(CBORError) -> Int {
    if !head.isIndefinite {
      let end = try reader.stringEnd(head, at: offset)
      try body(UnsafeRawBufferPointer(rebasing: reader.bytes[head.end..<end]), head.end)
      return end
    }
    var position = head.end
    while try !reader.isBreak(at: position) {
      let chunk = try reader.head(at: position)
      guard chunk.major == head.major, !chunk.isIndefinite else {
        throw CBORError(
          .invalidHeader,
          "a chunk of an indefinite-length string must be a definite-length "
            + "string of the same major type", offset: position)
      }
      let end = try reader.stringEnd(chunk, at: position)
      try body(UnsafeRawBufferPointer(rebasing: reader.bytes[chunk.end..<end]), chunk.end)
      position = end
    }
    return position + 1
  }
}
