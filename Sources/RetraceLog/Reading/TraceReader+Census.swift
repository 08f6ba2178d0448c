extension TraceReader {
  /// What a summary reads of a trace's actions: how many of each case, and the first and
  /// last actions' times; and how many snapshots the trace holds.
  package struct ActionCensus: Sendable {
    /// The actions' case names (``TraceRecord/actionCase``, `?` for an action without
    /// one), each with its count, in the order of their first actions.
    package var caseCounts: [(name: String, count: Int)] = []
    package var firstTime: Double?
    package var lastTime: Double?
    /// The snapshot records (not jumps), chunks' and journal's.
    package var snapshots = 0
  }

  /// Counts the actions by case and reads their first and last times, as reading every
  /// record would (``forEachRecord(fromChunk:_:)``), journal included.
  ///
  /// A format-2 chunk's actions are not rebuilt: their cases and times come from the action
  /// block's head, template ids and times (the value columns are not read). So this is for
  /// a reader whose chunks were all checked, such as ``intactPart()``'s; a chunk whose
  /// templates do not hold their case in literal bytes has its actions rebuilt.
  ///
  /// - Throws: ``TraceError`` when a chunk does not decompress or is malformed.
  package func actionCensus() throws(TraceError) -> ActionCensus {
    var counts: [String: Int] = [:]
    var appearance: [String] = []
    var census = ActionCensus()
    func add(_ name: String, _ count: Int) {
      if counts[name] == nil { appearance.append(name) }
      counts[name, default: 0] += count
    }
    func count(_ records: [TraceRecord]) {
      for record in records {
        switch record.kind {
        case .action:
          add(record.actionCase ?? "?", 1)
          if census.firstTime == nil { census.firstTime = record.time }
          census.lastTime = record.time
        case .snapshot:
          census.snapshots += 1
        case .jump, .checkpoint, .end:
          break
        }
      }
    }
    if formatVersion < 2 {
      try forEachChunk { records throws(TraceError) in
        count(records)
        return true
      }
    } else {
      let decompressor = ZstdDecompressor()
      var raw: [UInt8] = []
      for (position, chunk) in chunks.enumerated() {
        guard chunk.actionCount > 0 else {
          if chunk.startsWithSnapshot, !chunk.isJump { census.snapshots += 1 }
          continue
        }
        try decompress(chunk, with: decompressor, into: &raw)
        let block = try raw.withBytes { raw throws(TraceError) in
          try columnCensus(chunk, raw)
        }
        guard let block else {
          try forEachChunk(fromChunk: position, endChunk: position + 1) {
            records throws(TraceError) in
            count(records)
            return true
          }
          continue
        }
        if chunk.startsWithSnapshot, !chunk.isJump { census.snapshots += 1 }
        for id in block.order { add(block.caseNames[id], block.counts[id]) }
        if census.firstTime == nil { census.firstTime = block.firstTime.map(time(offset:)) }
        if let last = block.lastTime { census.lastTime = time(offset: last) }
      }
      try forEachChunk(fromChunk: chunks.count) { records throws(TraceError) in
        count(records)
        return true
      }
    }
    census.caseCounts = appearance.map { ($0, counts[$0]!) }
    return census
  }

  /// The census of a decompressed format-2 chunk's action block, past its snapshot; `nil`
  /// when its actions must be rebuilt to name their cases.
  private func columnCensus(_ chunk: TraceChunk, _ raw: UnsafeRawBufferPointer)
    throws(TraceError) -> ActionColumnsDecoder.Census?
  {
    func fail(_ reason: String, _ at: Int) -> TraceError {
      TraceError(
        .corrupted, "malformed chunk at byte \(at): \(reason)", path: path,
        offset: chunk.frameOffset, chunk: chunk.index, sequence: chunk.firstSequence)
    }
    var cursor = RecordCBOR.Cursor(raw)
    if chunk.startsWithSnapshot {
      do { _ = try cursor.skipItem() } catch { throw fail(error.reason, error.offset) }
    }
    do {
      return try ActionColumnsDecoder.census(
        raw, at: cursor.offset, expectedCount: chunk.actionCount, baseTime: chunk.baseTime)
    } catch {
      throw fail("its action block: \(error.reason)", error.offset)
    }
  }
}
