import Retrace

// A chunk's actions, column-wise (trace format 2; docs/TRACE_FORMAT.md, 3.2).
//
// Each encoded action is split into its template (the CBOR item with map keys and
// structure, each leaf replaced by a marker) and its leaves, which go to columns: integers
// delta-coded over their column's common divisor, floats as such integers of microseconds
// when that is exact, strings through the chunk's table. Actions of one case share a
// template, and each column holds values of one field, which zstd then compresses far
// better than the actions one after another.
//
// No listed library does this: it is the trace format's own encoding.

/// The markers that stand for leaves in a template: CBOR initial bytes with the reserved
/// additional information 28, 29 and 30, which no well-formed item holds.
enum ColumnMarker {
  /// An integer (major type 0 or 1) from an integer column.
  static let integer: UInt8 = 0x1C
  /// A text string from a text column.
  static let text: UInt8 = 0x1D
  /// A float, followed by its width's additional information (25, 26 or 27), from a float
  /// column.
  static let float: UInt8 = 0x1E
  /// A byte string from a bytes column.
  static let bytes: UInt8 = 0x3C
  /// A whole data item, verbatim, from an items column.
  static let item: UInt8 = 0x3D
}

/// The kinds of column: the first byte of each column.
enum ColumnKind: UInt8 {
  /// Integers: a divisor, then each value's difference from the one before (0 before the
  /// first) over the divisor, zigzag-coded.
  case integers = 0
  /// Floats that are exact whole microseconds: coded as ``integers`` of microseconds.
  case microseconds = 1
  /// Floats as their CBOR argument bytes, at each leaf's width.
  case rawFloats = 2
  /// Text strings: indexes into the chunk's string table.
  case text = 3
  /// Byte strings: each a length, then its bytes.
  case bytes = 4
  /// Whole data items: each a length, then the item's bytes.
  case items = 5
}

/// Why an action block could not be read: where in the block, and the problem.
struct ActionColumnsError: Error {
  let offset: Int
  let reason: String
}

// MARK: - Writing

/// Collects a chunk's actions and writes them as one action block.
struct ActionColumnsEncoder {
  /// The deepest nesting the encoder splits; a deeper action is kept whole, as an item.
  static let maxDepth = 64

  private struct Column {
    var kind: UInt8  // the leaf's marker
    var integers: [Int64] = []
    var floats: [UInt64] = []  // the CBOR argument, at the width in `widths`
    var widths: [UInt8] = []
    var data: [UInt8] = []  // text: indexes; bytes and items: length-prefixed
  }

  private struct Shape {
    var id: Int
    var columns: [Int]
  }

  private var shapes: [[UInt8]: Shape] = [:]
  private var shapeList: [(template: [UInt8], columns: [Int])] = []
  /// The string table: each string's place in `stringTable` (length-prefixed there), and
  /// the strings by hash (the first of each hash; `stringNext` chains the others), so that
  /// a string seen before is found without copying it.
  private var stringRanges: [Range<Int>] = []
  private var stringsByHash: [UInt64: Int] = [:]
  private var stringNext: [Int] = []
  private var stringTable: [UInt8] = []
  private var columnIndex: [String: Int] = [:]
  private var columns: [Column] = []
  private var shapeIDs: [UInt8] = []
  private var timeDeltas: [Int64] = []

  // Scratch for the action being split.
  private var template: [UInt8] = []
  private var leaves: [Leaf] = []

  private enum Leaf {
    case integer(Int64)
    case float(UInt64, width: UInt8)
    case text(Range<Int>)
    case bytes(Range<Int>)
    case item(Range<Int>)
  }

  /// How many actions were added.
  private(set) var count = 0
  /// How many bytes the actions take, one after another.
  private(set) var actionBytes = 0

  /// Adds an action: its time delta (µs since the action before) and its encoded bytes.
  /// Any bytes are taken: what cannot be split (an indefinite length, a head longer than
  /// needed in a leaf, deep nesting) is kept whole, so the block gives back the same bytes.
  mutating func append(timeDelta: Int64, action: UnsafeRawBufferPointer) {
    template.removeAll(keepingCapacity: true)
    leaves.removeAll(keepingCapacity: true)
    let split: Bool
    do {
      split = try walk(action, 0, depth: 0) == action.count
    } catch {
      split = false
    }
    if !split {
      template = [ColumnMarker.item]
      leaves = [.item(0..<action.count)]
    }
    let shape: Shape
    if let known = shapes[template] {
      shape = known
    } else {
      shape = Shape(id: shapeList.count, columns: plan(template))
      shapes[template] = shape
      shapeList.append((template, shape.columns))
    }
    ColumnVarint.append(UInt64(shape.id), to: &shapeIDs)
    timeDeltas.append(timeDelta)
    count += 1
    actionBytes += action.count
    for (leaf, column) in zip(leaves, shape.columns) {
      switch leaf {
      case .integer(let value):
        columns[column].integers.append(value)
      case .float(let bits, let width):
        columns[column].floats.append(bits)
        columns[column].widths.append(width)
      case .text(let range):
        let index = stringIndex(UnsafeRawBufferPointer(rebasing: action[range]))
        ColumnVarint.append(UInt64(index), to: &columns[column].data)
      case .bytes(let range), .item(let range):
        ColumnVarint.append(UInt64(range.count), to: &columns[column].data)
        columns[column].data.append(contentsOf: UnsafeRawBufferPointer(rebasing: action[range]))
      }
    }
  }

