import Foundation
import Retrace
import RetraceExamples
import Testing

@testable import RetraceLog

/// Time-travel jumps (`Store.jump(to:)`) recorded in a trace: a replay gives the states the
/// app really showed, closed or crashed, and every reader treats a jump as a jump.
@Suite("Jumps in traces")
struct JumpTests {
  /// A banking session of 300 actions with a jump back to the state after 120 at action
  /// 200, then 100 more actions from there: the states the store held after every action.
  @MainActor
  static func recordSession(
    to path: String, configuration: TraceRecorderConfiguration = smallChunks(), close: Bool = true
  ) throws -> (states: [BankingState], recorder: TraceRecorder<BankingState, BankingAction>) {
    let domain = bankingDomain
    let store = Store(
      initialState: domain.initialState, reducer: Reduce { domain.reduce(into: &$0, action: $1) },
      clock: .fixed(start: 1_763_771_000, interval: 0.25))
    let recorder = try TraceRecorder(
      path: path, domain: domain, sessionID: "jump-session", startTime: 1_763_771_000,
      configuration: configuration)
    store.attach(recorder)
    var random = SeededRandom(seed: 5)
    var states = [store.state]
    for step in 0..<300 {
      store.send(domain.workload!.next(store.state, step, &random))
      states.append(store.state)
      if step + 1 == 200 {
        store.jump(to: states[120])
        // The state after action 200 is the one the app showed from then on.
        states[200] = store.state
      }
    }
    if close { try recorder.close() } else { try recorder.flush() }
    return (states, recorder)
  }

  @Test(
    "a closed trace with a jump gives the states the app showed, and verifies",
    arguments: traceFormats)
  @MainActor
  func closedTrace(format: UInt16) throws {
    let path = temporaryDirectory() + "/jump.trace"
    let (states, _) = try Self.recordSession(
      to: path, configuration: smallChunks(format: format))
    let reader = try TraceReader(path: path)
    #expect(reader.integrity.status == .clean)
    #expect(reader.jumpSequences == [200])
    let trace = try TraceSession(reader, domain: bankingDomain)
    for sequence in [0, 119, 120, 121, 199, 200, 201, 250, 300] {
      #expect(try trace.state(at: UInt64(sequence)) == states[sequence], "state at \(sequence)")
    }
    let session = try trace.session()
    #expect(session.jumps.map(\.sequence) == [200])
    #expect(session.jumps.first?.state == states[120])
    // The actions alone do not give the final state: the jump does.
    var replayed = session.initialState
    for action in session.actions {
      _ = bankingDomain.reduce(into: &replayed, action: action.action)
    }
    #expect(replayed != states[300])
  }

  @Test(
    "a crashed session after a jump recovers its journal on top of the jumped state",
    arguments: traceFormats)
  @MainActor
  func crashedTrace(format: UInt16) throws {
    let path = temporaryDirectory() + "/crashed.trace"
    var configuration = smallChunks(format: format)
    configuration.chunkSize = 1 << 20
    let (states, recorder) = try Self.recordSession(
      to: path, configuration: configuration, close: false)
    defer { try? recorder.close() }
    let reader = try TraceReader(path: path)
    #expect(reader.integrity.status == .unfinished)
    #expect(reader.lastSequence == 300)
    let trace = try TraceSession(reader, domain: bankingDomain)
    #expect(try trace.state(at: 300) == states[300])
    #expect(try trace.state(at: 199) == states[199])
  }

  @Test("a redacted recorder refuses a jump: it would write a state")
  @MainActor
  func redactedRefuses() throws {
    let path = temporaryDirectory() + "/redacted.trace"
    var configuration = TraceRecorderConfiguration()
    configuration.redactionKey = .random()
    let domain = bankingDomain
    let store = Store(
      initialState: domain.initialState, reducer: Reduce { domain.reduce(into: &$0, action: $1) })
    let recorder = try TraceRecorder(path: path, domain: domain, configuration: configuration)
    store.attach(recorder)
    var random = SeededRandom(seed: 1)
    for step in 0..<20 { store.send(domain.workload!.next(store.state, step, &random)) }
    store.jump(to: domain.initialState)
    #expect(throws: TraceError.self) { try recorder.flush() }
    guard case .failed(let error) = recorder.status else {
      Issue.record("the recorder is \(recorder.status)")
      return
    }
    #expect(error.message.contains("cannot record a time-travel jump"))
  }

  @Test(
    "a jump flag without a snapshot, or on the first chunk, is damage", arguments: traceFormats)
  @MainActor
  func impossibleFlags(format: UInt16) throws {
    let path = temporaryDirectory() + "/flags.trace"
    // Unfinished, so that no index repeats the flags: only the chunk header says them.
    let (_, recorder) = try Self.recordSession(
      to: path, configuration: smallChunks(format: format), close: false)
    defer { try? recorder.close() }
    let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let reader = try TraceReader(path: path)
    #expect(reader.jumpSequences == [200])
    // The first chunk's flags made a jump's, and the jump chunk's made bit 1 alone; the
    // chunk's CRC32C is made right again, so that only the flags are wrong.
    let jumpChunk = reader.chunks.firstIndex(where: \.isJump)!
    for (chunk, flags) in [(0, UInt16(3)), (jumpChunk, 2)] {
      var bytes = original
      let h = reader.chunks[chunk].offset + 8
      bytes[h + 6] = UInt8(flags & 0xFF)
      bytes[h + 7] = UInt8(flags >> 8)
      let crc = bytes.withUnsafeBytes { raw in
        CRC32C.update(
          CRC32C.update(
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[h..<(h + 40)])),
            UnsafeRawBufferPointer(rebasing: raw[(h + 44)..<(h + 48)])),
          UnsafeRawBufferPointer(
            rebasing: raw[(h + 48)..<(reader.chunks[chunk].offset + reader.chunks[chunk].byteCount)]
          ))
      }
      withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange((h + 40)..<(h + 44), with: $0) }
      let damaged = temporaryDirectory() + "/damaged-\(chunk).trace"
      try Data(bytes).write(to: URL(fileURLWithPath: damaged))
      let message: String
      do {
        let opened = try TraceReader(path: damaged)
        message = opened.integrity.damage?.message ?? "clean"
      } catch {
        message = error.message
      }
      #expect(message.contains("chunk flags \(flags) are impossible"), "chunk \(chunk): \(message)")
    }
  }
}
