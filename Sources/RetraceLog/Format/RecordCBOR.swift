import Retrace

/// The few CBOR primitives the record envelopes need: heads of arrays and integers (written
/// by the core codec's `CBORPrimitiveWriter`), and a small bounds-checked cursor, reading heads
/// with the core codec's `CBORItemScanner`, that skips one data item to find where an encoded
/// action or state ends.
enum RecordCBOR {
  /// Appends a CBOR head (major type and argument) in its shortest form, with the core
  /// codec's writer.
  static func appendHead(major: UInt8, _ value: UInt64, to buffer: inout [UInt8]) {
    CBORPrimitiveWriter.appendHead(major, value, to: &buffer)
  }

  /// Appends a CBOR integer (major type 0 or 1).
  static func appendInt(_ value: Int64, to buffer: inout [UInt8]) {
    if value >= 0 {
      appendHead(major: 0, UInt64(value), to: &buffer)
    } else {
      appendHead(major: 1, UInt64(-1 - value), to: &buffer)
    }
  }

  /// Appends a CBOR unsigned integer.
  static func appendUInt(_ value: UInt64, to buffer: inout [UInt8]) {
    appendHead(major: 0, value, to: &buffer)
  }

  /// A bounds-checked reader over one buffer of CBOR items.
  struct Cursor {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
      self.bytes = bytes
      self.offset = offset
    }

    var isAtEnd: Bool { offset >= bytes.count }

    /// Reads a head: its major type, additional information and argument.
    mutating func readHead() throws(CursorError) -> (major: UInt8, info: UInt8, argument: UInt64) {
      try head(at: &offset)
    }

    /// Reads the head at `position` with the core codec's reader (`CBORItemScanner`) and
    /// moves `position` past it. Shared by ``readHead()`` and the loop in ``skipItem()``,
    /// which keeps its position in a local.
    @inline(__always)
    private func head(at position: inout Int) throws(CursorError) -> (
      major: UInt8, info: UInt8, argument: UInt64
    ) {
      do {
        let head = try CBORItemScanner(bytes).head(at: position)
        position = head.end
        return (head.major, head.info, head.argument)
      } catch {
        throw CursorError(offset: error.offset, reason: error.message)
      }
    }

    /// Reads an unsigned integer.
    mutating func readUInt() throws(CursorError) -> UInt64 {
      let start = offset
      let head = try readHead()
      guard head.major == 0, head.info != 31 else {
        throw CursorError(offset: start, reason: "expected an unsigned integer")
      }
      return head.argument
    }

    /// Reads a signed integer that fits 64 bits.
    mutating func readInt() throws(CursorError) -> Int64 {
      let start = offset
      let head = try readHead()
      guard head.info != 31, head.argument <= UInt64(Int64.max) else {
        throw CursorError(offset: start, reason: "expected a 64-bit integer")
      }
      switch head.major {
      case 0: return Int64(head.argument)
      case 1: return -1 - Int64(head.argument)
      default: throw CursorError(offset: start, reason: "expected an integer")
      }
    }

    /// Reads the head of a definite-length array and returns its count.
    mutating func readArrayCount() throws(CursorError) -> UInt64 {
      let start = offset
      let head = try readHead()
      guard head.major == 4, head.info != 31 else {
        throw CursorError(offset: start, reason: "expected an array")
      }
      return head.argument
    }

    /// Skips one complete data item and returns its byte range.
    ///
    /// Items of definite length (all that Retrace writes) are skipped in a loop that counts
    /// the items still to skip, with no recursion: this runs once per record on every read.
    /// An indefinite length anywhere in the item sends it to ``skipNested(depth:)``.
    mutating func skipItem() throws(CursorError) -> Range<Int> {
      let start = offset
      var position = start
      var pending = 1
      while pending > 0 {
        let head = try head(at: &position)
        if head.info == 31 {
          offset = start
          return try skipNested(depth: 0)
        }
        pending -= 1
        let remaining = UInt64(bytes.count - position)
        switch head.major {
        case 2, 3:
          guard head.argument <= remaining else {
            throw CursorError(
              offset: position, reason: "string length \(head.argument) runs past the end")
          }
          position += Int(head.argument)
        case 4, 5:
          // Every item takes at least one byte, so a count beyond the bytes left is damage.
          guard head.argument <= remaining else {
            throw CursorError(
              offset: position, reason: "container count \(head.argument) runs past the end")
          }
          pending += Int(head.argument) << (head.major == 5 ? 1 : 0)
        case 6:
          pending += 1
        default:
          break
        }
      }
      offset = position
      return start..<position
    }

    /// Skips one data item that may hold indefinite lengths, recursively.
    private mutating func skipNested(depth: Int) throws(CursorError) -> Range<Int> {
      let start = offset
      guard depth < 256 else { throw CursorError(offset: start, reason: "nesting too deep") }
      let head = try readHead()
      switch head.major {
      case 0, 1:
        break
      case 2, 3:
        if head.info == 31 {
          while true {
            guard offset < bytes.count else {
              throw CursorError(offset: offset, reason: "unexpected end of data")
            }
            if bytes[offset] == 0xFF {
              offset += 1
              break
            }
            _ = try skipNested(depth: depth + 1)
          }
        } else {
          guard head.argument <= UInt64(bytes.count - offset) else {
            throw CursorError(
              offset: start, reason: "string length \(head.argument) runs past the end")
          }
          offset += Int(head.argument)
        }
      case 4, 5:
        let perEntry = head.major == 5 ? 2 : 1
        if head.info == 31 {
          while true {
            guard offset < bytes.count else {
              throw CursorError(offset: offset, reason: "unexpected end of data")
            }
            if bytes[offset] == 0xFF {
              offset += 1
              break
            }
            for _ in 0..<perEntry { _ = try skipNested(depth: depth + 1) }
          }
        } else {
          // Every item takes at least one byte, so a count beyond the bytes left is damage.
          guard head.argument <= UInt64(bytes.count - offset) else {
            throw CursorError(
              offset: start, reason: "container count \(head.argument) runs past the end")
          }
          for _ in 0..<(Int(head.argument) * perEntry) { _ = try skipNested(depth: depth + 1) }
        }
      case 6:
        _ = try skipNested(depth: depth + 1)
      default:
        if head.info == 31 { throw CursorError(offset: start, reason: "unexpected break") }
      }
      return start..<offset
    }
  }

  /// Where and why a record could not be parsed.
  struct CursorError: Error {
    let offset: Int
    let reason: String
  }
}