  /// The string's index in the table, adding it when it is new.
  private mutating func stringIndex(_ string: UnsafeRawBufferPointer) -> Int {
    let hash = XXH64.hash(string)
    var candidate = stringsByHash[hash] ?? -1
    while candidate >= 0 {
      let known = stringRanges[candidate]
      let same = stringTable.withUnsafeBytes { table in
        known.count == string.count
          && UnsafeRawBufferPointer(rebasing: table[known]).elementsEqual(string)
      }
      if same { return candidate }
      candidate = stringNext[candidate]
    }
    let index = stringRanges.count
    stringNext.append(stringsByHash[hash] ?? -1)
    stringsByHash[hash] = index
    ColumnVarint.append(UInt64(string.count), to: &stringTable)
    stringRanges.append(stringTable.count..<(stringTable.count + string.count))
    stringTable.append(contentsOf: string)
    return index
  }

  private struct Unsplittable: Error {}

  /// Splits the item at `at` into template and leaves; returns where it ends.
  private mutating func walk(_ bytes: UnsafeRawBufferPointer, _ at: Int, depth: Int) throws
    -> Int
  {
    guard depth < Self.maxDepth else { throw Unsplittable() }
    let head = try CBORItemScanner(bytes).head(at: at)
    guard head.info != 31 else { throw Unsplittable() }
    let headBytes = UnsafeRawBufferPointer(rebasing: bytes[at..<head.end])
    switch head.major {
    case 0, 1:
      guard head.argument <= UInt64(Int64.max), Self.isShortest(head, at: at) else {
        template.append(contentsOf: headBytes)
        return head.end
      }
      let value = Int64(head.argument)
      template.append(ColumnMarker.integer)
      leaves.append(.integer(head.major == 0 ? value : -1 - value))
      return head.end
    case 2, 3:
      guard head.argument <= UInt64(bytes.count - head.end) else { throw Unsplittable() }
      let end = head.end + Int(head.argument)
      guard Self.isShortest(head, at: at) else {
        template.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[at..<end]))
        return end
      }
      template.append(head.major == 3 ? ColumnMarker.text : ColumnMarker.bytes)
      leaves.append(head.major == 3 ? .text(head.end..<end) : .bytes(head.end..<end))
      return end
    case 4, 5:
      guard head.argument <= UInt64(bytes.count - head.end) else { throw Unsplittable() }
      template.append(contentsOf: headBytes)
      var position = head.end
      for _ in 0..<head.argument {
        if head.major == 5 {
          // A text key is structure: it stays in the template.
          let key = try CBORItemScanner(bytes).head(at: position)
          if key.major == 3, key.info != 31, key.argument <= UInt64(bytes.count - key.end) {
            let end = key.end + Int(key.argument)
            template.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[position..<end]))
            position = end
          } else {
            position = try walk(bytes, position, depth: depth + 1)
          }
        }
        position = try walk(bytes, position, depth: depth + 1)
      }
      return position
    case 6:
      template.append(contentsOf: headBytes)
      return try walk(bytes, head.end, depth: depth + 1)
    default:
      if (25...27).contains(head.info) {
        template.append(ColumnMarker.float)
        template.append(head.info)
        leaves.append(.float(head.argument, width: head.info))
      } else {
        template.append(contentsOf: headBytes)
      }
      return head.end
    }
  }

  /// Whether `head` is in its shortest form, as a leaf must be to be written back the same.
  private static func isShortest(_ head: CBORHead, at: Int) -> Bool {
    switch head.end - at {
    case 1: true
    case 2: head.argument >= 24
    case 3: head.argument > 0xFF
    case 5: head.argument > 0xFFFF
    default: head.argument > 0xFFFF_FFFF
    }
  }

  /// The column of each leaf of a new template. Leaves at the same path (the map keys and
  /// array positions that lead to them) and of the same kind share a column, whatever
  /// template they stand in.
  private mutating func plan(_ template: [UInt8]) -> [Int] {
    var result: [Int] = []
    template.withUnsafeBytes { bytes in
      _ = planItem(bytes, 0, path: "", into: &result)
    }
    return result
  }

  private mutating func planItem(
    _ bytes: UnsafeRawBufferPointer, _ at: Int, path: String, into result: inout [Int]
  ) -> Int {
    let first = bytes[at]
    switch first {
    case ColumnMarker.integer, ColumnMarker.text, ColumnMarker.float, ColumnMarker.bytes,
      ColumnMarker.item:
      let width = first == ColumnMarker.float ? bytes[at + 1] : 0
      let key = path + "#\(first).\(width == 0 ? 0 : 1)"
      let column: Int
      if let known = columnIndex[key] {
        column = known
      } else {
        column = columns.count
        columnIndex[key] = column
        columns.append(Column(kind: first))
      }
      result.append(column)
      return first == ColumnMarker.float ? at + 2 : at + 1
    default:
      break
    }
    // The template was written by `walk`: its heads are well formed.
    let head = try! CBORItemScanner(bytes).head(at: at)
    switch head.major {
    case 2, 3:
      return head.end + Int(head.argument)
    case 4:
      var position = head.end
      for index in 0..<head.argument {
        position = planItem(bytes, position, path: path + "[\(min(index, 8))]", into: &result)
      }
      return position
    case 5:
      var position = head.end
      for _ in 0..<head.argument {
        var name = "{}"
        if bytes[position] >> 5 == 3, bytes[position] != ColumnMarker.item,
          let key = try? CBORItemScanner(bytes).head(at: position)
        {
          let end = key.end + Int(key.argument)
          name =
            "."
            + String(
              decoding: UnsafeRawBufferPointer(rebasing: bytes[key.end..<end]), as: UTF8.self)
          position = end
        } else {
          position = planItem(bytes, position, path: path + "{}", into: &result)
        }
        position = planItem(bytes, position, path: path + name, into: &result)
      }
      return position
    case 6:
      return planItem(bytes, head.end, path: path + "@\(head.argument)", into: &result)
    default:
      return head.end
    }
  }

  /// Appends the action block to `out`.
  func encode(appendingTo out: inout [UInt8]) {
    ColumnVarint.append(UInt64(count), to: &out)
    ColumnVarint.append(UInt64(actionBytes), to: &out)
    ColumnVarint.append(UInt64(shapeList.count), to: &out)
    for (template, columns) in shapeList {
      ColumnVarint.append(UInt64(template.count), to: &out)
      out.append(contentsOf: template)
      ColumnVarint.append(UInt64(columns.count), to: &out)
      for column in columns { ColumnVarint.append(UInt64(column), to: &out) }
    }
    ColumnVarint.append(UInt64(stringRanges.count), to: &out)
    out.append(contentsOf: stringTable)
    ColumnVarint.append(UInt64(shapeIDs.count), to: &out)
    out.append(contentsOf: shapeIDs)
    var times: [UInt8] = []
    Self.appendIntegers(timeDeltas, differences: false, to: &times)
    ColumnVarint.append(UInt64(times.count), to: &out)
    out.append(contentsOf: times)
    ColumnVarint.append(UInt64(columns.count), to: &out)
    var data: [UInt8] = []
    for column in columns {
      data.removeAll(keepingCapacity: true)
      var kind: ColumnKind
      switch column.kind {
      case ColumnMarker.integer:
        kind = .integers
        Self.appendIntegers(column.integers, differences: true, to: &data)
      case ColumnMarker.float:
        if let micros = Self.microseconds(column.floats, widths: column.widths) {
          kind = .microseconds
          Self.appendIntegers(micros, differences: true, to: &data)
        } else {
          kind = .rawFloats
          for (bits, width) in zip(column.floats, column.widths) {
            let size = 1 << Int(width - 24)
            for index in (0..<size).reversed() {
              data.append(UInt8(truncatingIfNeeded: bits >> UInt64(8 * index)))
            }
          }
        }
      case ColumnMarker.text:
        kind = .text
        data = column.data
      case ColumnMarker.bytes:
        kind = .bytes
        data = column.data
      default:
        kind = .items
        data = column.data
      }
      out.append(kind.rawValue)
      ColumnVarint.append(UInt64(data.count), to: &out)
      out.append(contentsOf: data)
    }
  }

  /// Integers as a divisor (their greatest common divisor: of their differences when
  /// `differences`), then each value (or difference) over it, zigzag-coded.
  private static func appendIntegers(
    _ values: [Int64], differences: Bool, to data: inout [UInt8]
  ) {
    var divisor: UInt64 = 0
    var previous: Int64 = 0
    for value in values {
      divisor = gcd(divisor, (value &- previous).magnitude)
      if differences { previous = value }
    }
    if divisor == 0 { divisor = 1 }
    ColumnVarint.append(divisor, to: &data)
    let signed = Int64(bitPattern: divisor)
    previous = 0
    for value in values {
      let difference = value &- previous
      // A divisor of 2⁶³ is Int64.min as a signed number: the differences are 0 or it.
      let quotient = signed == .min ? (difference == 0 ? 0 : 1) : difference / signed
      ColumnVarint.append(ColumnVarint.zigzag(quotient), to: &data)
      if differences { previous = value }
    }
  }

  private static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return a
  }

  /// The floats as whole microseconds, when every one of them is exactly that.
  private static func microseconds(_ floats: [UInt64], widths: [UInt8]) -> [Int64]? {
    var result: [Int64] = []
    result.reserveCapacity(floats.count)
    for (bits, width) in zip(floats, widths) {
      let value = ColumnFloat.value(bits, width: width)
      guard value.isFinite, abs(value) < 9e12 else { return nil }
      let micros = Int64((value * 1e6).rounded())
      guard (Double(micros) / 1e6).bitPattern == value.bitPattern else { return nil }
      result.append(micros)
    }
    return result
  }
}

