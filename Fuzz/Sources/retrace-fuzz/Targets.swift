import Retrace
import RetraceExamples
import RetraceLog

/// The fuzz targets. Each takes the fuzzer's bytes, reads them through Retrace's public
/// API the way the `retrace` CLI does, and throws the errors away: a target fails only by
/// trapping, leaking or touching memory it should not (AddressSanitizer).
enum Targets {
  /// Whole trace files: as given, and again with their checksums repaired so that mutated
  /// fields get past the CRCs. Bytes from a `RTJN` tag on are the trace's journal.
  static func trace(_ data: [UInt8]) {
    var file = data
    var journal: [UInt8]? = nil
    if let split = journalStart(data) {
      file = Array(data[..<split])
      journal = Array(data[split...])
    }
    read(file, journal: journal)
    var repaired = file
    TraceBytes.repairChecksums(&repaired)
    var repairedJournal = journal
    if var j = repairedJournal {
      TraceBytes.repairJournal(&j)
      repairedJournal = j
    }
    if repaired != file || repairedJournal != journal { read(repaired, journal: repairedJournal) }
  }

  /// The example domain a layout byte names: bits 0–1 are the low bits of its number, bits
  /// 4–7 the high ones (so that the first four keep the numbers they had with two bits),
  /// modulo the number of example domains.
  static func exampleDomain(_ byte: UInt8) -> any Domain {
    let number = Int(byte & 3) | Int(byte >> 4) << 2
    return Examples.domains[number % Examples.domains.count]
  }

  /// One chunk of records, wrapped in a valid header and chunk frame.
  ///
  /// Byte 0: bits 0–1 and 4–7 the example domain (``exampleDomain(_:)``), bit 2 a snapshot
  /// first, bit 3 an index after.
  /// Bytes 1 and 2: the action and record counts the chunk header claims. Then, with a
  /// snapshot, a 2-byte length and the state's bytes; the rest is the chunk's records.
  static func chunk(_ data: [UInt8]) {
    guard data.count >= 3 else { return }
    let domain = exampleDomain(data[0])
    let hasSnapshot = data[0] & 4 != 0
    var rest = data[3...]
    var records: [UInt8] = []
    if hasSnapshot {
      guard rest.count >= 2 else { return }
      let length = min(Int(rest[rest.startIndex]) | Int(rest[rest.startIndex + 1]) << 8, rest.count - 2)
      let state = Array(rest[(rest.startIndex + 2)..<(rest.startIndex + 2 + length)])
      rest = rest[(rest.startIndex + 2 + length)...]
      records = snapshotRecord(domain, state)
    }
    records += rest
    var file = TraceBytes.headerFrame(domain: domain.name)
    file += TraceBytes.chunk(
      records, firstSequence: 1, actions: UInt32(data[1]), records: UInt32(data[2]), snapshot: hasSnapshot)
    if data[0] & 8 != 0 {
      // An index that lists the one chunk; the reader checks it against the chunk walk.
      var index: [UInt8] = []
      TraceBytes.append(UInt32(0x184D_2A5E), to: &index)
      TraceBytes.append(UInt32(64), to: &index)
      TraceBytes.append(UInt64(TraceBytes.headerFrame(domain: domain.name).count), to: &index)
      TraceBytes.append(UInt64(1), to: &index)
      TraceBytes.append(UInt32(data[1]), to: &index)
      TraceBytes.append(UInt16(hasSnapshot ? 1 : 0), to: &index)
      TraceBytes.append(UInt16(0), to: &index)
      TraceBytes.append(Int64(0), to: &index)
      TraceBytes.append(UInt32(1), to: &index)
      TraceBytes.append(UInt32(0), to: &index)
      TraceBytes.append(UInt64(data[1]), to: &index)
      TraceBytes.append(Int64(0), to: &index)
      TraceBytes.append(TraceBytes.crc32c(index[8...]), to: &index)
      index += Array("RTIX".utf8)
      file += index
    }
    read(file, journal: nil)
  }

  /// One encoded action or state. Byte 0: bits 0–1 and 4–7 the example domain, bit 2 a state rather
  /// than an action. The rest is CBOR, decoded as a generic value, as the domain's type
  /// (and reduced), and inside a one-action trace through ``TraceSession``.
  static func record(_ data: [UInt8]) {
    guard let first = data.first else { return }
    let domain = exampleDomain(first)
    let payload = Array(data.dropFirst())
    if let value = try? CBORValue(decoding: payload) {
      _ = value.description
      _ = value.jsonText
      _ = value.encoded()
    }
    decodeRecord(domain, payload, asState: first & 4 != 0)
    if first & 4 == 0 {
      // [0, Δt = 0, action] in a chunk of its own.
      let records: [UInt8] = [0x83, 0x00, 0x00] + payload
      var file = TraceBytes.headerFrame(domain: domain.name)
      file += TraceBytes.chunk(records, firstSequence: 1, actions: 1, records: 1, snapshot: false)
      read(file, journal: nil)
    }
  }

