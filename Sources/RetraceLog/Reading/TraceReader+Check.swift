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
    var endRecord: (chunk: Int, sequence: UInt64, time: Double?)?
    var current = 0
    do throws(TraceError) {
      try forEachChunk(fromChunk: 0, endChunk: chunks.count) { records throws(TraceError) in
        let chunk = chunks[current]
        for record in records {
          if let end = endRecord {
            throw TraceError(
              .corrupted, "a record after the end record of sequence \(end.sequence)", path: path,
              offset: chunk.offset, chunk: chunk.index, sequence: record.sequence)
          }
          if record.kind == .end { endRecord = (chunk.index, record.sequence, record.time) }
        }
        current += 1
        return true
      }
      try checkEnd(endRecord)
    } catch {
      // A chunk that decodes in part still counts as damaged whole: its records are not used.
      let chunk = min(error.chunk ?? current, chunks.count)
      return TraceReader(self, endingBefore: chunk, damage: error.at(path: path))
    }
    return self
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