// MARK: - Reading

/// Reads an action block back into each action's encoded bytes.
struct ActionColumnsDecoder {
  /// One action, as the decoder gives it: where its bytes are in the output, and its time
  /// offset.
  struct Action {
    var start: Int
    var count: Int
    var time: Int64
  }

  fileprivate enum Op {
    case literal(Range<Int>)  // in `literals`
    case integer(Int)
    case text(Int)
    case float(Int, width: UInt8)
    case bytes(Int)
    case item(Int)
  }

  fileprivate struct Column {
    var kind: ColumnKind
    var position: Int
    var end: Int
    var divisor: Int64 = 1
    var previous: Int64 = 0
  }

  /// Reads the action block at `offset` in `bytes` (a decompressed chunk), which must hold
  /// `expectedCount` actions, and appends each action's encoded bytes to `output` and its
  /// place and time to `actions`; the first action's time is `baseTime` plus its delta.
  /// Returns where the block ends.
  ///
  /// Every length, count and index is checked before it is used, and the output is at most
  /// `maxOutput` bytes: damage is an error, never a trap or a huge allocation.
  /// What a summary reads of an action block: each template's case, how many actions use
  /// it, the templates in the order their first actions come, and the first and last
  /// actions' time offsets.
  struct Census {
    var caseNames: [String] = []
    var counts: [Int] = []
    var order: [Int] = []
    var firstTime: Int64?
    var lastTime: Int64?
  }

