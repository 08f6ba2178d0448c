import Foundation
import Retrace
import RetraceExamples
import RetraceTestSupport
import Testing

@testable import RetraceLog

/// Format-2 chunks whose CRC32C and zstd checksum hold but whose content is malformed (a
/// forger's or a buggy writer's): only the checks of the content catch them. Each is damage
/// at its chunk, with the chunk's offset and the reason; none of the chunk's records is
/// used, `verify` fails and `replay --verify` answers "damaged".
@Suite struct ColumnChunkDamageTests {
  /// An action block's sections (`ActionColumns.swift`), to change one and write them back.
  struct ActionBlock {
    /// The action count's varint, as its bytes (so that it can be any bytes).
    var count: [UInt8]
    /// The varint of the bytes the actions take, as its bytes.
    var actionBytes: [UInt8]
    var templates: [(template: [UInt8], columns: [UInt64])]
    var strings: [[UInt8]]
    var ids: [UInt8]
    var times: [UInt8]
    var columns: [(kind: UInt8, data: [UInt8])]

    /// A block of no actions.
    init() {
      (count, actionBytes, templates, strings, ids, times, columns) = ([0], [0], [], [], [], [], [])
    }

    /// Reads the block at `offset` of `raw`; `end` is where it ends.
    init(_ raw: [UInt8], at offset: Int, end: inout Int) throws {
      var count: [UInt8] = []
      var actionBytes: [UInt8] = []
      var templates: [(template: [UInt8], columns: [UInt64])] = []
      var strings: [[UInt8]] = []
      var ids: [UInt8] = []
      var times: [UInt8] = []
      var columns: [(kind: UInt8, data: [UInt8])] = []
      end = try raw.withUnsafeBytes { bytes in
        var reader = ColumnReader(bytes: bytes, position: offset)
        _ = try reader.varint()
        count = Array(raw[offset..<reader.position])
        let actionBytesStart = reader.position
        _ = try reader.varint()
        actionBytes = Array(raw[actionBytesStart..<reader.position])
        for _ in 0..<(try reader.count("")) {
          let template = Array(raw[try reader.slice("")])
          var leaves: [UInt64] = []
          for _ in 0..<(try reader.count("")) { leaves.append(try reader.varint()) }
          templates.append((template, leaves))
        }
        for _ in 0..<(try reader.count("")) { strings.append(Array(raw[try reader.slice("")])) }
        ids = Array(raw[try reader.slice("")])
        times = Array(raw[try reader.slice("")])
        for _ in 0..<(try reader.count("")) {
          let kind = try reader.byte()
          columns.append((kind, Array(raw[try reader.slice("")])))
        }
        return reader.position
      }
      self.count = count
      self.actionBytes = actionBytes
      self.templates = templates
      self.strings = strings
      self.ids = ids
      self.times = times
      self.columns = columns
    }

    var encoded: [UInt8] {
      var out = count + actionBytes
      ColumnVarint.append(UInt64(templates.count), to: &out)
      for (template, leaves) in templates {
        ColumnVarint.append(UInt64(template.count), to: &out)
        out += template
        ColumnVarint.append(UInt64(leaves.count), to: &out)
        for column in leaves { ColumnVarint.append(column, to: &out) }
      }
      ColumnVarint.append(UInt64(strings.count), to: &out)
      for string in strings {
        ColumnVarint.append(UInt64(string.count), to: &out)
        out += string
      }
      for section in [ids, times] {
        ColumnVarint.append(UInt64(section.count), to: &out)
        out += section
      }
      ColumnVarint.append(UInt64(columns.count), to: &out)
      for (kind, data) in columns {
        out.append(kind)
        ColumnVarint.append(UInt64(data.count), to: &out)
        out += data
      }
      return out
    }

    /// The varints of `section`, one after another.
    static func varints(_ section: [UInt8]) throws -> [UInt64] {
      try section.withUnsafeBytes { bytes in
        var reader = ColumnReader(bytes: bytes, position: 0)
        var values: [UInt64] = []
        while !reader.isAtEnd { values.append(try reader.varint()) }
        return values
      }
    }

