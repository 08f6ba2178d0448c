import Foundation
import Retrace
import RetraceLog

// MARK: - What `info` and `verify` read

extension SessionFile {
  /// What `info` and `verify` report about a file, read without decoding actions or states.
  package struct Summary: Sendable {
    package var info: SessionInfo
    package var format: String
    /// A trace's format version (docs/TRACE_FORMAT.md); `nil` for JSON Lines.
    package var formatVersion: Int? = nil
    package var bytes: Int
    package var blocks: Int?
    package var firstSequence: UInt64
    package var lastSequence: UInt64
    package var actionCount: Int
    package var caseCounts: [(name: String, count: Int)]
    package var firstTime: Double?
    package var lastTime: Double?
    package var snapshots: Int
    package var checkpoints: Int
    /// Time-travel jumps (``RecordedSession/jumps``); read from the chunk headers.
    package var jumps = 0
    package var integrity: IntegrityReport
    /// How the trace is encrypted, if it is.
    package var encryption: TraceEncryption? = nil
    /// Whether the actions were read: `false` for an encrypted trace without its key, of
    /// which only what the trace keeps in clear is known.
    package var contentsRead = true
    /// Whether the session never closed (``SessionFile/unfinished``).
    package var unfinished = false
    /// The size of the journal beside an unfinished session's trace, when there is one.
    package var journalBytes: Int? = nil

    package var duration: Double {
      guard let firstTime, let lastTime else { return 0 }
      return lastTime - firstTime
    }
  }

  /// Describes the file with `registry`'s domains: what code off the command's task passes.
  ///
  /// - Throws: `TraceError` when the file cannot be read at all; `DebuggerError` when JSON
  ///   Lines name a domain that `registry` lacks.
  package func summary(in registry: DomainRegistry) throws -> Summary {
    switch content {
    case .trace: return try summary(domain: try? domain(in: registry))
    case .jsonLines: return try summary(domain: try domain(in: registry))
    }
  }

  /// Describes the file as `domain`'s. A trace needs no domain (its case names are read from
  /// the encoded actions; `domain` lists them in its order, the rest follow as they first
  /// appear); JSON Lines is decoded with it, and without one is refused.
  ///
  /// - Throws: `TraceError` when the file cannot be read at all; `DebuggerError`
  ///   (`unknownDomain`) for JSON Lines without a domain.
  package func summary(domain: (any Domain)?) throws -> Summary {
    try checkedSummary(domain: domain).summary
  }

  /// The file as far as it is intact (``checked()``) and its summary
  /// (``summary(domain:)``), from one check of every chunk: what a reader that must list
  /// exactly the actions the summary counts reads from.
  ///
  /// - Throws: As ``summary(domain:)``.
  package func checkedSummary(domain: (any Domain)?) throws -> (
    checked: SessionFile, summary: Summary
  ) {
    switch content {
    case .trace(let reader):
      do {
        guard reader.canReadRecords else { return (self, Self.summarizeClearPart(reader)) }
        let intact = reader.intactPart()
        return (
          SessionFile(path: path, content: .trace(intact)),
          try Self.summarize(intact, order: domain?.actionCases ?? [])
        )
      } catch {
        throw error.at(path: path)
      }
    case .jsonLines(let data, _):
      guard let domain else {
        throw DebuggerError(.unknownDomain, "no domain to read \(domainName)'s JSON Lines with")
          .at(path: path)
      }
      return (self, try summarizeJSONLines(data, domain: domain))
    }
  }

  /// The integrity of the file by every check (``checked()``), for `verify`.
  package func integrity(in registry: DomainRegistry) throws -> IntegrityReport {
    switch content {
    case .trace(let reader):
      if let encryption = reader.header.encryption, !reader.canReadRecords {
        throw TraceError.keyNeeded(encryption, path: path)
      }
      return reader.intactPart().integrityReport
    case .jsonLines: return try summary(in: registry).integrity
    }
  }

  private static func summarize(_ reader: TraceReader, order: [String]) throws(TraceError)
    -> Summary
  {
    let census = try reader.actionCensus()
    let counts = Dictionary(uniqueKeysWithValues: census.caseCounts.map { ($0.name, $0.count) })
    let names =
      order.filter { counts[$0] != nil }
      + census.caseCounts.map(\.name).filter {
        !order.contains($0)
      }
    var summary = summarizeClearPart(reader)
    summary.caseCounts = names.map { ($0, counts[$0]!) }
    summary.firstTime = census.firstTime
    summary.lastTime = census.lastTime
    summary.snapshots = census.snapshots
    summary.contentsRead = true
    return summary
  }

  /// What a trace's header, chunk headers and index say, which is all an encrypted trace
  /// keeps in clear: no action cases or times (`contentsRead` is `false`).
  private static func summarizeClearPart(_ reader: TraceReader) -> Summary {
    let header = reader.header
    var summary = Summary(
      info: SessionInfo(header),
      format: "trace", bytes: reader.fileSize, blocks: reader.chunks.count,
      firstSequence: reader.firstSequence, lastSequence: reader.lastSequence,
      actionCount: reader.actionCount, caseCounts: [], firstTime: nil, lastTime: nil,
      snapshots: reader.chunks.count(where: { $0.startsWithSnapshot && !$0.isJump }),
      checkpoints: reader.checkpointCount,
      integrity: reader.integrityReport, encryption: header.encryption, contentsRead: false)
    summary.jumps = reader.chunks.count(where: \.isJump)
    summary.formatVersion = Int(reader.formatVersion)
    summary.unfinished = reader.isUnfinished
    summary.journalBytes = reader.journalSize
    return summary
  }

  private func summarizeJSONLines<D: Domain>(_ data: Data, domain: D) throws(TraceError)
    -> Summary
  {
    let source = try JSONLinesSession(data: data, domain: domain, path: path)
    let session = source.intact
    let integrity = source.integrity
    return Summary(
      info: session.info, format: "jsonl", bytes: data.count, blocks: nil,
      firstSequence: session.startSequence + 1, lastSequence: session.endSequence,
      actionCount: session.actions.count,
      caseCounts: session.actionCaseCounts(order: domain.actionCases),
      firstTime: session.actions.first?.time,
      lastTime: session.actions.last?.time, snapshots: 0, checkpoints: 0, integrity: integrity)
  }
}