  /// Counts the actions of the block at `offset` by case, and reads their first and last
  /// times, from the block's head, template ids and times alone: the value columns are not
  /// read, so no action is rebuilt. For a block that
  /// ``decode(_:at:expectedCount:baseTime:maxOutput:into:actions:)`` has already checked (a
  /// trace's intact part): only the head, ids and times are checked again.
  ///
  /// An action's case is its template's first map key, read from the template's leading
  /// literal bytes as ``TraceRecord/actionCase`` reads it from the action's bytes.
  ///
  /// - Returns: `nil` when a template does not start with its case in literal bytes (an
  ///   action that is not a one-key map): the caller rebuilds the block's actions instead.
  static func census(
    _ bytes: UnsafeRawBufferPointer, at offset: Int, expectedCount: Int, baseTime: Int64
  ) throws(ActionColumnsError) -> Census? {
    let head = try readHead(
      bytes, at: offset, expectedCount: expectedCount, maxOutput: TraceFormat.maxChunkSize)
    var census = Census()
    census.caseNames.reserveCapacity(head.opRanges.count)
    for range in head.opRanges {
      guard let first = range.first, case .literal(let literal) = head.allOps[first],
        let name = head.literals.withUnsafeBytes({
          TraceRecord.actionCase(of: UnsafeRawBufferPointer(rebasing: $0[literal]))
        })
      else { return nil }
      census.caseNames.append(name)
    }
    census.counts = Array(repeating: 0, count: head.opRanges.count)
    var (ids, times, time) = (head.ids, head.times, baseTime)
    for _ in 0..<head.count {
      let id = try ids.count("template id")
      guard id < census.counts.count else {
        throw ids.error("template id \(id) of \(census.counts.count)")
      }
      if census.counts[id] == 0 { census.order.append(id) }
      census.counts[id] += 1
      time &+= try times.zigzag() &* head.timeDivisor
      if census.firstTime == nil { census.firstTime = time }
    }
    guard ids.isAtEnd, times.isAtEnd else {
      throw ActionColumnsError(offset: head.end, reason: "template ids or times left over")
    }
    census.lastTime = head.count > 0 ? time : nil
    return census
  }

  /// What an action block's head says, checked: its templates compiled, its string table,
  /// its id, time and value columns, and where the block ends.
  fileprivate struct Head {
    var count: Int
    var actionBytes: UInt64
    var literals: [UInt8]
    var allOps: [Op]
    var opRanges: [Range<Int>]
    var strings: [Range<Int>]
    var ids: ColumnReader
    var times: ColumnReader
    var timeDivisor: Int64
    var columns: [Column]
    var end: Int
  }

