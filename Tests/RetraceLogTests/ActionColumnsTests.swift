import PropertyBased
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// The action block of trace format 2: any bytes an action is encoded as come back the
/// same, and a damaged block is an error, never a trap.
@Suite struct ActionColumnsTests {
  /// Encodes `actions` (with time deltas) into a block and decodes it again.
  static func roundTrip(_ actions: [[UInt8]], deltas: [Int64], baseTime: Int64 = 0) throws
    -> (block: [UInt8], actions: [[UInt8]], times: [Int64])
  {
    var encoder = ActionColumnsEncoder()
    for (action, delta) in zip(actions, deltas) {
      action.withUnsafeBytes { encoder.append(timeDelta: delta, action: $0) }
    }
    var block: [UInt8] = [0xAA]  // the block need not start the buffer
    encoder.encode(appendingTo: &block)
    block.append(0xBB)
    var output: [UInt8] = []
    var decoded: [ActionColumnsDecoder.Action] = []
    let end = try block.withUnsafeBytes { bytes in
      try ActionColumnsDecoder.decode(
        bytes, at: 1, expectedCount: actions.count, baseTime: baseTime, into: &output,
        actions: &decoded)
    }
    #expect(end == block.count - 1)
    return (
      block, decoded.map { Array(output[$0.start..<($0.start + $0.count)]) }, decoded.map(\.time)
    )
  }