    static func bytes(_ values: [UInt64]) -> [UInt8] {
      var out: [UInt8] = []
      for value in values { ColumnVarint.append(value, to: &out) }
      return out
    }
  }

  /// A format-2 chunk's content: its snapshot record (if any), its action block, and the
  /// checkpoint and end records after it.
  struct Content {
    var snapshot: [UInt8]
    var block: ActionBlock
    var trailing: [UInt8]

    init(_ trace: [UInt8], _ chunk: TraceChunk) throws {
      var raw: [UInt8] = []
      try trace.withUnsafeBytes { file in
        try ZstdDecompressor().decompressFrame(
          UnsafeRawBufferPointer(
            rebasing: file[chunk.frameOffset..<(chunk.frameOffset + chunk.frameSize)]),
          expectedSize: chunk.rawSize, into: &raw)
      }
      var start = 0
      if chunk.startsWithSnapshot {
        start = try raw.withUnsafeBytes { bytes in
          var cursor = RecordCBOR.Cursor(bytes)
          return try cursor.skipItem().upperBound
        }
      }
      snapshot = Array(raw[..<start])
      var end = start
      // A chunk of no actions has no block.
      hasBlock = chunk.actionCount > 0
      block = hasBlock ? try ActionBlock(raw, at: start, end: &end) : ActionBlock()
      trailing = Array(raw[end...])
      #expect(bytes == raw, "the chunk is not read back the same")
    }

    /// Whether the chunk holds actions, and so a block.
    var hasBlock: Bool

    var bytes: [UInt8] { snapshot + (hasBlock ? block.encoded : []) + trailing }
  }

  /// A checkpoint record, `[2, sequence, hash]`, or the end record, `[3, sequence, time]`.
  static func record(_ kind: UInt64, _ sequence: UInt64, _ value: UInt64) -> [UInt8] {
    var out: [UInt8] = []
    CBORPrimitiveWriter.appendHead(4, 3, to: &out)
    CBORPrimitiveWriter.appendHead(0, kind, to: &out)
    CBORPrimitiveWriter.appendHead(0, sequence, to: &out)
    CBORPrimitiveWriter.appendHead(0, value, to: &out)
    return out
  }

  /// `trace` with chunk `chunk`'s content replaced by `content`, compressed into a valid zstd
  /// frame, its header's sizes (and `records` and `checkpoints`, when given) set to match,
  /// its CRC32C redone, and the index's offsets of the chunks after it moved and resealed.
  static func replacingContent(
    of chunk: TraceChunk, in trace: [UInt8], with content: [UInt8], records: Int? = nil,
    checkpoints: Int? = nil
  ) throws -> [UInt8] {
    var frame: [UInt8] = []
    try content.withUnsafeBytes {
      try ZstdCompressor(level: 3).compressFrame($0, appendingTo: &frame)
    }
    var header = Array(trace[chunk.offset..<chunk.frameOffset])
    let h = 8
    header.setLittleEndian(UInt32(content.count), at: h + 32)
    header.setLittleEndian(UInt32(frame.count), at: h + 36)
    if let records { header.setLittleEndian(UInt32(records), at: h + 20) }
    if let checkpoints { header.setLittleEndian(UInt32(checkpoints), at: h + 44) }
    var placed = chunk
    placed.byteCount = header.count + frame.count
    var bytes =
      Array(trace[..<chunk.offset]) + header + frame
      + Array(trace[(chunk.offset + chunk.byteCount)...])
    bytes = TrustTests.resealingChunk(bytes, placed)
    let reader = try TraceReader(bytes: trace)
    guard reader.hasIndex else { return bytes }
    let shift = placed.byteCount - chunk.byteCount
    let trailer = bytes.count - TraceFormat.indexTrailerSize
    let entries = trailer - reader.chunks.count * TraceFormat.indexEntrySize
    for later in reader.chunks[(chunk.index + 1)...] {
      let entry = entries + later.index * TraceFormat.indexEntrySize
      bytes.setLittleEndian(UInt64(later.offset + shift), at: entry)
    }
    return TrustTests.resealingIndex(bytes)
  }