  /// Reads and checks the head of the action block at `offset`, which must hold
  /// `expectedCount` actions of at most `maxOutput` bytes.
  fileprivate static func readHead(
    _ bytes: UnsafeRawBufferPointer, at offset: Int, expectedCount: Int, maxOutput: Int
  ) throws(ActionColumnsError) -> Head {
    var reader = ColumnReader(bytes: bytes, position: offset)
    let count = try reader.count("action count")
    guard count == expectedCount else {
      throw reader.error("the block holds \(count) actions, the chunk header says \(expectedCount)")
    }
    let actionBytes = try reader.varint()
    guard actionBytes <= UInt64(maxOutput) else {
      throw reader.error("the actions would take \(actionBytes) bytes, more than \(maxOutput)")
    }
    // Templates, compiled to operations over `literals`.
    // Every table is bounded by what it must serve (a template per action at most, a column
    // per leaf, a string per reference), so that a few bytes cannot claim gigabytes of
    // bookkeeping; and the templates' operations lie side by side in one array.
    var literals: [UInt8] = []
    var allOps: [Op] = []
    var opRanges: [Range<Int>] = []
    var leafTotal = 0
    let shapeCount = try reader.count("template count")
    guard shapeCount <= count else {
      throw reader.error("\(shapeCount) templates for \(count) actions")
    }
    var templateColumns: [Int] = []
    for _ in 0..<shapeCount {
      let template = try reader.slice("template")
      let leafCount = try reader.count("leaf count")
      guard leafCount <= template.count else {
        throw reader.error("\(leafCount) leaves in a template of \(template.count) bytes")
      }
      templateColumns.removeAll(keepingCapacity: true)
      for _ in 0..<leafCount { templateColumns.append(try reader.count("column number")) }
      leafTotal += leafCount
      let start = allOps.count
      try compile(bytes, template, columns: templateColumns, literals: &literals, into: &allOps)
      opRanges.append(start..<allOps.count)
    }
    // The string table, walked first and kept once the text columns show it is used.
    let stringCount = try reader.count("string count")
    let stringsStart = reader.position
    for _ in 0..<stringCount { _ = try reader.slice("string") }
    let ids = ColumnReader(bytes: bytes, section: try reader.slice("template ids"))
    var times = ColumnReader(bytes: bytes, section: try reader.slice("times"))
    let timeDivisor = try times.divisor()
    var columns: [Column] = []
    let columnCount = try reader.count("column count")
    guard columnCount <= leafTotal else {
      throw reader.error("\(columnCount) columns for \(leafTotal) leaves")
    }
    for _ in 0..<columnCount {
      let kindByte = try reader.byte()
      guard let kind = ColumnKind(rawValue: kindByte) else {
        throw reader.error("unknown column kind \(kindByte)")
      }
      let section = try reader.slice("column")
      var column = Column(kind: kind, position: section.lowerBound, end: section.upperBound)
      if kind == .integers || kind == .microseconds {
        var header = ColumnReader(bytes: bytes, section: section)
        column.divisor = try header.divisor()
        column.position = header.position
      }
      columns.append(column)
    }
    let textBytes = columns.reduce(0) { $0 + ($1.kind == .text ? $1.end - $1.position : 0) }
    guard stringCount <= textBytes else {
      throw ActionColumnsError(
        offset: stringsStart, reason: "\(stringCount) strings for \(textBytes) bytes of references")
    }
    var strings: [Range<Int>] = []
    strings.reserveCapacity(stringCount)
    var table = ColumnReader(bytes: bytes, position: stringsStart)
    for _ in 0..<stringCount { strings.append(try table.slice("string")) }
    // Each leaf's column must be of its kind.
    for range in opRanges {
      var leaf = 0
      for op in allOps[range] {
        let column: Int
        let fits: (ColumnKind) -> Bool
        switch op {
        case .literal: continue
        case .integer(let c): (column, fits) = (c, { $0 == .integers })
        case .text(let c): (column, fits) = (c, { $0 == .text })
        case .float(let c, _): (column, fits) = (c, { $0 == .microseconds || $0 == .rawFloats })
        case .bytes(let c): (column, fits) = (c, { $0 == .bytes })
        case .item(let c): (column, fits) = (c, { $0 == .items })
        }
        guard column < columns.count else {
          throw reader.error("a template names column \(column) of \(columns.count)")
        }
        guard fits(columns[column].kind) else {
          throw reader.error("a template's leaf \(leaf) is not of its column's kind")
        }
        leaf += 1
      }
    }
    return Head(
      count: count, actionBytes: actionBytes, literals: literals, allOps: allOps,
      opRanges: opRanges, strings: strings, ids: ids, times: times, timeDivisor: timeDivisor,
      columns: columns, end: reader.position)
  }

