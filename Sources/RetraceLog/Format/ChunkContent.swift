/// A chunk's decompressed content, rewritten from one format into the other
/// (docs/TRACE_FORMAT.md, 3): format 1 holds its records one after another; format 2 its
/// snapshot, then its actions as an action block (``ActionColumnsEncoder``), then its
/// checkpoints and its end. The recorder's writer gathers a chunk as format 1 and transposes
/// it (``columns(fromRecords:into:)``); `TraceTranscoder` rewrites whole traces both ways.
enum ChunkContent {
  /// Appends format 1's `records` (a chunk's content) to `output` as format 2 holds them:
  /// the snapshot as it is, the actions as an action block, then the checkpoints and the end
  /// record as they are, in their order.
  ///
  /// - Throws: ``ActionColumnsError`` where a record does not parse.
  static func columns(fromRecords records: UnsafeRawBufferPointer, into output: inout [UInt8])
    throws(ActionColumnsError)
  {
    var actions = ActionColumnsEncoder()
    var trailing: [UInt8] = []
    var cursor = RecordCBOR.Cursor(records)
    do throws(RecordCBOR.CursorError) {
      while !cursor.isAtEnd {
        let start = cursor.offset
        let count = try cursor.readArrayCount()
        switch try cursor.readUInt() {
        case TraceFormat.RecordKind.action.rawValue:
          let delta = try cursor.readInt()
          let payload = try cursor.skipItem()
          actions.append(
            timeDelta: delta, action: UnsafeRawBufferPointer(rebasing: records[payload]))
        case TraceFormat.RecordKind.snapshot.rawValue:
          for _ in 0..<3 { _ = try cursor.skipItem() }
          output.append(
            contentsOf: UnsafeRawBufferPointer(rebasing: records[start..<cursor.offset]))
        default:  // a checkpoint or the end
          for _ in 1..<max(Int(clamping: count), 1) { _ = try cursor.skipItem() }
          trailing.append(
            contentsOf: UnsafeRawBufferPointer(rebasing: records[start..<cursor.offset]))
        }
      }
    } catch {
      throw ActionColumnsError(offset: error.offset, reason: error.reason)
    }
    if actions.count > 0 { actions.encode(appendingTo: &output) }
    output.append(contentsOf: trailing)
  }

  /// Appends format 2's `content` (the content of the chunk `facts` describe) to `output` as
  /// format 1 holds it: the snapshot, then each action as a record `[0, Δt, action]` with
  /// the checkpoints of the state after it right behind it, then the end record.
  ///
  /// - Returns: The time offset of the chunk's last action (its `baseTime` without one).
  /// - Throws: ``ActionColumnsError`` where the content does not parse.
  @discardableResult
  static func records(
    fromColumns content: UnsafeRawBufferPointer, _ facts: ChunkFacts, into output: inout [UInt8]
  ) throws(ActionColumnsError) -> Int64 {
    var cursor = RecordCBOR.Cursor(content)
    var rebuilt: [UInt8] = []
    var actions: [ActionColumnsDecoder.Action] = []
    // The trailing records: where each is, and the sequence number of a checkpoint.
    var trailing: [(bytes: Range<Int>, checkpoint: UInt64?)] = []
    do throws(RecordCBOR.CursorError) {
      if facts.flags & 1 != 0 {
        let start = cursor.offset
        _ = try cursor.readArrayCount()
        for _ in 0..<4 { _ = try cursor.skipItem() }
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: content[start..<cursor.offset]))
      }
    } catch {
      throw ActionColumnsError(offset: error.offset, reason: error.reason)
    }
    if facts.actionCount > 0 {
      cursor.offset = try ActionColumnsDecoder.decode(
        content, at: cursor.offset, expectedCount: Int(facts.actionCount),
        baseTime: facts.baseTime, into: &rebuilt, actions: &actions)
    }
    do throws(RecordCBOR.CursorError) {
      while !cursor.isAtEnd {
        let start = cursor.offset
        let count = try cursor.readArrayCount()
        let kind = try cursor.readUInt()
        var checkpoint: UInt64?
        if kind == TraceFormat.RecordKind.checkpoint.rawValue, count == 3 {
          checkpoint = try cursor.readUInt()
          _ = try cursor.skipItem()
        } else {
          for _ in 1..<max(Int(clamping: count), 1) { _ = try cursor.skipItem() }
        }
        trailing.append((start..<cursor.offset, checkpoint))
      }
    } catch {
      throw ActionColumnsError(offset: error.offset, reason: error.reason)
    }
    var time = facts.baseTime
    rebuilt.withUnsafeBytes { rebuilt in
      inFormatOneOrder(
        firstSequence: facts.firstSequence, actionCount: actions.count,
        checkpoints: trailing.map(\.checkpoint)
      ) { index in
        let action = actions[index]
        output.append(0x83)
        output.append(0x00)
        RecordCBOR.appendInt(action.time &- time, to: &output)
        output.append(
          contentsOf: UnsafeRawBufferPointer(
            rebasing: rebuilt[action.start..<(action.start + action.count)]))
        time = action.time
      } trailing: { index in
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: content[trailing[index].bytes]))
      }
    }
    return time
  }

  /// Calls `action` with the index of each of a format-2 chunk's `actionCount` actions, and
  /// `trailing` with the index of each of its trailing records (`checkpoints` holds the
  /// sequence number of each that is a checkpoint, `nil` for the end), in the order format 1
  /// holds them: the checkpoints of the action before the chunk first, then each action
  /// followed by the checkpoints of the state after it, then the rest.
  static func inFormatOneOrder(
    firstSequence: UInt64, actionCount: Int, checkpoints: [UInt64?], action: (Int) -> Void,
    trailing: (Int) -> Void
  ) {
    var next = 0
    func checkpointsOf(_ sequence: UInt64) {
      while next < checkpoints.count, checkpoints[next] == sequence {
        trailing(next)
        next += 1
      }
    }
    checkpointsOf(firstSequence - 1)
    for index in 0..<actionCount {
      action(index)
      checkpointsOf(firstSequence + UInt64(index))
    }
    while next < checkpoints.count {
      trailing(next)
      next += 1
    }
  }
}