  /// One malformed chunk: its name, the file, and the reason the reader must give.
  struct Case {
    var name: String
    var bytes: [UInt8]
    var reason: String
  }

  /// The malformed variants of chunk `chunk` of `trace`.
  static func cases(_ trace: [UInt8], _ chunk: TraceChunk) throws -> [Case] {
    let content = try Content(trace, chunk)
    let block = content.block
    var cases: [Case] = []
    func add(
      _ name: String, _ reason: String, records: Int? = nil, checkpoints: Int? = nil,
      _ change: (inout Content) throws -> Void
    ) throws {
      var changed = content
      try change(&changed)
      cases.append(
        Case(
          name: name,
          bytes: try replacingContent(
            of: chunk, in: trace, with: changed.bytes, records: records, checkpoints: checkpoints),
          reason: reason))
    }
    let actions = chunk.actionCount
    let first = chunk.firstSequence
    let last = first - 1 + UInt64(actions)
    let text = try #require(block.columns.firstIndex { $0.kind == ColumnKind.text.rawValue })
    let integers = try #require(
      block.columns.firstIndex { $0.kind == ColumnKind.integers.rawValue })

    try add("count", "the block holds \(actions + 1) actions, the chunk header says \(actions)") {
      $0.block.count = ActionBlock.bytes([UInt64(actions + 1)])
    }
    try add("huge-count", "action count \(UInt64.max) is too large") {
      $0.block.count = Array(repeating: 0xFF, count: 9) + [0x01]
    }
    let actionBytes = try #require(try ActionBlock.varints(block.actionBytes).first)
    try add(
      "action-bytes-less", "the actions take more than the \(actionBytes - 1) bytes the block says"
    ) {
      $0.block.actionBytes = ActionBlock.bytes([actionBytes - 1])
    }
    try add(
      "action-bytes-more",
      "the actions take \(actionBytes) bytes, the block says \(actionBytes + 1)"
    ) {
      $0.block.actionBytes = ActionBlock.bytes([actionBytes + 1])
    }
    try add(
      "action-bytes-huge",
      "the actions would take \(UInt64.max) bytes, more than \(TraceFormat.maxChunkSize)"
    ) {
      $0.block.actionBytes = Array(repeating: 0xFF, count: 9) + [0x01]
    }
    try add("huge-varint", "a number exceeds 64 bits") {
      $0.block.ids = Array(repeating: 0xFF, count: 10) + $0.block.ids
    }
    try add("template-id", "template id \(block.templates.count) of \(block.templates.count)") {
      var ids = try ActionBlock.varints($0.block.ids)
      ids[0] = UInt64(block.templates.count)
      $0.block.ids = ActionBlock.bytes(ids)
    }
    let leafy = try #require(block.templates.firstIndex { !$0.columns.isEmpty })
    try add(
      "template-column", "a template names column \(block.columns.count) of \(block.columns.count)"
    ) {
      $0.block.templates[leafy].columns[0] = UInt64(block.columns.count)
    }
    try add("template-extra", "a template has bytes after its item") {
      $0.block.templates[0].template.append(0xF6)
    }
    try add("string-index", "string \(block.strings.count) of \(block.strings.count)") {
      var indexes = try ActionBlock.varints($0.block.columns[text].data)
      indexes[0] = UInt64(block.strings.count)
      $0.block.columns[text].data = ActionBlock.bytes(indexes)
    }
    try add("column-kind", "is not of its column's kind") {
      $0.block.columns[text].kind = ColumnKind.bytes.rawValue
    }
    try add("unknown-kind", "unknown column kind 6") {
      $0.block.columns[text].kind = 6
    }
    try add("column-left-over", "a column holds values left over") {
      $0.block.columns[integers].data.append(0)
    }
    try add("ids-left-over", "template ids or times left over") {
      $0.block.ids.append(0)
    }
    try add("divisor", "a divisor of 0") {
      var times = try ActionBlock.varints($0.block.times)
      times[0] = 0
      $0.block.times = ActionBlock.bytes(times)
    }
    try add("column-divisor", "a divisor of 0") {
      var values = try ActionBlock.varints($0.block.columns[integers].data)
      values[0] = 0
      $0.block.columns[integers].data = ActionBlock.bytes(values)
    }
    // The records after the block: the header's counts are set to match, so that only
    // their order is wrong.
    let records = actions + (chunk.startsWithSnapshot ? 1 : 0)
    try add(
      "checkpoint-order", "a checkpoint for sequence \(last - 1) out of order",
      records: records + 2, checkpoints: 2
    ) {
      $0.trailing = Self.record(2, last, 7) + Self.record(2, last - 1, 7)
    }
    try add(
      "checkpoint-past", "a checkpoint for sequence \(last + 1) out of order",
      records: records + 1, checkpoints: 1
    ) {
      $0.trailing = Self.record(2, last + 1, 7)
    }
    try add(
      "checkpoint-before", "a checkpoint for sequence \(first - 2) out of order",
      records: records + 1, checkpoints: 1
    ) {
      $0.trailing = Self.record(2, first - 2, 7)
    }
    try add(
      "after-end", "a record after the chunk's end record", records: records + 2, checkpoints: 1
    ) {
      $0.trailing = Self.record(3, last, 1_000) + Self.record(2, last, 7)
    }
    try add(
      "record-count", "its header says",
      records: chunk.recordCount + 1
    ) { _ in }
    try add(
      "checkpoint-count", "its header says",
      checkpoints: chunk.checkpointCount + 1
    ) { _ in }
    try add("unknown-record", "unknown record kind 1 with 3 fields") {
      $0.trailing = Self.record(1, last, 7)
    }
    return cases
  }

  /// The clean format-2 trace, its actions, and the chunk to damage: one in the middle
  /// with actions and checkpoints, after which the file goes on.
  static func fixture(in workspace: Workspace) throws -> (
    trace: [UInt8], actions: [BankingAction], chunk: TraceChunk
  ) {
    let trace = try HostileTraceTests.cleanTrace(in: workspace, format: 2)
    let reader = try TraceReader(bytes: trace)
    #expect(reader.formatVersion == 2)
    let chunk = try #require(
      reader.chunks.dropFirst(3).first {
        !$0.startsWithSnapshot && $0.actionCount > 1 && $0.checkpointCount > 0
      })
    #expect(chunk.index < reader.chunks.count - 1)
    return (trace, try readActions(reader), chunk)
  }

  static func readActions(_ reader: TraceReader) throws -> [BankingAction] {
    try TraceSession(reader, domain: bankingDomain).actions().map(\.action)
  }

  @Test func aMalformedChunkWithValidChecksumsIsDamageAtItsChunk() throws {
    let workspace = try Workspace()
    let (trace, original, chunk) = try Self.fixture(in: workspace)
    let intact = Int(chunk.firstSequence) - 1
    for damaged in try Self.cases(trace, chunk) {
      let name = damaged.name
      // The checksums hold: opening the file finds nothing wrong.
      let reader = try TraceReader(bytes: damaged.bytes)
      #expect(reader.integrity.status == .clean, "\(name): \(reader.integrity)")
      #expect(reader.chunks.count == (try TraceReader(bytes: trace)).chunks.count, "\(name)")
      // Reading the chunk does.
      let part = reader.intactPart()
      #expect(part.integrity.status == .damaged, "\(name): \(part.integrity)")
      let damage = try #require(part.integrity.damage, "\(name)")
      #expect(damage.chunk == chunk.index, "\(name): \(damage)")
      #expect(damage.offset == chunk.frameOffset, "\(name): \(damage)")
      #expect(damage.message.hasPrefix("malformed chunk at byte "), "\(name): \(damage)")
      #expect(damage.message.contains(damaged.reason), "\(name): \(damage)")
      // None of the chunk's records is used; those before it are the original's.
      #expect(part.chunks.count == chunk.index, "\(name)")
      #expect(part.actionCount == intact, "\(name)")
      #expect(try Self.readActions(part) == Array(original.prefix(intact)), "\(name)")
      // Reading the whole session throws, naming the chunk.
      do {
        _ = try TraceSession(reader, domain: bankingDomain).session()
        Issue.record("\(name): the whole session was read")
      } catch {
        #expect(error.chunk == chunk.index, "\(name): \(error)")
      }
    }
  }

  @Test func aMalformedChunkWithValidChecksumsFailsVerifyAndReplay() throws {
    let workspace = try Workspace()
    let (trace, _, chunk) = try Self.fixture(in: workspace)
    let intact = Int(chunk.firstSequence) - 1
    for damaged in try Self.cases(trace, chunk) {
      let file = "\(damaged.name).trace"
      try Data(damaged.bytes).write(to: URL(fileURLWithPath: workspace.path(file)))
      let verify = try workspace.run("verify \(file)")
      #expect(verify.exitCode == 1, "\(file): \(verify)")
      #expect(
        verify.stdout.contains("damaged at offset \(chunk.frameOffset)"), "\(file): \(verify)")
      #expect(verify.stdout.contains(damaged.reason), "\(file): \(verify)")
      #expect(verify.stdout.contains("(\(intact) intact actions before it)"), "\(file): \(verify)")
      let replay = try workspace.run("replay \(file) --verify --json")
      #expect(replay.exitCode == 1, "\(file): \(replay)")
      let json = try replay.json()
      #expect(json["status"] as? String == "damaged", "\(file): \(replay)")
      #expect(json["actions"] as? Int == intact, "\(file): \(replay)")
      // The commands that read actions use those before the chunk, none of the chunk's.
      let log = try workspace.run("log \(file) --json")
      #expect(log.exitCode == 0, "\(file): \(log)")
      #expect(log.stdout.split(separator: "\n").count == intact, "\(file): \(log)")
      #expect(log.stderr.contains("using the \(intact) intact actions"), "\(file): \(log)")
    }
  }
}