  static func decode(
    _ bytes: UnsafeRawBufferPointer, at offset: Int, expectedCount: Int, baseTime: Int64,
    maxOutput: Int = TraceFormat.maxChunkSize,
    into output: inout [UInt8], actions: inout [Action]
  ) throws(ActionColumnsError) -> Int {
    let head = try readHead(
      bytes, at: offset, expectedCount: expectedCount, maxOutput: maxOutput)
    let (count, actionBytes, literals, allOps, opRanges, strings, timeDivisor, end) = (
      head.count, head.actionBytes, head.literals, head.allOps, head.opRanges, head.strings,
      head.timeDivisor, head.end
    )
    var (ids, times, columns) = (head.ids, head.times, head.columns)

    // The actions are written straight into zeroed room, checked against the size the block
    // states (itself checked against `maxOutput` above). The room starts at what the block's
    // bytes can plausibly expand to and doubles when a value does not fit, up to that size,
    // so that a block that claims much but holds little costs little; what is left unwritten
    // is removed at the end, also when an error stops the block.
    let total = Int(actionBytes)
    let outputStart = output.count
    var room = min(total, 64 * (end - offset) + 4_096)
    output.append(contentsOf: repeatElement(0, count: room))
    var written = 0
    defer { output.removeLast(room - written) }
    actions.reserveCapacity(actions.count + count)
    let tooLong = ActionColumnsError(
      offset: offset, reason: "the actions take more than the \(actionBytes) bytes the block says")
    var time = baseTime
    // The operations, literals, columns and output through pointers: no array is checked
    // for uniqueness or capacity per value.
    try allOps.withUnsafeBufferPointer { ops throws(ActionColumnsError) in
      try literals.withBytes { literals throws(ActionColumnsError) in
        try columns.withUnsafeMutableBufferPointer { columns throws(ActionColumnsError) in
          for _ in 0..<count {
            let id = try ids.count("template id")
            guard id < opRanges.count else {
              throw ids.error("template id \(id) of \(opRanges.count)")
            }
            let delta = try times.zigzag()
            time &+= delta &* timeDivisor
            let start = outputStart + written
            // The action's operations from `next` on, until one needs more room than there
            // is: each value is read and checked, and its size known, before it is taken
            // from its column and written, so that it can be written again after the room
            // grows.
            var next = opRanges[id].lowerBound
            while next < opRanges[id].upperBound {
              let (done, stop, needed) = try output.withMutableBytes {
                whole throws(ActionColumnsError) -> (Int, Int?, Int) in
                // No room at all (a block that claims no bytes) has no address: any value
                // then needs room.
                guard let base = whole.baseAddress else { return (written, next, 1) }
                var out = OutputCursor(base: base + outputStart, written: written, room: room)
                for index in next..<opRanges[id].upperBound {
                  let op = ops[index]
                  switch op {
                  case .literal(let range):
                    let literal = UnsafeRawBufferPointer(rebasing: literals[range])
                    guard out.fits(literal.count) else {
                      return (out.written, index, literal.count)
                    }
                    out.copy(literal)
                  case .integer(let c):
                    var column = columns[c]
                    let value = try column.next(bytes)
                    let (major, argument) =
                      value >= 0 ? (UInt8(0), UInt64(value)) : (1, UInt64(-1 - value))
                    let size = OutputCursor.headSize(argument)
                    guard out.fits(size) else { return (out.written, index, size) }
                    columns[c] = column
                    out.head(major, argument)
                  case .text(let c):
                    var column = ColumnReader(
                      bytes: bytes, position: columns[c].position, end: columns[c].end)
                    let stringIndex = try column.count("string index")
                    guard stringIndex < strings.count else {
                      throw column.error("string \(stringIndex) of \(strings.count)")
                    }
                    let string = strings[stringIndex]
                    let size = OutputCursor.headSize(UInt64(string.count)) + string.count
                    guard out.fits(size) else { return (out.written, index, size) }
                    columns[c].position = column.position
                    out.head(3, UInt64(string.count))
                    out.copy(UnsafeRawBufferPointer(rebasing: bytes[string]))
                  case .bytes(let c), .item(let c):
                    var column = ColumnReader(
                      bytes: bytes, position: columns[c].position, end: columns[c].end)
                    let range = try column.slice("value")
                    var size = range.count
                    if case .bytes = op {
                      size += OutputCursor.headSize(UInt64(range.count))
                    } else {
                      // An item stands whole: it must be one well-formed data item.
                      var cursor = RecordCBOR.Cursor(
                        UnsafeRawBufferPointer(rebasing: bytes[range]))
                      let item = try? cursor.skipItem()
                      guard item?.count == range.count else {
                        throw column.error("a kept item is not one well-formed data item")
                      }
                    }
                    guard out.fits(size) else { return (out.written, index, size) }
                    columns[c].position = column.position
                    if case .bytes = op { out.head(2, UInt64(range.count)) }
                    out.copy(UnsafeRawBufferPointer(rebasing: bytes[range]))
                  case .float(let c, let width):
                    let bits: UInt64
                    let size = 1 << Int(width - 24)
                    var column = columns[c]
                    if column.kind == .microseconds {
                      let micros = try column.next(bytes)
                      guard let exact = ColumnFloat.bits(Double(micros) / 1e6, width: width) else {
                        throw ActionColumnsError(
                          offset: column.position, reason: "a float does not fit its width")
                      }
                      bits = exact
                    } else {
                      guard column.end - column.position >= size else {
                        throw ActionColumnsError(
                          offset: column.position, reason: "a float column ends early")
                      }
                      var value: UInt64 = 0
                      for byte in 0..<size {
                        value = value << 8 | UInt64(bytes[column.position + byte])
                      }
                      column.position += size
                      bits = value
                    }
                    guard out.fits(1 + size) else { return (out.written, index, 1 + size) }
                    columns[c] = column
                    out.float(bits, width: width, size: size)
                  }
                }
                return (out.written, nil, 0)
              }
              written = done
              guard let stop else { break }
              // The value at `stop` needs `needed` bytes more than the room has.
              guard room < total, needed <= total - written else { throw tooLong }
              let grown = min(total, max(2 * room, written + needed))
              output.append(contentsOf: repeatElement(0, count: grown - room))
              room = grown
              next = stop
            }
            actions.append(Action(start: start, count: outputStart + written - start, time: time))
          }
        }
      }
    }
    guard written == total else {
      throw ActionColumnsError(
        offset: offset,
        reason: "the actions take \(written) bytes, the block says \(actionBytes)")
    }
    guard ids.isAtEnd, times.isAtEnd else {
      throw ActionColumnsError(offset: end, reason: "template ids or times left over")
    }
    for column in columns where column.position != column.end {
      throw ActionColumnsError(offset: column.position, reason: "a column holds values left over")
    }
    return end
  }