  @Test func randomItemsComeBackByteForByte() async {
    await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 1...60)) {
      seed, count in
      var random = RandomCBOR(random: SeededRandom(seed: seed))
      var actions: [[UInt8]] = []
      var deltas: [Int64] = []
      for _ in 0..<count {
        var bytes: [UInt8] = []
        random.item(&bytes, depth: 0)
        actions.append(bytes)
        deltas.append(random.delta())
      }
      let result = try #require(try? Self.roundTrip(actions, deltas: deltas, baseTime: 17))
      #expect(result.actions == actions)
      var time: Int64 = 17
      #expect(
        result.times
          == deltas.map {
            time &+= $0
            return time
          })
    }
  }

  /// The census a summary reads (cases counted from the templates, first and last times)
  /// is what decoding every action gives; a block whose template does not hold its case in
  /// literal bytes has none, and is decoded instead.
  @Test func aCensusCountsWhatDecodingGives() async {
    await propertyCheck(count: 200, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 1...60)) {
      seed, count in
      var random = RandomCBOR(random: SeededRandom(seed: seed))
      let cases = ["open", "pay", "é", "x"]
      var actions: [[UInt8]] = []
      var deltas: [Int64] = []
      for _ in 0..<count {
        // One-key maps, an action's shape, with any value; a few bare items.
        var bytes: [UInt8] = []
        if random.int(0...9) > 0 {
          let name = cases[random.int(0...cases.count - 1)]
          bytes = [0xA1]
          CBORPrimitiveWriter.appendHead(3, UInt64(name.utf8.count), to: &bytes)
          bytes += name.utf8
        }
        random.item(&bytes, depth: 1)
        actions.append(bytes)
        deltas.append(Int64(random.int(-1_000...1_000_000)))
      }
      let result = try #require(try? Self.roundTrip(actions, deltas: deltas, baseTime: 17))
      let census = try result.block.withUnsafeBytes { bytes in
        try ActionColumnsDecoder.census(
          bytes, at: 1, expectedCount: actions.count, baseTime: 17)
      }
      let names = result.actions.map { $0.withUnsafeBytes { TraceRecord.actionCase(of: $0) } }
      guard let census else {
        #expect(names.contains(nil))
        return
      }
      var expected: [(String, Int)] = []
      for case let name? in names {
        if let index = expected.firstIndex(where: { $0.0 == name }) {
          expected[index].1 += 1
        } else {
          expected.append((name, 1))
        }
      }
      var counted: [(String, Int)] = []
      for id in census.order {
        let name = census.caseNames[id]
        if let index = counted.firstIndex(where: { $0.0 == name }) {
          counted[index].1 += census.counts[id]
        } else {
          counted.append((name, census.counts[id]))
        }
      }
      #expect(!names.contains(nil))
      #expect(counted.map(\.0) == expected.map(\.0) && counted.map(\.1) == expected.map(\.1))
      #expect(census.firstTime == result.times.first && census.lastTime == result.times.last)
    }
  }

  @Test func whatCannotBeSplitIsKeptWhole() throws {
    let actions: [[UInt8]] = [
      [0xA1, 0x61, 0x61, 0x18, 0x05],  // {"a": 5} with 5 in a longer head than needed
      [0x9F, 0x01, 0xFF],  // an indefinite array
      [0xA1, 0x61, 0x61, 0x7F, 0x61, 0x62, 0xFF],  // an indefinite text string
      [0x62, 0xFF, 0xFE],  // text that is not UTF-8
      Array(repeating: 0x81, count: 200) + [0x00],  // deeper than the encoder splits
      [0xFB, 0x7F, 0xF8, 0, 0, 0, 0, 0, 1],  // a NaN with a payload
      [0xF9, 0x80, 0x00],  // -0.0 in half precision
      [0x3B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // Int64.min
      [0x1B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // UInt64.max
    ]
    let deltas: [Int64] = [0, .max, .min, -1, 1, 0, 5, 6, 7]
    let result = try Self.roundTrip(actions, deltas: deltas)
    #expect(result.actions == actions)
  }

  @Test func bankingActionsTakeLessThanThemselves() throws {
    let domain = bankingDomain
    var random = SeededRandom(seed: 7)
    var state = domain.initialState
    var rows: [UInt8] = []
    var encoder = ActionColumnsEncoder()
    for step in 0..<5_000 {
      let action = domain.workload!.next(state, step, &random)
      _ = domain.reduce(into: &state, action: action)
      let bytes = try CBOREncoder().encode(action)
      rows.append(contentsOf: bytes)
      bytes.withUnsafeBytes { encoder.append(timeDelta: 1_000, action: $0) }
    }
    var block: [UInt8] = []
    encoder.encode(appendingTo: &block)
    func compressed(_ bytes: [UInt8]) throws -> Int {
      var frame: [UInt8] = []
      try bytes.withUnsafeBytes {
        try ZstdCompressor(level: 3).compressFrame($0, appendingTo: &frame)
      }
      return frame.count
    }
    let rowsCompressed = try compressed(rows)
    let blockCompressed = try compressed(block)
    // Columns compress to well under the actions one after another.
    #expect(blockCompressed * 3 < rowsCompressed * 2)
  }

  /// Every truncation and every changed byte of a block is an error or a different block,
  /// never a trap, and never more output than the bound.
  @Test func damageIsAnErrorNeverATrap() throws {
    var random = RandomCBOR(random: SeededRandom(seed: 42))
    var actions: [[UInt8]] = []
    for _ in 0..<40 {
      var bytes: [UInt8] = []
      random.item(&bytes, depth: 0)
      actions.append(bytes)
    }
    let block = try Self.roundTrip(actions, deltas: Array(repeating: 3, count: 40)).block
    let inner = Array(block[1..<(block.count - 1)])
    func decode(_ bytes: [UInt8]) -> Bool {
      var output: [UInt8] = []
      var decoded: [ActionColumnsDecoder.Action] = []
      let result = bytes.withUnsafeBytes { bytes in
        try? ActionColumnsDecoder.decode(
          bytes, at: 0, expectedCount: 40, baseTime: 0, maxOutput: 1 << 20, into: &output,
          actions: &decoded)
      }
      #expect(output.count <= 1 << 20)
      return result != nil
    }
    #expect(decode(inner))
    for cut in 0..<inner.count {
      #expect(!decode(Array(inner[..<cut])), "cut at \(cut) still decodes")
    }
    for offset in 0..<inner.count {
      for value: UInt8 in [0x00, 0xFF, inner[offset] ^ 0x01, 0x80] where value != inner[offset] {
        var changed = inner
        changed[offset] = value
        _ = decode(changed)
      }
    }
  }

  /// A block of one action whose template is `null`: `templates`, `strings` and `columns`
  /// are the bytes of those sections.
  static func block(templates: [UInt8], strings: [UInt8], columns: [UInt8]) -> [UInt8] {
    [0x01, 0x01] + templates + strings + [0x01, 0x00, 0x02, 0x01, 0x00] + columns
  }

  static func decodes(_ block: [UInt8]) -> Bool {
    var output: [UInt8] = []
    var decoded: [ActionColumnsDecoder.Action] = []
    return block.withUnsafeBytes { bytes in
      (try? ActionColumnsDecoder.decode(
        bytes, at: 0, expectedCount: 1, baseTime: 0, into: &output, actions: &decoded)) != nil
    }
  }

  /// Tables larger than what they serve (more templates than actions, more columns than
  /// leaves, more strings than references) are refused: a few kilobytes must not claim
  /// gigabytes of bookkeeping.
  @Test func tablesBeyondWhatTheyServeAreRefused() {
    let template: [UInt8] = [0x01, 0xF6, 0x00]
    #expect(
      Self.decodes(Self.block(templates: [0x01] + template, strings: [0x00], columns: [0x00])))
    #expect(
      !Self.decodes(
        Self.block(templates: [0x02] + template + template, strings: [0x00], columns: [0x00])))
    #expect(
      !Self.decodes(
        Self.block(templates: [0x01] + template, strings: [0x00], columns: [0x01, 0x04, 0x00])))
    #expect(
      !Self.decodes(
        Self.block(templates: [0x01] + template, strings: [0x01, 0x01, 0x61], columns: [0x00])))
  }

  /// A block that claims far more output than its bytes can give is refused without
  /// making room for the claim.
  @Test func aLargeClaimTakesNoRoom() {
    // One action, `null`, said to take 500,000,000 bytes.
    var claim: [UInt8] = []
    ColumnVarint.append(500_000_000, to: &claim)
    let block: [UInt8] =
      [0x01] + claim + [0x01, 0x01, 0xF6, 0x00] + [0x00] + [0x01, 0x00, 0x02, 0x01, 0x00]
      + [0x00]
    #expect(Self.refusal(block, expectedCount: 1, maxOutput: 1 << 30) < 1 << 20)
  }

  /// Room grows with what the actions write, not with what their templates could write at
  /// most: 20,000 text leaves beside a 50,000-byte string (a gigabyte at most) that each
  /// take the empty string.
  @Test func roomGrowsWithWhatIsWritten() {
    var block: [UInt8] = [0x01]
    ColumnVarint.append(1 << 30, to: &block)
    let template = [0x99, 0x4E, 0x20] + [UInt8](repeating: ColumnMarker.text, count: 20_000)
    block.append(0x01)
    ColumnVarint.append(UInt64(template.count), to: &block)
    block += template
    ColumnVarint.append(20_000, to: &block)
    block += [UInt8](repeating: 0x00, count: 20_000)
    block.append(0x02)
    block.append(0x00)
    ColumnVarint.append(50_000, to: &block)
    block += [UInt8](repeating: 0x61, count: 50_000)
    block += [0x01, 0x00, 0x02, 0x01, 0x00]
    block += [0x01, ColumnKind.text.rawValue]
    ColumnVarint.append(20_000, to: &block)
    block += [UInt8](repeating: 0x00, count: 20_000)
    #expect(Self.refusal(block, expectedCount: 1, maxOutput: 1 << 30) < 16 << 20)
  }

  @Test func aStringReusedBeyondTheBoundIsRefused() throws {
    // One 1,000-byte string, referenced by 5,000 actions: 5 MB of output from 6 KB.
    let text = [UInt8](repeating: 0x61, count: 1_000)
    var action: [UInt8] = [0x79, 0x03, 0xE8]
    action += text
    var encoder = ActionColumnsEncoder()
    for _ in 0..<5_000 { action.withUnsafeBytes { encoder.append(timeDelta: 0, action: $0) } }
    var block: [UInt8] = []
    encoder.encode(appendingTo: &block)
    _ = Self.refusal(block, expectedCount: 5_000, maxOutput: 1 << 20)
  }

  /// Expects `block` to be refused; returns the capacity its output reached meanwhile.
  static func refusal(_ block: [UInt8], expectedCount: Int, maxOutput: Int) -> Int {
    var output: [UInt8] = []
    var decoded: [ActionColumnsDecoder.Action] = []
    #expect(throws: ActionColumnsError.self) {
      try block.withUnsafeBytes { bytes in
        try ActionColumnsDecoder.decode(
          bytes, at: 0, expectedCount: expectedCount, baseTime: 0, maxOutput: maxOutput,
          into: &output, actions: &decoded)
      }
    }
    return output.capacity
  }
}

