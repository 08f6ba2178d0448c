extension TraceReader {
  /// Checks everything any reader checks, and returns the trace as far as it is intact.
  ///
  /// Opening a trace checks its framing, every chunk's CRC32C and the index (``integrity``);
  /// this also decompresses every chunk (checking zstd's content checksum and size), parses
  /// every record (kinds, sequence numbers, counts against the chunk header, each snapshot
  /// against its hash), and checks that the end record is the last record of a closed
  /// trace, unique, after its last action, and at the index's end time. It is what
  /// `retrace verify` reports and what `retrace replay --verify` verifies against: one
  /// definition of intact for every command.
  ///
  /// - Returns: This reader when everything checks; otherwise a reader of the chunks before
  ///   the first that fails, whose ``integrity`` says where and why (a damaged trace's
  ///   journal is not read: nothing after damage is).
  ///
  /// An encrypted trace opened without its key is returned as it is: its framing and
  /// checksums were checked on opening, and nothing more can be without the key.
  public func intactPart() -> TraceReader {
    guard canReadRecords else { return self }
    // The chunks are checked on other threads, several at once; what one chunk says is
    // then taken in order, up to the first that fails.
    let pipeline = ChunkPipeline(count: chunks.count, window: 64) { [self] index in
      checkChunk(index)
    }
    defer { pipeline.finish() }
    var endRecord: (chunk: Int, sequence: UInt64, time: Double?)?
    var current = 0
    do throws(TraceError) {
      for index in 0..<chunks.count {
        current = index
        let checked = pipeline.take(index)
        // A record after an earlier chunk's end record is the first thing wrong, even in a
        // chunk that failed after it.
        if let end = endRecord, let first = checked.firstSequence {
          throw TraceError(
            .corrupted, "a record after the end record of sequence \(end.sequence)", path: path,
            offset: chunks[index].offset, chunk: chunks[index].index, sequence: first)
        }
        if let error = checked.error { throw error }
        if let end = checked.end { endRecord = (index, end.sequence, end.time) }
      }
      current = chunks.count
      try checkEnd(endRecord)
    } catch {
      // A chunk that decodes in part still counts as damaged whole: its records are not used.
      let chunk = min(error.chunk ?? current, chunks.count)
      return TraceReader(self, endingBefore: chunk, damage: error.at(path: path))
    }
    return self
  }

  /// What one chunk's check says: the sequence of its first record, its end record, and
  /// the error that stopped it (after the records before it were read).
  private struct CheckedChunk: Sendable {
    var firstSequence: UInt64?
    var end: (sequence: UInt64, time: Double?)?
    var error: TraceError?
  }

  /// Decompresses and parses chunk `index` (every check of ``forEachChunk(fromChunk:endChunk:_:)``),
  /// and checks that nothing follows an end record in it.
  private func checkChunk(_ index: Int) -> CheckedChunk {
    var checked = CheckedChunk()
    do throws(TraceError) {
      try forEachChunk(fromChunk: index, endChunk: index + 1) { records throws(TraceError) in
        for record in records {
          if let end = checked.end {
            throw TraceError(
              .corrupted, "a record after the end record of sequence \(end.sequence)", path: path,
              offset: chunks[index].offset, chunk: chunks[index].index, sequence: record.sequence)
          }
          if checked.firstSequence == nil { checked.firstSequence = record.sequence }
          if record.kind == .end { checked.end = (record.sequence, record.time) }
        }
        return true
      }
    } catch {
      checked.error = error
    }
    return checked
  }

  /// Checks the end record against the index and the last action.
  private func checkEnd(_ end: (chunk: Int, sequence: UInt64, time: Double?)?) throws(TraceError) {
    guard hasIndex, let last = chunks.last else { return }
    guard let end else {
      throw TraceError(
        .corrupted, "the trace has an index but no end record", path: path, offset: last.offset,
        chunk: last.index,
        sequence: last.endSequence)
    }
    let lastAction = header.firstSequence + UInt64(chunks.reduce(0) { $0 + $1.actionCount })
    guard end.chunk == last.index, end.sequence == lastAction else {
      throw TraceError(
        .corrupted,
        "the end record says sequence \(end.sequence), the last action is \(lastAction)",
        path: path,
        offset: chunks[end.chunk].offset, chunk: end.chunk, sequence: end.sequence)
    }
    if let indexEndTime, end.time != time(offset: indexEndTime) {
      throw TraceError(
        .corrupted, "the index's end time does not match the end record's", path: path,
        offset: last.offset,
        chunk: last.index, sequence: end.sequence)
    }
  }
}