  /// Compiles a template to operations, checking that it is one well-formed item whose
  /// markers match its leaves' columns.
  private static func compile(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, columns: [Int],
    literals: inout [UInt8], into ops: inout [Op]
  ) throws(ActionColumnsError) {
    var literalStart = literals.count
    var leaf = 0
    var position = range.lowerBound
    var pending = 1
    func fail(_ reason: String) -> ActionColumnsError {
      ActionColumnsError(offset: position, reason: "a template \(reason)")
    }
    func flush() {
      if literals.count > literalStart { ops.append(.literal(literalStart..<literals.count)) }
    }
    func nextColumn() throws(ActionColumnsError) -> Int {
      guard leaf < columns.count else { throw fail("has more leaves than columns") }
      defer { leaf += 1 }
      return columns[leaf]
    }
    while pending > 0 {
      guard position < range.upperBound else { throw fail("ends inside its item") }
      pending -= 1
      let first = bytes[position]
      switch first {
      case ColumnMarker.integer, ColumnMarker.text, ColumnMarker.bytes, ColumnMarker.item:
        flush()
        let column = try nextColumn()
        ops.append(
          first == ColumnMarker.integer
            ? .integer(column)
            : first == ColumnMarker.text
              ? .text(column) : first == ColumnMarker.bytes ? .bytes(column) : .item(column))
        position += 1
        literalStart = literals.count
        continue
      case ColumnMarker.float:
        guard position + 1 < range.upperBound, (25...27).contains(bytes[position + 1]) else {
          throw fail("has a float marker without a width")
        }
        flush()
        ops.append(.float(try nextColumn(), width: bytes[position + 1]))
        position += 2
        literalStart = literals.count
        continue
      default:
        break
      }
      let scanner = CBORItemScanner(UnsafeRawBufferPointer(rebasing: bytes[..<range.upperBound]))
      let head: CBORHead
      do { head = try scanner.head(at: position) } catch { throw fail(error.message) }
      guard head.info != 31 else { throw fail("holds an indefinite length") }
      var end = head.end
      let remaining = UInt64(range.upperBound - head.end)
      switch head.major {
      case 2, 3:
        guard head.argument <= remaining else { throw fail("string runs past its end") }
        end += Int(head.argument)
      case 4, 5:
        guard head.argument <= remaining else { throw fail("count runs past its end") }
        pending += Int(head.argument) << (head.major == 5 ? 1 : 0)
      case 6:
        pending += 1
      default:
        break
      }
      literals.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[position..<end]))
      position = end
    }
    guard position == range.upperBound else { throw fail("has bytes after its item") }
    guard leaf == columns.count else { throw fail("has fewer leaves than columns") }
    flush()
  }
}

/// Writes rebuilt actions into zeroed room. A caller checks that a value ``fits(_:)``
/// before it writes it.
private struct OutputCursor {
  let base: UnsafeMutableRawPointer
  var written: Int
  let room: Int

  /// Whether `size` more bytes fit the room.
  @inline(__always)
  func fits(_ size: Int) -> Bool { size <= room - written }

  /// The size of the shortest CBOR head for `argument`.
  @inline(__always)
  static func headSize(_ argument: UInt64) -> Int {
    argument < 24
      ? 1 : argument <= 0xFF ? 2 : argument <= 0xFFFF ? 3 : argument <= 0xFFFF_FFFF ? 5 : 9
  }

  /// Copies `bytes`.
  @inline(__always)
  mutating func copy(_ bytes: UnsafeRawBufferPointer) {
    if let source = bytes.baseAddress {
      (base + written).copyMemory(from: source, byteCount: bytes.count)
    }
    written += bytes.count
  }

  /// Writes the shortest CBOR head of major type `major` for `argument`.
  @inline(__always)
  mutating func head(_ major: UInt8, _ argument: UInt64) {
    let length = Self.headSize(argument)
    let initial = major &<< 5
    let at = base + written
    switch length {
    case 1:
      at.storeBytes(of: initial | UInt8(truncatingIfNeeded: argument), as: UInt8.self)
    case 2:
      at.storeBytes(of: initial | 24, as: UInt8.self)
      at.storeBytes(of: UInt8(truncatingIfNeeded: argument), toByteOffset: 1, as: UInt8.self)
    case 3:
      at.storeBytes(of: initial | 25, as: UInt8.self)
      at.storeBytes(
        of: UInt16(truncatingIfNeeded: argument).bigEndian, toByteOffset: 1, as: UInt16.self)
    case 5:
      at.storeBytes(of: initial | 26, as: UInt8.self)
      at.storeBytes(
        of: UInt32(truncatingIfNeeded: argument).bigEndian, toByteOffset: 1, as: UInt32.self)
    default:
      at.storeBytes(of: initial | 27, as: UInt8.self)
      at.storeBytes(of: argument.bigEndian, toByteOffset: 1, as: UInt64.self)
    }
    written += length
  }