extension ColumnChunkDamageTests {
  /// Every byte of a chunk's content changed, the checksums redone: never a trap. What the
  /// reader takes as intact holds the original's actions before the chunk and, when it
  /// takes the chunk, as many actions as it had (a changed value reads as that value:
  /// someone who redoes the checksums can write any action). Of a chunk in the middle, of
  /// the last one (with the end record) and of one that starts with a snapshot (from the
  /// snapshot's last bytes on).
  @Test(arguments: ["middle", "last", "snapshot"])
  func everyChangedByteOfAResealedChunkIsReadWithoutATrap(which: String) throws {
    let workspace = try Workspace()
    let (trace, original, middle) = try Self.fixture(in: workspace)
    let chunks = try TraceReader(bytes: trace).chunks
    let chunk =
      switch which {
      case "last": chunks.last!
      case "snapshot":
        try #require(chunks.first { $0.index > 0 && $0.startsWithSnapshot })
      default: middle
      }
    let parts = try Content(trace, chunk)
    let content = parts.bytes
    let intact = Int(chunk.firstSequence) - 1
    let changedBytes = max(parts.snapshot.count - 8, 0)..<content.count
    var damaged = 0
    for offset in changedBytes {
      for value: UInt8 in [content[offset] ^ 0x01, 0x00, 0xFF] where value != content[offset] {
        var changed = content
        changed[offset] = value
        let bytes = try Self.replacingContent(of: chunk, in: trace, with: changed)
        let part = try TraceReader(bytes: bytes).intactPart()
        let read: [BankingAction]
        do {
          read = try Self.readActions(part)
        } catch {
          // A chunk whose actions do not decode as the domain's: damage at that chunk.
          #expect(
            (error as? TraceError)?.chunk == chunk.index, "byte \(offset) = \(value): \(error)")
          continue
        }
        #expect(Array(read.prefix(intact)) == Array(original.prefix(intact)), "byte \(offset)")
        if part.integrity.status == .clean {
          #expect(read.count == original.count, "byte \(offset) = \(value)")
        } else {
          damaged += 1
          #expect(part.integrity.damage?.chunk == chunk.index, "byte \(offset) = \(value)")
          #expect(read.count == intact, "byte \(offset) = \(value)")
        }
      }
    }
    // Hundreds of the changes break the block's structure, and are caught as such.
    #expect(
      damaged > changedBytes.count / 2, "\(damaged) of \(changedBytes.count * 3) changes caught")
  }
}