  // MARK: Reading, as the CLI does

  /// Opens the bytes as a trace and reads everything: the records generically, then the
  /// actions and states of the trace's domain (or of every domain, for the wrong-domain
  /// path), replaying them through the reducer and checking the invariants.
  static func read(_ file: [UInt8], journal: [UInt8]?) {
    let reader: TraceReader
    do {
      reader = try TraceReader(bytes: file, journal: journal, path: "fuzz.trace")
    } catch {
      _ = error.description
      return
    }
    _ = reader.integrity.damage?.description
    _ = (reader.actionCount, reader.lastSequence, reader.snapshotSequences, reader.checkpointCount)
    do {
      try reader.forEachRecord { record throws(TraceError) in
        _ = record.actionCase
        _ = try? record.value()
        return true
      }
    } catch {
      _ = error.description
    }
    for domain in Examples.domains { readDomain(domain, reader) }
  }

  static func readDomain<D: Domain>(_ domain: D, _ reader: TraceReader) {
    let trace: TraceSession<D>
    do {
      trace = try TraceSession(reader, domain: domain)
    } catch {
      _ = error.description
      return
    }
    do {
      _ = try trace.actions()
    } catch {
      _ = error.description
    }
    // The whole session, as every command and the Studio read it: its chunks decoded on all
    // cores into one array of actions.
    do {
      let session = try trace.session()
      _ = (session.actions.count, session.checkpoints.count, session.jumps.count)
    } catch {
      _ = error.description
    }
    for sequence in Set([reader.header.firstSequence, reader.lastSequence, reader.lastSequence &+ 1]) {
      do {
        let state = try trace.state(at: sequence)
        for invariant in domain.invariants { _ = invariant.holds(state) }
        _ = try? StateHash(of: state)
      } catch {
        _ = error.description
      }
    }
  }

  static func decodeRecord<D: Domain>(_ domain: D, _ payload: [UInt8], asState: Bool) {
    let decoder = CBORDecoder()
    if asState {
      guard var state = try? decoder.decode(D.State.self, from: payload) else { return }
      for invariant in domain.invariants { _ = invariant.holds(state) }
      _ = try? StateHash(of: state)
      // Every action case the workload makes, on the hostile state.
      var random = SeededRandom(seed: 1)
      for step in 0..<8 {
        _ = domain.reduce(into: &state, action: domain.workload!.next(state, step, &random))
      }
    } else {
      guard let action = try? decoder.decode(D.Action.self, from: payload) else { return }
      // On the initial state and on a lived-in one (the seeds' session: its accounts,
      // IBANs and screens exist, so an action that names them reaches the reducer's body).
      for var state in [domain.initialState, domain.generate(count: 40, seed: 7).finalState] {
        for _ in 0..<3 { _ = domain.reduce(into: &state, action: action) }
        for invariant in domain.invariants { _ = invariant.holds(state) }
      }
      _ = try? CBOREncoder().encode(action)
    }
  }

  // MARK: Helpers

  /// Where a journal starts in the fuzzer's bytes: the last `RTJN` tag after the header.
  static func journalStart(_ data: [UInt8]) -> Int? {
    guard data.count >= 12 else { return nil }
    var i = data.count - 4
    while i >= 8 {
      if data[i] == 0x52, data[i + 1] == 0x54, data[i + 2] == 0x4A, data[i + 3] == 0x4E { return i }
      i -= 1
    }
    return nil
  }

  /// A snapshot record `[1, 0, hash, state]`. When the bytes decode as the domain's state,
  /// the record holds its deterministic encoding and the right hash (so reading goes on to
  /// replay from a hostile state); otherwise the bytes as they are, with a wrong hash.
  static func snapshotRecord<D: Domain>(_ domain: D, _ bytes: [UInt8]) -> [UInt8] {
    var state = bytes
    var hash: UInt64 = 0
    if let decoded = try? CBORDecoder().decode(D.State.self, from: bytes),
      let canonical = try? CBOREncoder(deterministic: true).encode(decoded),
      let stateHash = try? StateHash(of: decoded)
    {
      state = canonical
      hash = stateHash.rawValue
    }
    var record: [UInt8] = [0x84, 0x01, 0x00, 0x1B]
    for i in (0..<8).reversed() { record.append(UInt8(truncatingIfNeeded: hash >> (8 * i))) }
    return record + state
  }
}