  /// Writes a float's head, `0xE0 | width`, then its `size` bytes of `bits`.
  @inline(__always)
  mutating func float(_ bits: UInt64, width: UInt8, size: Int) {
    let at = base + written
    at.storeBytes(of: 0xE0 | width, as: UInt8.self)
    switch size {
    case 2:
      at.storeBytes(
        of: UInt16(truncatingIfNeeded: bits).bigEndian, toByteOffset: 1, as: UInt16.self)
    case 4:
      at.storeBytes(
        of: UInt32(truncatingIfNeeded: bits).bigEndian, toByteOffset: 1, as: UInt32.self)
    default:
      at.storeBytes(of: bits.bigEndian, toByteOffset: 1, as: UInt64.self)
    }
    written += 1 + size
  }
}

extension ActionColumnsDecoder.Column {
  /// The next value of an integer or microseconds column.
  @inline(__always)
  fileprivate mutating func next(_ bytes: UnsafeRawBufferPointer) throws(ActionColumnsError)
    -> Int64
  {
    var reader = ColumnReader(bytes: bytes, position: position, end: end)
    let value = previous &+ (try reader.zigzag()) &* divisor
    position = reader.position
    previous = value
    return value
  }
}

/// Bounds-checked reading of varints and length-prefixed slices inside one section.
struct ColumnReader {
  let bytes: UnsafeRawBufferPointer
  var position: Int
  let end: Int

  init(bytes: UnsafeRawBufferPointer, position: Int, end: Int? = nil) {
    self.bytes = bytes
    self.position = position
    self.end = end ?? bytes.count
  }

  init(bytes: UnsafeRawBufferPointer, section: Range<Int>) {
    self.init(bytes: bytes, position: section.lowerBound, end: section.upperBound)
  }

  var isAtEnd: Bool { position == end }

  func error(_ reason: String) -> ActionColumnsError {
    ActionColumnsError(offset: position, reason: reason)
  }

  mutating func byte() throws(ActionColumnsError) -> UInt8 {
    guard position < end else { throw error("the block ends early") }
    defer { position += 1 }
    return bytes[position]
  }

  /// An unsigned LEB128 varint of at most 10 bytes whose value fits 64 bits.
  @inline(__always)
  mutating func varint() throws(ActionColumnsError) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard position < end else { throw error("a number runs past its section") }
      let byte = bytes[position]
      position += 1
      guard shift < 63 || (shift == 63 && byte <= 1) else {
        throw error("a number exceeds 64 bits")
      }
      value |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return value }
      shift += 7
    }
  }

  /// A varint that counts or indexes something in the block: at most its bytes, so that
  /// nothing is sized by a claim the bytes cannot back.
  mutating func count(_ what: String) throws(ActionColumnsError) -> Int {
    let value = try varint()
    guard value <= UInt64(bytes.count) else { throw error("\(what) \(value) is too large") }
    return Int(value)
  }

  mutating func zigzag() throws(ActionColumnsError) -> Int64 {
    ColumnVarint.unzigzag(try varint())
  }

  /// An integer column's divisor: a varint, never 0.
  mutating func divisor() throws(ActionColumnsError) -> Int64 {
    let value = try varint()
    guard value != 0 else { throw error("a divisor of 0") }
    return Int64(bitPattern: value)
  }

  /// A varint length, then that many bytes: their range.
  mutating func slice(_ what: String) throws(ActionColumnsError) -> Range<Int> {
    let length = try varint()
    guard length <= UInt64(end - position) else { throw error("a \(what) runs past its section") }
    defer { position += Int(length) }
    return position..<(position + Int(length))
  }
}

/// Unsigned LEB128 varints and zigzag coding.
enum ColumnVarint {
  @inline(__always)
  static func append(_ value: UInt64, to out: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
      out.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    out.append(UInt8(value))
  }

  @inline(__always)
  static func zigzag(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
  }

  @inline(__always)
  static func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
  }
}

/// Floats by their CBOR argument and width (additional information 25, 26, 27).
enum ColumnFloat {
  static func value(_ bits: UInt64, width: UInt8) -> Double {
    switch width {
    case 25: CBORItemScanner.double(fromHalf: UInt16(truncatingIfNeeded: bits))
    case 26: Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
    default: Double(bitPattern: bits)
    }
  }

  /// The argument of `value` at `width`, if that width holds it exactly.
  static func bits(_ value: Double, width: UInt8) -> UInt64? {
    if width == 27 { return value.bitPattern }
    let single = Float(value)
    guard Double(single) == value else { return nil }
    if width == 26 { return UInt64(single.bitPattern) }
    return CBORPrimitiveWriter.halfBits(exactly: single).map(UInt64.init)
  }
}