extension ColumnChunkDamageTests {
  /// A header whose format version was changed to the other one, its checksum redone: the
  /// chunks are read with the other format's rules, and fail them, at the first chunk of
  /// actions, never reading as another session.
  @Test(arguments: Fixtures.traceFormats)
  func aHeaderNamingTheOtherFormatIsDamage(format: UInt16) throws {
    let workspace = try Workspace()
    let clean = try HostileTraceTests.cleanTrace(in: workspace, format: format)
    let original = try Self.readActions(try TraceReader(bytes: clean))
    var other = clean
    other[12] = format == 1 ? 2 : 1
    let headerSize = Int(clean[4]) | Int(clean[5]) << 8
    other.setLittleEndian(
      CRC32C.checksum(Array(other[8..<(8 + headerSize - 4)])), at: 8 + headerSize - 4)
    let reader = try TraceReader(bytes: other)
    #expect(reader.formatVersion != format)
    let part = reader.intactPart()
    #expect(part.integrity.status == .damaged, "\(part.integrity)")
    let read = try Self.readActions(part)
    #expect(read.count < original.count)
    #expect(Array(original.prefix(read.count)) == read)
  }
}

extension ColumnChunkDamageTests {
  /// A string of 1 MiB used 1,025 times by each action: a block of about 1 MiB whose
  /// actions would take gigabytes. Saying so in the block's size of its actions passes the
  /// bound on a chunk's size (1 GiB), and saying less is a lie found at the first action
  /// past it: damage at the chunk either way, before gigabytes are written.
  @Test(arguments: [(1 << 20) * 1_025, 1_000])
  func aStringReusedPastTheBoundIsDamage(claimed: Int) throws {
    let workspace = try Workspace()
    let (trace, _, chunk) = try Self.fixture(in: workspace)
    var content = try Content(trace, chunk)
    let uses = 1_025
    var template: [UInt8] = []
    CBORPrimitiveWriter.appendHead(4, UInt64(uses), to: &template)
    template += repeatElement(ColumnMarker.text, count: uses)
    content.block.actionBytes = ActionBlock.bytes([UInt64(claimed)])
    content.block.templates = [(template, Array(repeating: 0, count: uses))]
    content.block.strings = [Array(repeating: UInt8(ascii: "a"), count: 1 << 20)]
    content.block.ids = Array(repeating: 0, count: chunk.actionCount)
    content.block.times = [1] + Array(repeating: 0, count: chunk.actionCount)
    content.block.columns = [
      (ColumnKind.text.rawValue, Array(repeating: 0, count: uses * chunk.actionCount))
    ]
    content.trailing = []
    let bytes = try Self.replacingContent(
      of: chunk, in: trace, with: content.bytes,
      records: chunk.actionCount + (chunk.startsWithSnapshot ? 1 : 0), checkpoints: 0)
    let reader = try TraceReader(bytes: bytes)
    #expect(reader.integrity.status == .clean)
    let part = reader.intactPart()
    let damage = try #require(part.integrity.damage)
    #expect(damage.chunk == chunk.index, "\(damage)")
    #expect(
      damage.message.contains(
        claimed > TraceFormat.maxChunkSize
          ? "the actions would take \(claimed) bytes, more than \(TraceFormat.maxChunkSize)"
          : "the actions take more than the \(claimed) bytes the block says"),
      "\(damage)")
    #expect(part.actionCount == Int(chunk.firstSequence) - 1)
  }
}
