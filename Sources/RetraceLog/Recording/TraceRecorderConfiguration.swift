/// How a ``TraceRecorder`` writes: chunk size, compression, checkpoints, snapshots and the
/// bound on memory.
///
/// The defaults suit an app that records every session; the benchmarks in `Benchmarks/`
/// measure them.
public struct TraceRecorderConfiguration: Sendable, Equatable {
  /// Raw (uncompressed) bytes of records per chunk before it is compressed into a zstd frame.
  /// Larger chunks compress better; smaller ones lose less to a torn tail and seek faster.
  public var chunkSize: Int = 1 << 20
  /// The zstd compression level of chunks.
  public var compressionLevel: Int = 3
  /// The fewest actions between periodic checkpoints (a hash of the state); 0 for none.
  ///
  /// A checkpoint is due `max(checkpointInterval, stateBytes / maxStateBytesPerAction)`
  /// actions after the previous one, where `stateBytes` is the size of the state last
  /// encoded: a small state is hashed every few actions, a large one as often as
  /// ``maxStateBytesPerAction`` allows. Whatever the spacing, ``TraceRecorder/flush(isolation:)`` and
  /// ``TraceRecorder/close(isolation:)`` hash the state after the last action, so every action of a
  /// closed session is covered by a hash.
  public var checkpointInterval: Int = 16
  /// The fewest actions between snapshots (the encoded state, where reading can start); 0
  /// for none. A multiple of ``checkpointInterval``; a snapshot is due
  /// `max(snapshotInterval, stateBytes / maxStateBytesPerAction)` actions after the
  /// previous one.
  public var snapshotInterval: Int = 10_000
  /// The largest share of the file's bytes that periodic snapshots may take, from 0 to 1;
  /// 1 for no limit. With the default, 0.1, a snapshot is written only once the bytes written
  /// since the previous one are at least nine times that snapshot's: a trace holds what
  /// cannot be derived (the starting state, the actions, the hashes), and snapshots only as
  /// far as they stay a tenth of it. Readers replay from the nearest snapshot, so fewer
  /// snapshots cost seeks, never answers.
  public var maxSnapshotShare: Double = 0.1
  /// The most bytes of encoded state a checkpoint or snapshot may cost per action recorded
  /// since the previous one. A large state is hashed and saved less often than the
  /// intervals say, so recording stays cheap however large the state grows.
  public var maxStateBytesPerAction: Int = 64
  /// The most actions waiting for the background writer; further actions are dropped and
  /// counted (``TraceRecorder/droppedActionCount``), so that `send` never blocks.
  public var maxPendingActions: Int = 1 << 20
  /// Whether each finished chunk is synced to disk (fsync) before the journal is emptied.
  ///
  /// Off by default: a process crash loses nothing either way (the kernel holds what was
  /// written), and an fsync on the background thread stalls journaling for as long as the
  /// disk takes, up to tens of milliseconds, longer than the 10 ms durability window
  /// (docs/TRACE_FORMAT.md §6). Call ``TraceRecorder/flush(isolation:)`` for durability against power loss.
  public var syncEveryChunk: Bool = false

  /// Whether checkpoints and snapshots land at the same sequence numbers in every run.
  ///
  /// On, the recorder hands the writer the state at every candidate sequence number (a
  /// multiple of ``checkpointInterval`` from the next one due on), and `record` waits when
  /// 64 of them wait for the writer, and `jumped` waits until the writer has taken the jump
  /// (which starts its schedule again); the writer decides by the rule above alone, so the
  /// file does not depend on timing. Tools that must produce the same file every time
  /// (`retrace generate`, `retrace import`) turn it on.
  ///
  /// Off by default, for apps: the recorder then hands the writer a state only when the
  /// writer holds no earlier one and keeps up (at most 1,024 actions behind), and skips the
  /// candidate otherwise, so `send` never waits, and the app never has to copy a large state
  /// because the writer still holds it (copy-on-write; see W4 in `Benchmarks/`). Periodic
  /// checkpoints of a busy recording then come later than the rule says, and a stretch of
  /// sends faster than the writer has none until the writer catches up; the checkpoint at
  /// ``TraceRecorder/flush(isolation:)`` and ``TraceRecorder/close(isolation:)`` is written either way.
  public var reproducibleCheckpoints: Bool = false

  /// The key of the pseudonyms that redact personal data before it is written, by the
  /// domain's `RedactionPolicy`; `nil` (the default) writes actions and states
  /// as they are.
  ///
  /// With a key, the recorder writes each action with its personal fields pseudonymized or
  /// dropped and the starting state by the policy's state rules; its checkpoints and
  /// snapshots are of the states the redacted actions give, which the recorder replays
  /// itself with the domain's reducer, so that the trace replays and verifies without the
  /// key (`docs/PRIVACY.md`). A domain without
  /// a policy cannot be recorded with a key: the recorder refuses to start rather than
  /// write in clear what the app meant to redact.
  public var redactionKey: RedactionKey?
  /// The developer's public key to encrypt the trace to; `nil` (the default) writes it in
  /// clear.
  ///
  /// With a key, every chunk and every journal record is sealed (HPKE, RFC 9180, with
  /// X25519, HKDF-SHA256 and ChaCha20-Poly1305) before it is written, so that neither a lost
  /// phone nor a leaked file shows an action or a state; only the header stays in clear
  /// (`docs/TRACE_FORMAT.md` §10). A trace torn by a crash still opens up to the tear with the
  /// private key (`retrace keygen` makes the pair). Redaction and encryption go together:
  /// redaction decides what the developers may see, encryption who may see it.
  public var encryptionKey: TracePublicKey?

  /// The trace format version to write: 2 (the default), whose chunks hold actions
  /// column-wise and take about half the bytes, or 1, for readers that know only format 1
  /// (`docs/TRACE_FORMAT.md`). Every reader of this library reads both.
  public var formatVersion: UInt16 = TraceFormat.version

  /// The default configuration.
  public init() {}

  /// Checks that the values make sense.
  func validated() throws(TraceError) -> Self {
    guard (1...TraceFormat.version).contains(formatVersion) else {
      throw TraceError(
        .unsupportedVersion,
        "formatVersion \(formatVersion) is not one this library writes (1 to \(TraceFormat.version))"
      )
    }
    guard chunkSize >= 1_024, chunkSize <= TraceFormat.maxChunkSize / 2 else {
      throw TraceError(.tooLarge, "chunkSize must be between 1 KiB and 512 MiB")
    }
    guard (1...22).contains(compressionLevel) || (-7...(-1)).contains(compressionLevel) else {
      throw TraceError(.corrupted, "compressionLevel \(compressionLevel) is not a zstd level")
    }
    guard maxSnapshotShare > 0, maxSnapshotShare <= 1 else {
      throw TraceError(.corrupted, "maxSnapshotShare must be more than 0 and at most 1")
    }
    guard checkpointInterval >= 0, snapshotInterval >= 0, maxPendingActions > 0 else {
      throw TraceError(.corrupted, "intervals must not be negative")
    }
    guard checkpointInterval == 0 || snapshotInterval % checkpointInterval == 0 else {
      throw TraceError(.corrupted, "snapshotInterval must be a multiple of checkpointInterval")
    }
    return self
  }

  /// The interval at which the recorder hands states to the writer.
  var stateInterval: UInt64 {
    UInt64(checkpointInterval > 0 ? checkpointInterval : snapshotInterval)
  }
}