/// Random CBOR items: every integer edge, every float width (NaN payloads, -0), tags,
/// simple values, text and non-text map keys, heads longer than needed, nesting.
struct RandomCBOR {
  var random: SeededRandom

  mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

  mutating func delta() -> Int64 {
    [0, 1, -1, 1_000, 500_000, .max, .min, Int64.random(in: .min ... .max, using: &random)][
      int(0...7)]
  }

  mutating func item(_ out: inout [UInt8], depth: Int) {
    switch depth > 3 ? int(0...5) : int(0...10) {
    case 0:
      let values: [UInt64] = [
        0, 23, 24, 255, 256, 65_535, 65_536, .max, UInt64(Int64.max), UInt64(Int64.max) + 1,
        random.next() >> UInt64(int(0...63)),
      ]
      CBORPrimitiveWriter.appendHead(0, values[int(0...values.count - 1)], to: &out)
    case 1:
      let values: [UInt64] = [
        0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, .max, random.next() >> UInt64(int(0...63)),
      ]
      CBORPrimitiveWriter.appendHead(1, values[int(0...values.count - 1)], to: &out)
    case 2:
      let count = int(0...5)
      CBORPrimitiveWriter.appendHead(2, UInt64(count), to: &out)
      for _ in 0..<count { out.append(UInt8(truncatingIfNeeded: random.next())) }
    case 3:
      let words = ["", "a", "iban", "NL91ABNA0417164300", "é", "x\u{0}y", "Restaurant De Kas"]
      let word = words[int(0...words.count - 1)]
      CBORPrimitiveWriter.appendHead(3, UInt64(word.utf8.count), to: &out)
      out += word.utf8
    case 4:
      switch int(0...6) {
      case 0: out.append(0xF4)
      case 1: out.append(0xF6)
      case 2: out.append(0xF7)
      case 3:
        out.append(0xF9)
        let bits = UInt16(truncatingIfNeeded: random.next())
        out += [UInt8(bits >> 8), UInt8(truncatingIfNeeded: bits)]
      case 4:
        out.append(0xFA)
        let bits = UInt32(truncatingIfNeeded: random.next())
        for shift in stride(from: 24, through: 0, by: -8) {
          out.append(UInt8(truncatingIfNeeded: bits >> UInt32(shift)))
        }
      case 5:
        out += [0xF8, UInt8(int(32...255))]  // a simple value
      default:
        out.append(0xFB)
        let values: [Double] = [
          1_763_771_000.5, -0.0, .nan, .infinity, 0.1, 1e300, 12.25,
          Double(bitPattern: random.next()),
        ]
        let bits = values[int(0...values.count - 1)].bitPattern
        for shift in stride(from: 56, through: 0, by: -8) {
          out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
      }
    case 5:
      // A head longer than it needs to be.
      out += [0x19, 0x00, UInt8(int(0...255))]
    case 6, 7:
      let count = int(0...4)
      CBORPrimitiveWriter.appendHead(5, UInt64(count), to: &out)
      let keys = ["date", "iban", "amount", "action", "route"]
      for _ in 0..<count {
        if int(0...6) == 0 {
          item(&out, depth: depth + 1)
        } else {
          let key = keys[int(0...keys.count - 1)]
          CBORPrimitiveWriter.appendHead(3, UInt64(key.utf8.count), to: &out)
          out += key.utf8
        }
        item(&out, depth: depth + 1)
      }
    case 8, 9:
      let count = int(0...4)
      CBORPrimitiveWriter.appendHead(4, UInt64(count), to: &out)
      for _ in 0..<count { item(&out, depth: depth + 1) }
    default:
      CBORPrimitiveWriter.appendHead(6, UInt64(int(0...30)), to: &out)
      item(&out, depth: depth + 1)
    }
  }
}
